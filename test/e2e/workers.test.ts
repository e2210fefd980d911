import { eventually, LONG_WAIT_MS } from '../support/eventually';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { isRunning, runServiceUntilExit, type ChildService } from '../support/child-service';
import { grpcCreate, ownConnectionClient } from '../support/grpc-client';
import { authorizationMetadata } from '../support/grpc-metadata';
import { sendRaw } from '../support/raw-http';
import { startReputationGate, type ReputationGate } from '../support/reputation-gate';
import { UNLIMITED } from '../support/in-process-service';
import { logRecords, workerPids, type LogRecord } from '../support/service-log';
import { sendCreatesOnBothGateways } from '../support/held-creates';
import { workersServices } from '../support/workers-services';
import { within } from '../support/within';
import { STOPPED_MESSAGE } from '../../gateway-http/stop-signals';

jest.setTimeout(180_000);

/** The pids that wrote a log line with message `msg` (and matching `filter`). */
function pidsLogging(
  service: ChildService,
  msg: string,
  filter: (record: LogRecord) => boolean = () => true,
): Set<number> {
  return new Set(
    logRecords(service.output())
      .filter((record) => record.msg === msg && filter(record))
      .map((record) => record.pid),
  );
}

/** Runs `items` through `work`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) {
    results.push(...(await Promise.all(items.slice(i, i + width).map(work))));
  }
  return results;
}

const services = workersServices('shortlink-workers-');

describe('WORKERS=2: one primary, two workers on the same ports', () => {
  let s: ChildService;
  const body = () => ({
    organization_key: s.organizationKey,
    url_group_id: s.urlGroupId,
    url: 'https://example.com/from-a-worker',
  });
  const restCreate = (authorization: string) =>
    sendRaw({
      port: s.httpPort,
      headers: { 'Content-Type': 'application/json', Authorization: authorization },
      body: JSON.stringify(body()),
    });

  beforeAll(async () => {
    s = await services.start({});
  });

  it('starts two workers that both listen on the one REST port and the one gRPC port', async () => {
    const workers = workerPids(s);
    // Each process writes its log asynchronously: a worker's lines may follow the primary's.
    await eventually(
      () =>
        pidsLogging(s, 'REST gateway listening').size === 2 &&
        pidsLogging(s, 'gRPC gateway listening').size === 2,
      'both workers to log that they listen',
      LONG_WAIT_MS,
    );
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(s.child.pid);
    for (const gateway of ['REST', 'gRPC']) {
      const lines = logRecords(s.output()).filter(
        (record) => record.msg === `${gateway} gateway listening`,
      );
      expect(new Set(lines.map((record) => record.pid))).toEqual(new Set(workers));
      const port = gateway === 'REST' ? s.httpPort : s.grpcPort;
      expect(lines.map((record) => record.port)).toEqual([port, port]);
    }
  });

  it('provisions the demo and prints its banner once, not per worker', () => {
    expect(s.output().match(/personal access token:/g)).toHaveLength(1);
  });

  it("holds one token's 60 per minute exactly across the workers, over REST and gRPC", async () => {
    const metadata = authorizationMetadata(`Bearer ${s.token}`);
    // 70 over REST and 30 over gRPC, each on a connection of its own, in batches of 10: the
    // workers accept connections themselves, so the kernel picks the worker of each, and over
    // 100 connections opened in ten batches both workers take a share of each gateway.
    const requests = Array.from({ length: 100 }, (_, i) => i);
    const outcomes = await inBatches(requests, 10, async (i) => {
      if (i % 10 < 7) return (await restCreate(`Bearer ${s.token}`)).status;
      const client = ownConnectionClient(s.grpcPort);
      try {
        const outcome = await grpcCreate(
          client,
          {
            organizationKey: s.organizationKey,
            urlGroupId: s.urlGroupId,
            url: 'https://example.com/from-a-worker',
          },
          metadata,
        );
        return outcome.error?.code === status.RESOURCE_EXHAUSTED ? 429 : outcome.error ? -1 : 200;
      } finally {
        client.close();
      }
    });
    expect(outcomes.filter((code) => code === 200)).toHaveLength(60);
    expect(outcomes.filter((code) => code === 429)).toHaveLength(40);
    await eventually(
      () =>
        pidsLogging(s, 'call completed').size === 2 &&
        pidsLogging(s, 'request completed').size === 2,
      'request and call lines from both workers',
      LONG_WAIT_MS,
    );
    const restServers = pidsLogging(
      s,
      'request completed',
      (record) => (record.req as { path?: string }).path === '/api/create',
    );
    expect(restServers).toEqual(new Set(workerPids(s)));
    expect(pidsLogging(s, 'call completed')).toEqual(new Set(workerPids(s)));
  });

  it('holds the failed-token budget of one address exactly across the workers', async () => {
    const answers = await inBatches(
      Array.from({ length: 50 }, (_, i) => i),
      10,
      (i) => restCreate(`Bearer wrong-token-${i}`),
    );
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(30);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(20);
  });

  it('restarts a worker that was killed, and logs it', async () => {
    const [victim, survivor] = workerPids(s) as [number, number];
    process.kill(victim, 'SIGKILL');
    await s.logged('worker restarted');
    const crash = logRecords(s.output()).find(
      (record) => record.msg === 'worker exited unexpectedly; restarting it',
    );
    expect(crash).toMatchObject({ pid: s.child.pid, worker: victim, signal: 'SIGKILL' });
    expect(crash?.restartInMs).toBeGreaterThan(0);
    const workers = workerPids(s);
    expect(workers).toHaveLength(2);
    expect(workers).toContain(survivor);
    const replacement = workers.find((pid) => pid !== survivor)!;
    expect(replacement).not.toBe(victim);

    // The replacement serves on the same port (health checks, on fresh connections).
    for (let i = 0; i < 6; i += 1) {
      expect((await sendRaw({ port: s.httpPort, method: 'GET', path: '/healthz' })).status).toBe(
        200,
      );
    }
    await eventually(
      () => pidsLogging(s, 'request completed', (record) => record.pid === replacement).size > 0,
      'a request line from the restarted worker',
      LONG_WAIT_MS,
    ).catch(() => undefined); // asserted just below, with the lines that arrived
    const healthServers = pidsLogging(
      s,
      'request completed',
      (record) => (record.req as { path?: string }).path === '/healthz',
    );
    expect(healthServers.has(replacement)).toBe(true);
    // The replacement is not a first worker: no second demo.
    expect(s.output().match(/personal access token:/g)).toHaveLength(1);
  });
});

describe('WORKERS=2 and SIGTERM', () => {
  let gate: ReputationGate;

  beforeAll(async () => {
    gate = await startReputationGate();
  });
  afterAll(async () => {
    gate.release();
    await gate.close();
  });

  it('stops every worker gracefully: in-flight requests on both finish, exit code 0', async () => {
    const s = await services.start({ ...UNLIMITED, ...gate.env, SHUTDOWN_TIMEOUT_MS: '60000' });
    const workers = workerPids(s);
    const clients = Array.from({ length: 4 }, () => ownConnectionClient(s.grpcPort));
    const { rest, grpc } = sendCreatesOnBothGateways(s, { rest: 10, grpc: 8 }, clients);
    // Every create is held inside a worker, at its reputation lookup.
    expect(await within(gate.waitForLookups(18), 60_000)).not.toBe('timed out');

    s.child.kill('SIGTERM');
    await eventually(
      () => pidsLogging(s, 'shutting down').size === 3,
      'the primary and both workers to begin their shutdown',
      LONG_WAIT_MS,
    );
    gate.release();
    for (const answer of await Promise.all(rest)) expect(answer.status).toBe(200);
    for (const outcome of await Promise.all(grpc)) expect(outcome.error).toBeUndefined();
    for (const client of clients) client.close();

    expect(await within(s.exited, 60_000)).toBe(0);
    for (const pid of workers) expect(isRunning(pid)).toBe(false);
    expect(pidsLogging(s, 'shutting down')).toEqual(new Set([s.child.pid!, ...workers]));
    // Every process says it stopped, the primary last.
    expect(pidsLogging(s, STOPPED_MESSAGE)).toEqual(new Set([s.child.pid!, ...workers]));
    expect(logRecords(s.output()).at(-1)).toMatchObject({ pid: s.child.pid, msg: STOPPED_MESSAGE });
    // Both workers served some of the held creates.
    expect(
      pidsLogging(
        s,
        'request completed',
        (record) => (record.req as { path?: string }).path === '/api/create',
      ).size + pidsLogging(s, 'call completed').size,
    ).toBeGreaterThanOrEqual(3);
    expect(s.output()).not.toMatch(/killed by timeout|"level":50/);
  });
});

describe('WORKERS=2 when a worker cannot start', () => {
  it("stops with the worker's error and exit code 1 instead of restarting it in a loop", async () => {
    const dir = await services.dataDir();
    // The primary has nothing to check in a seed file: the first worker reads it.
    const seedFile = join(dir, 'seed.json');
    await writeFile(seedFile, '{ "organizations": [');
    const { code, output } = await runServiceUntilExit(services.buildDir(), {
      WORKERS: '2',
      DATA_DIR: join(dir, 'data'),
      SHORTLINK_SEED_FILE: seedFile,
    });
    expect(code).toBe(1);
    expect(output).toContain(seedFile); // the worker's start-up error names the file
    expect(output).toMatch(/shortlink failed to start: worker \d+ exited during start-up/);
    expect(output).not.toMatch(/restarting it|gateway listening/);
  });

  it('refuses a DATA_DIR it cannot use in the primary, before any worker starts', async () => {
    const dir = await services.dataDir();
    const file = join(dir, 'not-a-directory');
    await writeFile(file, 'x');
    const { code, output } = await runServiceUntilExit(services.buildDir(), {
      WORKERS: '2',
      DATA_DIR: file,
    });
    expect(code).toBe(1);
    expect(output).toContain(`shortlink failed to start: DATA_DIR ${file} is not a directory`);
    expect(output).not.toMatch(/worker \d+|gateway listening/);
  });
});

describe('WORKERS=2 when the primary cannot bind the metrics port', () => {
  it('names METRICS_PORT and exits with code 1 before any worker starts', async () => {
    const dir = await services.dataDir();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const { code, output } = await runServiceUntilExit(services.buildDir(), {
        WORKERS: '2',
        DATA_DIR: dir,
        METRICS_PORT: String(port),
      });
      expect(code).toBe(1);
      expect(output).toContain(
        `shortlink failed to start: the metrics gateway cannot listen on 127.0.0.1:${port} (set by METRICS_PORT): listen EADDRINUSE`,
      );
      expect(output).not.toMatch(/gateway listening/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('WORKERS>1 on a store that lives in one process', () => {
  it('is refused at start with a clear message, before any worker starts', async () => {
    const { code, output } = await runServiceUntilExit(services.buildDir(), {
      WORKERS: '2',
      DATA_DIR: ':memory:',
    });
    expect(code).toBe(1);
    expect(output).toMatch(
      /^shortlink failed to start: invalid configuration: WORKERS: is 2, which needs a store the worker processes share, but DATA_DIR=:memory:/m,
    );
    expect(output).not.toMatch(/gateway listening/);
  });
});
