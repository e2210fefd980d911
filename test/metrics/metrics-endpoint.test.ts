import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, type CachedStore } from '../../core';
import { loadConfig } from '../../core/runtime';
import type { Service } from '../../gateway-http/service';
import { type GrpcClientFixture } from '../support/grpc-fixture';
import { bearer } from '../support/grpc-metadata';
import { freePort } from '../support/free-port';
import { conformingFetch } from '../support/openapi-conformance';
import { startInProcessService, startServiceWithGrpcClient } from '../support/in-process-service';
import { MetricsSnapshot, promtoolCheck, scrape } from '../support/exposition';
import { itNeeding } from '../support/system-tools';

const ALIAS = 'metricsProbeAlias';
const RATE_LIMIT = 6;

/** GET `path` with a Host header (a link domain), without following the redirect. */
function getWithHost(port: number, host: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe('GET /metrics on METRICS_PORT (the whole service, as npm start runs it)', () => {
  let service: Service;
  let grpc: GrpcClientFixture;
  let stop: () => Promise<void>;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    ({ service, grpc, stop } = await startServiceWithGrpcClient({
      METRICS_PORT: String(metricsPort),
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    }));
  });
  afterAll(() => stop());

  itNeeding('promtool')('serves an exposition that promtool parses and lints clean', async () => {
    const answer = await scrape(metricsPort);
    expect(promtoolCheck(answer.text)).toEqual({ status: 0, output: '' });
  });

  it('serves the Prometheus text format with every metric of the product', async () => {
    const answer = await scrape(metricsPort);
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const snapshot = await MetricsSnapshot.of(service.runtime.metrics!.registry);
    for (const name of [
      'shortlink_requests_total',
      'shortlink_request_duration_seconds',
      'shortlink_links_created_total',
      'shortlink_idempotent_replays_total',
      'shortlink_rate_limit_refusals_total',
      'shortlink_url_guard_refusals_total',
      'shortlink_store_call_duration_seconds',
      'shortlink_rate_limiter_call_duration_seconds',
      'shortlink_safe_browsing_lookups_total',
      'shortlink_follows_total',
      'shortlink_link_state_changes_total',
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(snapshot.help(name)).toMatch(/\w/);
      expect(answer.text).toContain(`# HELP ${name} `);
    }
  });

  it('listens on METRICS_PORT (9464 unless set) at METRICS_HOST (127.0.0.1 unless set)', () => {
    expect(loadConfig({}).METRICS_PORT).toBe(9464);
    const address = service.metrics!.server.address() as AddressInfo;
    expect(address).toMatchObject({ address: '127.0.0.1', port: metricsPort });
  });

  it('answers only GET and HEAD /metrics', async () => {
    const base = `http://127.0.0.1:${metricsPort}`;
    expect((await fetch(`${base}/other`)).status).toBe(404);
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('moves each counter by exactly what a scripted mix of REST and gRPC requests adds', async () => {
    const demo = service.demo!;
    const httpPort = service.http.port;
    const base = `http://127.0.0.1:${httpPort}`;
    const restCreate = (body: Record<string, unknown>, token: string | null = demo.token) =>
      conformingFetch(`${base}/api/create`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          organization_key: demo.organizationKey,
          url_group_id: demo.urlGroupId,
          url: 'https://example.com/metrics-mix',
          ...body,
        }),
      }).then((answer) => (JSON.parse(answer.text) as { code: number }).code);
    const grpcCreate = (alias: string) =>
      grpc
        .create(
          {
            organizationKey: demo.organizationKey,
            urlGroupId: demo.urlGroupId,
            url: 'https://example.com/metrics-grpc',
            alias,
          },
          demo.token,
        )
        .then((outcome) => outcome.error?.code ?? 0);

    const registry = service.runtime.metrics!.registry;
    const before = await MetricsSnapshot.of(registry);

    // Six requests pass the token check: the limit (6) is used up exactly.
    expect(await restCreate({ alias: ALIAS })).toBe(0);
    expect(await restCreate({})).toBe(0);
    expect(await restCreate({ url: 'not a url' })).toBe(7);
    expect(await restCreate({ url: 'http://paypal.com@evil.example/' })).toBe(18);
    expect(await restCreate({}, null)).toBe(3);
    expect((await conformingFetch(`${base}/api/create`)).status).toBe(405);
    expect(await getWithHost(httpPort, demo.domain, `/${ALIAS}`)).toBe(301);
    expect(await getWithHost(httpPort, demo.domain, '/noSuchAliasHere')).toBe(404);
    expect(await grpcCreate(`${ALIAS}Grpc`)).toBe(0);
    expect(await grpcCreate(ALIAS)).not.toBe(0); // ALREADY_EXISTS, code 15
    const resolved = await grpc.resolve({ domain: demo.domain, alias: ALIAS });
    expect(resolved.error).toBeUndefined();
    const unknown = await grpc.resolve({ domain: demo.domain, alias: 'noSuchAliasHere' });
    expect(unknown.error).toBeDefined();
    expect(await restCreate({})).toBe(19); // the seventh within the minute

    const after = await MetricsSnapshot.of(registry);
    const scraped = (await scrape(metricsPort)).text;
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    const countDelta = (name: string, labels: Record<string, string>) =>
      after.count(name, labels) - before.count(name, labels);

    const requests = (gateway: string, operation: string, code: number) =>
      delta('shortlink_requests_total', { gateway, operation, code: String(code) });
    expect({
      restCreate: [0, 2, 3, 7, 18, 19].map((code) => requests('rest', 'create', code)),
      restFollow: [0, 24].map((code) => requests('rest', 'follow', code)),
      grpcCreate: [0, 15].map((code) => requests('grpc', 'create', code)),
      grpcResolve: [0, 24].map((code) => requests('grpc', 'resolve', code)),
    }).toEqual({
      restCreate: [2, 1, 1, 1, 1, 1],
      restFollow: [1, 1],
      grpcCreate: [1, 1],
      grpcResolve: [1, 1],
    });
    const durations = (gateway: string, operation: string) =>
      countDelta('shortlink_request_duration_seconds', { gateway, operation });
    expect([
      durations('rest', 'create'),
      durations('rest', 'follow'),
      durations('grpc', 'create'),
      durations('grpc', 'resolve'),
    ]).toEqual([7, 2, 2, 2]);
    expect([
      delta('shortlink_links_created_total', { gateway: 'rest' }),
      delta('shortlink_links_created_total', { gateway: 'grpc' }),
    ]).toEqual([2, 1]);
    expect([
      delta('shortlink_rate_limit_refusals_total', { limiter: 'token' }),
      delta('shortlink_rate_limit_refusals_total', { limiter: 'auth_failures' }),
    ]).toEqual([1, 0]);
    expect(delta('shortlink_url_guard_refusals_total', { rule: 'credentials' })).toBe(1);
    // Store calls: four aliases were tried (three stored, one taken). Of the four lookups only
    // the two unknown aliases reach the store: the found links were answered from the link cache,
    // and a cache hit is not a store call. The ids come with the inserts: no id call of its own.
    const storeCalls = (operation: string) =>
      countDelta('shortlink_store_call_duration_seconds', { operation });
    expect([storeCalls('links.insert'), storeCalls('links.findByAlias')]).toEqual([4, 2]);
    expect(scraped).toContain(
      'shortlink_store_call_duration_seconds_count{operation="links.insert"}',
    );
    expect(scraped).not.toContain('operation="ids.next"');
    // Every request with a valid token counts against it (7). Only the one failed token check
    // counts against its address: a valid token never calls the failure limiter.
    const limiterCalls = (limiter: string, operation: string) =>
      countDelta('shortlink_rate_limiter_call_duration_seconds', { limiter, operation });
    expect([
      limiterCalls('token', 'consume'),
      limiterCalls('auth_failures', 'consume'),
      limiterCalls('auth_failures', 'peek'),
    ]).toEqual([7, 1, 0]);

    // The scrape shows what the registry holds.
    expect(scraped).toContain(
      `shortlink_links_created_total{gateway="rest"} ${after.value('shortlink_links_created_total', { gateway: 'rest' })}`,
    );

    // Bounded labels: nothing the callers sent shows up in the exposition.
    for (const secret of [demo.token, demo.organizationKey, ALIAS, 'example.com', demo.domain]) {
      expect(scraped).not.toContain(secret);
    }
  });
});

