import { request } from 'node:http';
import { Registry } from 'prom-client';
import { ShortlinkMetrics } from '../../core';
import { followOutcomeOf } from '../../core/metrics/shortlink-metrics';
import type { Service } from '../../gateway-http/service';
import { freePort } from '../support/free-port';
import { startInProcessService } from '../support/in-process-service';
import { MetricsSnapshot, scrape } from '../support/exposition';

const FOLLOWS = 'shortlink_follows_total';
const CHANGES = 'shortlink_link_state_changes_total';

/** `method` /`path` with a Host header (a link domain): the status, without following. */
function followStatus(
  port: number,
  host: string,
  path: string,
  options: { method?: string; accept?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (options.accept) headers.accept = options.accept;
    request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe('follows by outcome and link state changes, on the whole service', () => {
  let service: Service;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    service = await startInProcessService({
      METRICS_PORT: String(metricsPort),
      FOLLOW_MISSES_PER_MINUTE: '2',
    });
  });
  afterAll(() => service.shutdown());

  it('counts each REST follow by its outcome and each state change the core makes', async () => {
    const demo = service.demo!;
    const port = service.http.port;
    const caller = service.runtime.core.createCaller({ authorization: `Bearer ${demo.token}` });
    const key = { organization_key: demo.organizationKey };
    const link = await caller.links.create({
      ...key,
      url_group_id: demo.urlGroupId,
      url: 'https://example.com/governed',
      alias: 'governed',
    });
    const follow = (options?: { method?: string; accept?: string }) =>
      followStatus(port, demo.domain, `/${link.alias}`, options);
    const registry = service.runtime.metrics!.registry;
    const before = await MetricsSnapshot.of(registry);

    expect(await follow()).toBe(301); // now in this process's link cache
    await caller.links.disable({ ...key, alias: link.alias, reason: 'reported' });
    await caller.links.disable({ ...key, alias: link.alias, reason: 'again' }); // no change
    // This process's own change drops the cached link at once.
    expect(await follow({ accept: 'application/json' })).toBe(410);
    expect(await follow()).toBe(410);
    expect(await follow({ method: 'HEAD' })).toBe(410);
    await caller.links.enable({ ...key, alias: link.alias });
    await caller.links.enable({ ...key, alias: link.alias }); // no change
    expect(await follow({ method: 'HEAD' })).toBe(301);
    // Two unknown aliases are this address's budget; the third is refused by the limiter, the
    // fourth by the refusal it remembers; the link, cached, still answers.
    const misses = ['/noSuchAlias', '/noSuchAlias', '/other', '/another'];
    const missed = [];
    for (const path of misses) missed.push(await followStatus(port, demo.domain, path));
    expect(missed).toEqual([404, 404, 429, 429]);
    expect(await follow()).toBe(301);

    const after = await MetricsSnapshot.of(registry);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    const outcomes = ['redirect', 'not_found', 'gone', 'rate_limited', 'error'];
    const requests = (code: string) =>
      delta('shortlink_requests_total', { gateway: 'rest', operation: 'follow', code });
    expect({
      rest: outcomes.map((outcome) => delta(FOLLOWS, { gateway: 'rest', outcome })),
      grpc: outcomes.map((outcome) => delta(FOLLOWS, { gateway: 'grpc', outcome })),
      gone: requests('28'),
      limited: requests('19'),
      // The limiter's own refusals: the third miss; the fourth was refused without asking it.
      refusals: delta('shortlink_rate_limit_refusals_total', { limiter: 'follow_misses' }),
    }).toEqual({ rest: [3, 2, 3, 2, 0], grpc: [0, 0, 0, 0, 0], gone: 3, limited: 2, refusals: 1 });
    expect({
      disabled: delta(CHANGES, { change: 'disabled' }),
      enabled: delta(CHANGES, { change: 'enabled' }),
    }).toEqual({ disabled: 1, enabled: 1 });

    // Every series is there from the start, at 0 until its first event, and nothing the callers
    // sent shows up in a label.
    const text = (await scrape(metricsPort)).text;
    expect(text).toContain(`# HELP ${FOLLOWS} `);
    expect(text).toContain(`# TYPE ${FOLLOWS} counter`);
    expect(text).toContain(`# HELP ${CHANGES} `);
    expect(text).toContain(`${FOLLOWS}{gateway="grpc",outcome="gone"} 0`);
    expect(text).toContain(`${FOLLOWS}{gateway="grpc",outcome="rate_limited"} 0`);
    // By change alone: no label names a source this process never sees (the admin CLI's).
    expect(text.split('\n').filter((line) => line.startsWith(`${CHANGES}{`))).toEqual([
      expect.stringMatching(new RegExp(`^${CHANGES}\\{change="disabled"\\} \\d+$`)),
      expect.stringMatching(new RegExp(`^${CHANGES}\\{change="enabled"\\} \\d+$`)),
    ]);
    for (const secret of [demo.token, demo.organizationKey, link.alias, 'example.com']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('ShortlinkMetrics: follows and link state changes', () => {
  const fresh = () => new ShortlinkMetrics({ registry: new Registry(), processMetrics: false });

  it('reads the outcome from the contract code: 0 redirect, 24 not_found, 28 and 30 gone, 19 rate_limited, else error', () => {
    expect([0, 24, 28, 30, 19, 23, 1, 20].map(followOutcomeOf)).toEqual([
      'redirect',
      'not_found',
      'gone',
      'gone',
      'rate_limited',
      'error',
      'error',
      'error',
    ]);
  });

  it('counts the follows a gateway reports (gRPC ResolveShortLink calls the same method)', async () => {
    const metrics = fresh();
    const grpc = metrics.follows('grpc');
    for (const code of [0, 0, 24, 28, 23]) grpc(code);
    metrics.follows('rest')(28);
    const snapshot = await MetricsSnapshot.of(metrics.registry);
    const read = (gateway: string) =>
      ['redirect', 'not_found', 'gone', 'error'].map((outcome) =>
        snapshot.value(FOLLOWS, { gateway, outcome }),
      );
    expect({ grpc: read('grpc'), rest: read('rest') }).toEqual({
      grpc: [2, 1, 1, 1],
      rest: [0, 0, 1, 0],
    });
  });

  it('counts every change the core reports through linkEvents', async () => {
    const metrics = fresh();
    const events = metrics.linkEvents();
    events.stateChanged('disabled');
    events.stateChanged('disabled');
    events.stateChanged('enabled');
    const snapshot = await MetricsSnapshot.of(metrics.registry);
    expect({
      disabled: snapshot.value(CHANGES, { change: 'disabled' }),
      enabled: snapshot.value(CHANGES, { change: 'enabled' }),
    }).toEqual({ disabled: 2, enabled: 1 });
  });
});
