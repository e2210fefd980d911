import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { freePort } from '../support/free-port';
import { startChildService, type ChildService } from '../support/child-service';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { grpcCreate, ownConnectionClient } from '../support/grpc-client';
import { authorizationMetadata } from '../support/grpc-metadata';
import { sendRaw } from '../support/raw-http';
import { coversEveryWorker } from '../support/service-log';
import { UNLIMITED } from '../support/in-process-service';
import { promtoolLints, scrape } from '../support/exposition';

jest.setTimeout(180_000);
const lints = promtoolLints();

/** The value of the sample `name{labels}` in a Prometheus text exposition; missing reads 0. */
function sampleValue(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = match[2]!.split(',').sort().join(',');
    if (got === wanted) return Number(match[3]);
  }
  return 0;
}

interface LogRecord {
  pid: number;
  msg: string;
  method?: string;
  req?: { path?: string };
}

/** How many of the log's records each pid wrote, among those `wanted` picks. */
function loggedBy(output: string, wanted: (record: LogRecord) => boolean): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const record = JSON.parse(line) as LogRecord;
      if (wanted(record)) byPid.set(record.pid, (byPid.get(record.pid) ?? 0) + 1);
    } catch {
      // a line still being written
    }
  }
  return byPid;
}

/** A finished POST /api/create (each worker logs its own requests). */
const restCreate = (record: LogRecord) =>
  record.msg === 'request completed' && record.req?.path === '/api/create';
/** A finished CreateShortLink call (the gRPC gateway's access log). */
const grpcCreateCall = (record: LogRecord) =>
  record.msg === 'call completed' && (record.method ?? '').endsWith('CreateShortLink');

/** Waits until the log holds `count` records `wanted` picks; answers them by pid. */
async function waitForLogged(
  service: ChildService,
  wanted: (record: LogRecord) => boolean,
  count: number,
): Promise<Map<number, number>> {
  let byPid = new Map<number, number>();
  await eventually(
    () => {
      byPid = loggedBy(service.output(), wanted);
      return [...byPid.values()].reduce((a, b) => a + b, 0) >= count;
    },
    'request log lines',
    30_000,
  );
  return byPid;
}

/**
 * Calls `send` (each call one request of its own, logged as `wanted`) at least `least` times and
 * until both workers have logged one, at most 24 times; answers how many were sent.
 */
async function sendUntilBothWorkers(
  service: ChildService,
  wanted: (record: LogRecord) => boolean,
  least: number,
  send: () => Promise<void>,
): Promise<number> {
  const before = loggedBy(service.output(), wanted);
  const already = [...before.values()].reduce((a, b) => a + b, 0);
  let sent = 0;
  for (;;) {
    await send();
    sent += 1;
    const byPid = await waitForLogged(service, wanted, already + sent);
    const served = [...byPid].filter(([pid, count]) => count > (before.get(pid) ?? 0));
    const both = coversEveryWorker(
      service,
      served.map(([pid]) => pid),
    );
    if ((sent >= least && both) || sent >= 24) return sent;
  }
}