describe('idempotent replays', () => {
  let service: Service;
  let grpc: GrpcClientFixture;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ service, grpc, stop } = await startServiceWithGrpcClient({
      METRICS_PORT: String(await freePort()),
    }));
  });
  afterAll(() => stop());

  it('are counted on the gateway that answered them, and are no links created', async () => {
    const demo = service.demo!;
    const restCreate = async (key: string, url: string) => {
      const answer = await conformingFetch(`http://127.0.0.1:${service.http.port}/api/create`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${demo.token}`,
          'idempotency-key': key,
        },
        body: JSON.stringify({
          organization_key: demo.organizationKey,
          url_group_id: demo.urlGroupId,
          url,
        }),
      });
      const { code } = JSON.parse(answer.text) as { code: number };
      return { code, replayed: answer.headers.get('idempotent-replayed') };
    };
    const grpcCreate = async (key: string) => {
      const metadata = bearer(demo.token);
      metadata.set('idempotency-key', key);
      const outcome = await grpc.create(
        {
          organizationKey: demo.organizationKey,
          urlGroupId: demo.urlGroupId,
          url: 'https://example.com/replayed-grpc',
        },
        metadata,
      );
      return outcome.error?.code ?? 0;
    };
    const registry = service.runtime.metrics!.registry;
    const before = await MetricsSnapshot.of(registry);

    // REST: one create and two replays of it; one refused URL (7, recorded) and its replay.
    expect(await restCreate('rest-key', 'https://example.com/replayed-rest')).toEqual({
      code: 0,
      replayed: null,
    });
    for (let i = 0; i < 2; i++) {
      expect(await restCreate('rest-key', 'https://example.com/replayed-rest')).toEqual({
        code: 0,
        replayed: 'true',
      });
    }
    expect(await restCreate('rest-bad', 'not a url')).toEqual({
      code: ErrorCode.URL_INVALID,
      replayed: null,
    });
    expect(await restCreate('rest-bad', 'not a url')).toEqual({
      code: ErrorCode.URL_INVALID,
      replayed: 'true',
    });
    // A key reused for another request is refused (25), not replayed.
    expect((await restCreate('rest-key', 'https://example.com/other')).code).toBe(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    );
    // gRPC: one create and one replay.
    expect(await grpcCreate('grpc-key')).toBe(0);
    expect(await grpcCreate('grpc-key')).toBe(0);

    const after = await MetricsSnapshot.of(registry);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    expect({
      replays: ['rest', 'grpc'].map((gateway) =>
        delta('shortlink_idempotent_replays_total', { gateway }),
      ),
      created: ['rest', 'grpc'].map((gateway) =>
        delta('shortlink_links_created_total', { gateway }),
      ),
      restCreate: [0, 7, 25].map((code) =>
        delta('shortlink_requests_total', {
          gateway: 'rest',
          operation: 'create',
          code: String(code),
        }),
      ),
    }).toEqual({ replays: [3, 1], created: [1, 1], restCreate: [3, 2, 1] });
  });
});

describe('METRICS_PORT=0', () => {
  it('turns metrics off: no port, and the ports are not decorated', async () => {
    const service = await startInProcessService();
    try {
      expect(service.metrics).toBeUndefined();
      expect(service.runtime.metrics).toBeUndefined();
      expect(service.runtime.core.deps.store.kind).toBe('memory');
      // The memory store itself, behind the caches only: no timing decorator in between.
      const store = service.runtime.core.deps.store;
      const backend = 'backend' in store ? (store as CachedStore).backend : store;
      expect(typeof (backend as { links: { size?: number } }).links.size).toBe('number');
    } finally {
      await service.shutdown();
    }
  });
});
