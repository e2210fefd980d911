import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port';
import { startChildService, type ChildService } from '../reliability/support/child-service';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { sendRaw } from '../reliability/support/raw-http';
import { UNLIMITED } from '../reliability/support/test-service';
import { promtoolCheck, scrape } from './support/exposition';

jest.setTimeout(180_000);

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

/** The pids that logged a finished POST /api/create (each worker logs its own requests). */
function createLoggedBy(output: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const record = JSON.parse(line) as { pid: number; msg: string; req?: { path?: string } };
      if (record.msg !== 'request completed' || record.req?.path !== '/api/create') continue;
      byPid.set(record.pid, (byPid.get(record.pid) ?? 0) + 1);
    } catch {
      // a line still being written
    }
  }
  return byPid;
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

  it('counts creates and replays answered by both workers, and only the primary binds the port', async () => {
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
    // Each on its own connection, so node's cluster hands them to the workers in turn.
    const CREATES = 8;
    for (let i = 0; i < CREATES; i++) expect((await create()).status).toBe(200);
    const key = { 'Idempotency-Key': `metrics-workers-${process.pid}` };
    const REPLAYS = 3;
    expect((await create(key)).status).toBe(200);
    for (let i = 0; i < REPLAYS; i++) {
      const replay = await create(key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }

    // Both workers answered some of them (their own request log lines say which).
    const deadline = Date.now() + 30_000;
    let byPid = createLoggedBy(service.output());
    while ([...byPid.values()].reduce((a, b) => a + b, 0) < CREATES + 1 + REPLAYS) {
      if (Date.now() > deadline) throw new Error('request log lines did not arrive');
      await new Promise((resolve) => setTimeout(resolve, 50));
      byPid = createLoggedBy(service.output());
    }
    expect(byPid.size).toBe(2);
    expect(byPid.has(service.child.pid!)).toBe(false);

    const answer = await scrape(metricsPort);
    expect(answer.status).toBe(200);
    expect(promtoolCheck(answer.text)).toEqual({ status: 0, output: '' });
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

    // The metrics port was bound once, by the primary: no worker logs a metrics server.
    const metricsLines = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"metrics listening"'));
    expect(metricsLines).toHaveLength(1);
    expect(metricsLines[0]).toContain(`"pid":${service.child.pid}`);
  });
});
