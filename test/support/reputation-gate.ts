import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReputationGate {
  /** The environment that points the service's reputation lookup at this gate. */
  env: Record<string, string>;
  /** Lookups received so far: each is a create held inside the core. */
  readonly received: number;
  /** Resolves once `count` lookups have arrived. */
  waitForLookups(count: number): Promise<void>;
  /** Answers every held and later lookup "clean". */
  release(): void;
  /** Holds the lookups that arrive from now on again, until the next release. */
  hold(): void;
  close(): Promise<void>;
}

/**
 * A Safe Browsing compatible service that holds every lookup until released. Pointed at by the
 * real configuration (SAFE_BROWSING_URL), it keeps creates in flight inside the real service,
 * in-process or in a child process, for as long as a test needs, with no timing involved.
 */
export async function startReputationGate(): Promise<ReputationGate> {
  const held: ServerResponse[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let received = 0;
  let released = false;
  const answer = (res: ServerResponse) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      for (const waiter of waiters.filter((w) => received >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (released) answer(res);
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: {
      SAFE_BROWSING_URL: `http://127.0.0.1:${port}`,
      SAFE_BROWSING_KEY: 'test-key',
      // Every held create starts its lookup at once, and none gives up while the gate is shut.
      SAFE_BROWSING_CONCURRENCY: '10000',
      SAFE_BROWSING_PER_MINUTE: '1000000',
      SAFE_BROWSING_TIMEOUT_MS: '120000',
      SAFE_BROWSING_MAX_WAIT_MS: '120000',
    },
    get received() {
      return received;
    },
    waitForLookups: (count) =>
      received >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    release() {
      released = true;
      for (const res of held.splice(0)) answer(res);
    },
    hold() {
      released = false;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
