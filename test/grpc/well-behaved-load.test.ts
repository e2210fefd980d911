import { credentials, Metadata } from '@grpc/grpc-js';
import {
  ShortLinkServiceClient,
  type ResolveShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { ACME_DOMAIN } from '../support/core-fixture';
import { outcomeOf } from '../support/grpc-call';
import { captureLogs } from '../support/log-capture';
import { startGrpcOnTestCore, validRequest } from '../support/grpc-fixture';

const CALLS = 2000;
const CLIENTS = 3;
const IN_FLIGHT_PER_CLIENT = 10;
const PAUSE_BETWEEN_CALLS_MS = 30;
const CALL_DEADLINE_MS = 15_000;

describe('a well-behaved client under load, with every connection bound tight', () => {
  it('makes 2,000 calls over a few connections that keep being recycled, and sees no error', async () => {
    const logs = captureLogs();
    const { f, grpc } = await startGrpcOnTestCore(
      {},
      {
        logger: logs.logger,
        connectionLimits: {
          handshakeTimeoutMs: 1000,
          messageTimeoutMs: 1000,
          maxConnectionIdleMs: 200,
          maxConnectionAgeMs: 300,
          // As long as a call's deadline: on a loaded machine a call can take seconds, and a
          // connection told to go away must not be cut under a call its client still waits for.
          maxConnectionAgeGraceMs: CALL_DEADLINE_MS,
          keepaliveMinTimeMs: 100,
          maxPingStrikes: 2,
          // Each client may hold its new connection and those still finishing their calls after
          // their GOAWAY: with an age of 300 ms and slow calls, more than one of those at a time.
          maxConnectionsPerAddress: CLIENTS * 4,
        },
      },
    );
    const clients = Array.from(
      { length: CLIENTS },
      () =>
        new ShortLinkServiceClient(`127.0.0.1:${grpc.running.port}`, credentials.createInsecure(), {
          // Pings while calls run, no more often than the server allows.
          'grpc.keepalive_time_ms': 200,
          'grpc.keepalive_timeout_ms': 5000,
        }),
    );
    try {
      const created = await grpc.create(validRequest(f, { alias: 'loaded' }), f.token);
      expect(created.error).toBeUndefined();
      const errors: string[] = [];
      let sent = 0;
      const resolveOne = (client: ShortLinkServiceClient) =>
        outcomeOf<ResolveShortLinkResponse>((callback) =>
          client.resolveShortLink(
            { domain: ACME_DOMAIN, alias: 'loaded' },
            new Metadata(),
            { deadline: Date.now() + CALL_DEADLINE_MS },
            callback,
          ),
        );
      const worker = async (client: ShortLinkServiceClient) => {
        while (sent < CALLS) {
          sent += 1;
          const outcome = await resolveOne(client);
          if (outcome.error) errors.push(`${outcome.error.code} ${outcome.error.details}`);
          else if (outcome.response?.shortLink?.alias !== 'loaded') errors.push('wrong answer');
          // Half-way, one worker idles past the idle time and the age.
          if (sent === CALLS / 2) await new Promise((resolve) => setTimeout(resolve, 500));
          // A pause between calls keeps the load going for more than twice the connections' age
          // (67 calls a worker, at least 2 s): with 10 ms, one run saw only two connections a client.
          await new Promise((resolve) => setTimeout(resolve, PAUSE_BETWEEN_CALLS_MS));
        }
      };
      await Promise.all(
        clients.flatMap((client) =>
          Array.from({ length: IN_FLIGHT_PER_CLIENT }, () => worker(client)),
        ),
      );
      expect(errors).toEqual([]);
      const completed = logs.records().filter((record) => record.msg === 'call completed');
      expect(completed.length).toBeGreaterThanOrEqual(CALLS);
      // The connections were recycled many times over (each peer port is one connection).
      const connections = new Set(completed.map((record) => record.peer));
      expect(connections.size).toBeGreaterThan(CLIENTS * 2);
    } finally {
      for (const client of clients) client.close();
      await grpc.close();
    }
  }, 120_000);
});