describe('WORKERS=2: one scrape of the primary sums every worker', () => {
  let build: TempBuild;
  let dataDir: string;
  let service: ChildService;
  let metricsPort: number;

  beforeAll(async () => {
    build = await compileToTemp();
    dataDir = await mkdtemp(join(tmpdir(), 'shortlink-metrics-workers-'));
    metricsPort = await freePort();
    service = await startChildService(build.dir, {
      ...UNLIMITED,
      WORKERS: '2',
      DATA_DIR: dataDir,
      METRICS_PORT: String(metricsPort),
    });
    await service.logged('workers ready');
  });
  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await build?.remove();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('counts REST and gRPC creates and replays answered by both workers, and only the primary binds the port', async () => {
    const create = (headers: Record<string, string> = {}) =>
      sendRaw({
        port: service.httpPort,
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${service.token}`,
          ...headers,
        },
        body: JSON.stringify({
          organization_key: service.organizationKey,
          url_group_id: service.urlGroupId,
          url: 'https://example.com/counted',
        }),
      });
    // Each on its own connection. The workers accept connections themselves, so the kernel
    // picks the worker of each: creates go on until both workers have answered some.
    const CREATES = await sendUntilBothWorkers(service, restCreate, 8, async () => {
      expect((await create()).status).toBe(200);
    });
    const key = { 'Idempotency-Key': `metrics-workers-${process.pid}` };
    const REPLAYS = 3;
    expect((await create(key)).status).toBe(200);
    for (let i = 0; i < REPLAYS; i++) {
      const replay = await create(key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }

    // gRPC creates, each client on its own connection, until both workers have answered some.
    const GRPC_CREATES = await sendUntilBothWorkers(service, grpcCreateCall, 4, async () => {
      const client = ownConnectionClient(service.grpcPort);
      try {
        const outcome = await grpcCreate(
          client,
          {
            organizationKey: service.organizationKey,
            urlGroupId: service.urlGroupId,
            url: 'https://example.com/counted-grpc',
          },
          authorizationMetadata(`Bearer ${service.token}`),
        );
        expect(outcome.error).toBeUndefined();
      } finally {
        client.close();
      }
    });

    // Both workers answered some of each (their own log lines say which), the primary none.
    for (const [wanted, count] of [
      [restCreate, CREATES + 1 + REPLAYS],
      [grpcCreateCall, GRPC_CREATES],
    ] as const) {
      const byPid = await waitForLogged(service, wanted, count);
      expect(byPid.size).toBe(2);
      expect(byPid.has(service.child.pid!)).toBe(false);
    }

    const answer = await scrape(metricsPort);
    expect(answer.status).toBe(200);
    lints.add('the sums of two workers', answer.text);
    const value = (name: string, labels: Record<string, string>) =>
      sampleValue(answer.text, name, labels);
    expect(
      value('shortlink_requests_total', { gateway: 'rest', operation: 'create', code: '0' }),
    ).toBe(CREATES + 1 + REPLAYS);
    expect(value('shortlink_links_created_total', { gateway: 'rest' })).toBe(CREATES + 1);
    expect(value('shortlink_idempotent_replays_total', { gateway: 'rest' })).toBe(REPLAYS);
    expect(
      value('shortlink_request_duration_seconds_count', { gateway: 'rest', operation: 'create' }),
    ).toBe(CREATES + 1 + REPLAYS);
    expect(
      value('shortlink_requests_total', { gateway: 'grpc', operation: 'create', code: '0' }),
    ).toBe(GRPC_CREATES);
    expect(value('shortlink_links_created_total', { gateway: 'grpc' })).toBe(GRPC_CREATES);
    expect(
      value('shortlink_request_duration_seconds_count', { gateway: 'grpc', operation: 'create' }),
    ).toBe(GRPC_CREATES);

    // The metrics port was bound once, by the primary: no worker logs a metrics server.
    const metricsLines = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"metrics gateway listening"'));
    expect(metricsLines).toHaveLength(1);
    expect(metricsLines[0]).toContain(`"pid":${service.child.pid}`);
  });
  it('answers a scrape at once while a killed worker is being replaced, with the workers that run', async () => {
    const ready = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"workers ready"'));
    const [victim] = (JSON.parse(ready[0]!) as { workers: number[] }).workers;
    process.kill(victim!, 'SIGKILL');
    await service.logged('worker exited unexpectedly; restarting it');
    // Scrape until the replacement has started: a worker still starting answers no metrics
    // request, and a scrape that waited for it took 5 s and failed.
    const scrapes: Array<{ status: number; ms: number }> = [];
    let restarted = false;
    void service.logged('worker restarted').then(() => (restarted = true));
    while (!restarted) {
      const began = Date.now();
      const answer = await scrape(metricsPort);
      scrapes.push({ status: answer.status, ms: Date.now() - began });
      if (answer.status === 200) {
        expect(answer.text).toContain('shortlink_requests_total');
      }
    }
    expect(scrapes.length).toBeGreaterThan(0);
    expect(scrapes.filter((s) => s.status !== 200 || s.ms > 2000)).toEqual([]);
    expect((await scrape(metricsPort)).status).toBe(200);
  });

  it("keeps a killed worker's counts in the sums: no summed counter goes down", async () => {
    const counted = (text: string) => ({
      restCreates: sampleValue(text, 'shortlink_requests_total', {
        gateway: 'rest',
        operation: 'create',
        code: '0',
      }),
      grpcCreates: sampleValue(text, 'shortlink_requests_total', {
        gateway: 'grpc',
        operation: 'create',
        code: '0',
      }),
      restLinks: sampleValue(text, 'shortlink_links_created_total', { gateway: 'rest' }),
    });
    const before = counted((await scrape(metricsPort)).text);
    expect(before.restCreates).toBeGreaterThan(0);
    const ready = service
      .output()
      .split('\n')
      .filter((line) => /"msg":"(workers ready|worker restarted)"/.test(line));
    const [victim] = (JSON.parse(ready[ready.length - 1]!) as { workers: number[] }).workers;
    const restartsBefore = service.output().split('"msg":"worker restarted"').length;
    process.kill(victim!, 'SIGKILL');
    await eventually(
      () => service.output().split('"msg":"worker restarted"').length > restartsBefore,
      'the replacement',
      30_000,
    );
    const answer = await scrape(metricsPort);
    lints.add('the sums after a worker was replaced', answer.text);
    expect(counted(answer.text)).toEqual(before);
  });
});

lints.declareLintTest(2);
