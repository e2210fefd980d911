import {
  connect,
  constants as http2Constants,
  type ClientHttp2Session,
  type IncomingHttpHeaders,
} from 'node:http2';
import {
  CreateShortLinkRequest,
  CreateShortLinkResponse,
} from '../../../gateway-grpc/generated/shortlink/v1/shortlink';
import { failChild, tellParent } from '../support/child';
import { CONCURRENCY } from '../support/concurrency';
import { CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { quantile, type Round } from '../support/measurement';
import type { GrpcLoadMessage } from './grpc-round';

/** HTTP/2 connections the calls are spread over, unless a run asks for another number. */
const CONNECTIONS = 4;
/** A call that takes longer counts as failed instead of hanging a round. */
const CALL_DEADLINE_MS = 10_000;
/** The gRPC length prefix: one compression flag byte and a four-byte big-endian length. */
const PREFIX_BYTES = 5;

/**
 * The request, encoded once and framed as gRPC sends it over HTTP/2 (uncompressed). Every call
 * sends these bytes: what a call costs the load generator is the HTTP/2 stream, not protobuf.
 */
const FRAME = ((): Buffer => {
  const message = CreateShortLinkRequest.encode(
    CreateShortLinkRequest.fromPartial({
      organizationKey: CREATE_BODY.organization_key,
      urlGroupId: CREATE_BODY.url_group_id,
      url: CREATE_BODY.url,
    }),
  ).finish();
  const frame = Buffer.alloc(PREFIX_BYTES + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, PREFIX_BYTES);
  return frame;
})();

const HEADERS = {
  [http2Constants.HTTP2_HEADER_METHOD]: 'POST',
  [http2Constants.HTTP2_HEADER_PATH]: '/shortlink.v1.ShortLinkService/CreateShortLink',
  [http2Constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
  te: 'trailers',
  // The deadline as grpc-js's client sends it: the server gives up on the call after it too.
  'grpc-timeout': `${CALL_DEADLINE_MS}m`,
  authorization: CREATE_HEADERS.authorization,
};

/** The open connections per address and number of connections. */
const sessions = new Map<string, ClientHttp2Session[]>();

function sessionsFor(address: string, connections: number): ClientHttp2Session[] {
  const key = `${address} ${connections}`;
  let list = sessions.get(key);
  if (!list) {
    list = Array.from({ length: connections }, () => {
      const session = connect(`http://${address}`);
      // A failed connection fails its calls (each stream errors); nothing to do here.
      session.on('error', () => undefined);
      return session;
    });
    sessions.set(key, list);
  }
  return list;
}

function statusOf(headers: IncomingHttpHeaders): string | undefined {
  const status = headers['grpc-status'];
  return typeof status === 'string' ? status : undefined;
}

/**
 * One CreateShortLink call; true when it ended with grpc-status 0 and a response message that
 * holds a short link.
 */
function call(session: ClientHttp2Session): Promise<boolean> {
  return new Promise((resolve) => {
    const stream = session.request(HEADERS);
    const chunks: Buffer[] = [];
    let status: string | undefined;
    stream.setTimeout(CALL_DEADLINE_MS, () => stream.close(http2Constants.NGHTTP2_CANCEL));
    // A trailers-only answer (an error) carries grpc-status in its headers.
    stream.on('response', (headers) => (status = statusOf(headers)));
    stream.on('trailers', (trailers) => (status = statusOf(trailers)));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (status !== '0') return resolve(false);
      const body = Buffer.concat(chunks);
      if (body.length < PREFIX_BYTES) return resolve(false);
      try {
        const response = CreateShortLinkResponse.decode(body.subarray(PREFIX_BYTES));
        resolve(response.shortLink !== undefined);
      } catch {
        resolve(false);
      }
    });
    stream.end(FRAME);
  });
}

/**
 * `CONCURRENCY` loops of CreateShortLink calls against `address` for `seconds`, over
 * `connections` connections.
 */
async function round(
  address: string,
  seconds: number,
  connections: number,
): Promise<Omit<Round, 'serverCpuMsPerRequest'>> {
  const list = sessionsFor(address, connections);
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (index: number) => {
    const session = list[index % list.length] as ClientHttp2Session;
    while (performance.now() < deadline) {
      const sent = performance.now();
      const ok = await call(session);
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
 * The gRPC load generator, in its own process: it stays up across rounds (warm connections and
 * JIT) and runs one round per `run` message from the parent. It speaks gRPC over node's HTTP/2
 * client with the request encoded once, not through a grpc-js client: grpc-js's client needs two
 * to three times the CPU per call of a bare grpc-js server, so on this 2-core machine it, not the
 * server measured, set the pace (bare grpc-js answered 7,800 calls/s to it and 16,000 to this).
 */
function main(): void {
  process.on('message', (message: GrpcLoadMessage) => {
    if (message.type === 'stop') process.exit(0);
    if (message.type !== 'run' || !message.address) return;
    round(message.address, message.seconds ?? 1, message.connections ?? CONNECTIONS)
      .then((result) => tellParent({ type: 'result', ...result }))
      .catch(failChild);
  });
  void tellParent({ type: 'ready' });
}

main();
