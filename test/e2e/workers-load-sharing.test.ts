import { Agent } from 'node:http';
import { status } from '@grpc/grpc-js';
import { createServer, type AddressInfo } from 'node:net';
import { workersReusePort } from '../../core/runtime';
import { runServiceUntilExit, type ChildService } from '../support/child-service';
import { ownConnectionClient } from '../support/grpc-client';
import { sendRaw } from '../support/raw-http';
import { logRecords, workerPids, type LogRecord } from '../support/service-log';
import { workersServices } from '../support/workers-services';
import { eventually, LONG_WAIT_MS } from '../support/eventually';
import type { ShortLinkServiceClient } from '../../gateway-grpc/generated/shortlink/v1/shortlink';

jest.setTimeout(240_000);

/**
 * WORKERS=2 with SO_REUSEPORT (Node 22.12+ on Linux): each worker binds its own socket on the
 * shared port and the kernel spreads connections over them. On Node 20 the workers accept from one
 * shared socket and one may take nearly every connection of a burst, so there is no share to hold
 * them to: these tests run where `workersReusePort()` holds (CI runs them on Node 24).
 */
const onReusePort = workersReusePort() ? describe : describe.skip;

const CONNECTIONS = 32;
const REQUESTS = 4_000;
/** The least share of the requests each of the two workers must serve. */
const LEAST_SHARE = 0.3;

const workers = workersServices('shortlink-sharing-');

/** Unknown aliases are the gRPC calls sent below; the budget of misses would refuse most. */
const startWorkers = (env: Record<string, string> = {}) =>
  workers.start({ FOLLOW_MISSES_PER_MINUTE: '0', ...env });

/**
 * Sends REQUESTS requests over CONNECTIONS connections opened at once, each sending its next
 * request when its last is answered (so a worker with fewer connections answers each sooner).
 */
async function closedLoop(send: (connection: number) => Promise<void>): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, connection) => {
      while (sent < REQUESTS) {
        sent += 1;
        await send(connection);
      }
    }),
  );
}

/** How many of the log records `served` picks each worker wrote, once all REQUESTS are logged. */
async function servedPerWorker(
  service: ChildService,
  served: (record: LogRecord) => boolean,
): Promise<number[]> {
  let records: LogRecord[] = [];
  await eventually(
    () => {
      records = logRecords(service.output()).filter(served);
      return records.length >= REQUESTS;
    },
    `${REQUESTS} log lines of served requests`,
    LONG_WAIT_MS,
  );
  return workerPids(service).map((pid) => records.filter((record) => record.pid === pid).length);
}

onReusePort('WORKERS=2 with SO_REUSEPORT: both workers share a burst of connections', () => {
  let service: ChildService;
  beforeAll(async () => {
    service = await startWorkers();
  });

  it(`serves ${REQUESTS} REST requests over ${CONNECTIONS} keep-alive connections, each worker at least ${LEAST_SHARE * 100} %`, async () => {
    const agents = Array.from(
      { length: CONNECTIONS },
      () => new Agent({ keepAlive: true, maxSockets: 1 }),
    );
    try {
      await closedLoop(async (connection) => {
        const answer = await sendRaw({
          port: service.httpPort,
          method: 'GET',
          path: '/healthz',
          agent: agents[connection],
        });
        expect(answer.status).toBe(200);
      });
    } finally {
      for (const agent of agents) agent.destroy();
    }
    const perWorker = await servedPerWorker(
      service,
      (record) =>
        record.msg === 'request completed' &&
        (record.req as { path?: string } | undefined)?.path === '/healthz',
    );
    expect(perWorker).toHaveLength(2);
    for (const served of perWorker) expect(served).toBeGreaterThanOrEqual(REQUESTS * LEAST_SHARE);
  });

  it(`serves ${REQUESTS} gRPC calls over ${CONNECTIONS} connections, each worker at least ${LEAST_SHARE * 100} %`, async () => {
    const clients: ShortLinkServiceClient[] = Array.from({ length: CONNECTIONS }, () =>
      ownConnectionClient(service.grpcPort),
    );
    try {
      // Every connection is opened at once, before the first call.
      await Promise.all(
        clients.map(
          (client) =>
            new Promise<void>((resolve, reject) =>
              client.waitForReady(Date.now() + 30_000, (error) =>
                error ? reject(error) : resolve(),
              ),
            ),
        ),
      );
      await closedLoop(
        (connection) =>
          new Promise<void>((resolve, reject) =>
            clients[connection]!.resolveShortLink(
              { domain: `localhost:${service.httpPort}`, alias: 'nothing-here' },
              // NOT_FOUND is an answer: the call was served.
              (error) => (error && error.code !== status.NOT_FOUND ? reject(error) : resolve()),
            ),
          ),
      );
    } finally {
      for (const client of clients) client.close();
    }
    const perWorker = await servedPerWorker(
      service,
      (record) => record.msg === 'call completed' && record.method === 'ResolveShortLink',
    );
    expect(perWorker).toHaveLength(2);
    for (const served of perWorker) expect(served).toBeGreaterThanOrEqual(REQUESTS * LEAST_SHARE);
  });
});

onReusePort('WORKERS=2 with SO_REUSEPORT on a port in use', () => {
  it('refuses to start on a port another process listens on, naming PORT', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dataDir = await workers.dataDir();
    try {
      const { code, output } = await runServiceUntilExit(workers.buildDir(), {
        WORKERS: '2',
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(code).toBe(1);
      expect(output).toContain(
        `the REST gateway cannot listen on 127.0.0.1:${port} (set by PORT): listen EADDRINUSE`,
      );
      expect(output).not.toContain('gateway listening');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('refuses a second WORKERS service on the ports of a running one, which keeps serving', async () => {
    const first = await startWorkers({ HOST: '127.0.0.1' });
    const dataDir = await workers.dataDir();
    const { code, output } = await runServiceUntilExit(workers.buildDir(), {
      WORKERS: '2',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(first.httpPort),
    });
    expect(code).toBe(1);
    expect(output).toContain(`(set by PORT): listen EADDRINUSE`);
    const answer = await sendRaw({ port: first.httpPort, method: 'GET', path: '/healthz' });
    expect(answer.status).toBe(200);
  });
});
