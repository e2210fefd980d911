import { credentials, Metadata } from '@grpc/grpc-js';
import {
  CreateShortLinkRequest,
  ShortLinkServiceClient,
} from '../../../gateway-grpc/generated/shortlink/v1/shortlink';
import { failChild, tellParent } from '../support/child';
import { CONCURRENCY } from '../support/concurrency';
import { CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { quantile, type Round } from '../support/measurement';

/** Channels the calls are spread over (grpc-js multiplexes calls on one HTTP/2 connection). */
const CHANNELS = 4;
/** A call that takes longer counts as failed (DEADLINE_EXCEEDED) instead of hanging a round. */
const CALL_DEADLINE_MS = 10_000;

const request = CreateShortLinkRequest.fromPartial({
  organizationKey: CREATE_BODY.organization_key,
  urlGroupId: CREATE_BODY.url_group_id,
  url: CREATE_BODY.url,
});
const metadata = new Metadata();
metadata.set('authorization', CREATE_HEADERS.authorization);

const clients = new Map<string, ShortLinkServiceClient[]>();

function clientsFor(address: string): ShortLinkServiceClient[] {
  let list = clients.get(address);
  if (!list) {
    // A local subchannel pool per client: each gets its own connection instead of sharing one.
    list = Array.from(
      { length: CHANNELS },
      () =>
        new ShortLinkServiceClient(address, credentials.createInsecure(), {
          'grpc.use_local_subchannel_pool': 1,
        }),
    );
    clients.set(address, list);
  }
  return list;
}

function call(client: ShortLinkServiceClient): Promise<boolean> {
  return new Promise((resolve) => {
    const options = { deadline: Date.now() + CALL_DEADLINE_MS };
    client.createShortLink(request, metadata, options, (error, response) =>
      resolve(error === null && response.shortLink !== undefined),
    );
  });
}

/** `CONCURRENCY` loops of CreateShortLink calls against `address` for `seconds`. */
async function round(
  address: string,
  seconds: number,
): Promise<Omit<Round, 'serverCpuMsPerRequest'>> {
  const list = clientsFor(address);
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (index: number) => {
    const client = list[index % list.length] as ShortLinkServiceClient;
    while (performance.now() < deadline) {
      const sent = performance.now();
      const ok = await call(client);
      latencies.push(performance.now() - sent);
      if (!ok) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => loop(i)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    requests: latencies.length,
    // A gRPC call has no HTTP status class; every failed call is counted as an error.
    unexpectedStatus: 0,
    errors: failed,
  };
}

/**
 * The gRPC load generator, in its own process: it stays up across rounds (warm channels and
 * JIT) and runs one round per `run` message from the parent.
 */
function main(): void {
  process.on('message', (message: { type?: string; address?: string; seconds?: number }) => {
    if (message.type === 'stop') process.exit(0);
    if (message.type !== 'run' || !message.address) return;
    round(message.address, message.seconds ?? 1)
      .then((result) => tellParent({ type: 'result', ...result }))
      .catch(failChild);
  });
  void tellParent({ type: 'ready' });
}

main();
