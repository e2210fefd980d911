import { join } from 'node:path';
import { Agent } from 'node:http';
import { createLmdbStore } from '../../core/adapters/lmdb';
import type { ChildService } from '../support/child-service';
import { UNLIMITED } from '../support/in-process-service';
import { sendRaw } from '../support/raw-http';
import { RedisProcess } from '../support/redis-process';
import { logRecords, workerPids } from '../support/service-log';
import { workersServices } from '../support/workers-services';

/**
 * max_visits across processes: two services as `npm start` runs them, each with WORKERS=2 (four
 * workers), on one LMDB DATA_DIR and one Redis of their own (two services may share a DATA_DIR
 * only when their rate limits are shared). Racing follows spread over every worker are counted
 * by the store's atomic write, so exactly max_visits of them redirect.
 */
jest.setTimeout(120_000);

const FOLLOWS = 200;
const LIMIT = 50;
const services = workersServices('visit-limit-processes-');
let redis: RedisProcess;
let dataDir: string;
let first: ChildService;
let second: ChildService;

beforeAll(async () => {
  redis = await RedisProcess.start();
  dataDir = join(await services.dataDir(), 'data');
  const env = { ...UNLIMITED, DATA_DIR: dataDir, REDIS_URL: redis.url };
  // One after the other: the first provisions the demo into the empty store, the second finds it.
  first = await services.start(env);
  second = await services.start(env);
});

afterAll(async () => {
  await redis?.stop();
});

describe(`${FOLLOWS} racing follows of a link with max_visits ${LIMIT} over two WORKERS=2 services on one DATA_DIR`, () => {
  it(`redirect exactly ${LIMIT} times; the others are 410, code 30`, async () => {
    const linkDomain = /link domain:\s+(\S+)/.exec(first.output())?.[1];
    expect(linkDomain).toMatch(/^localhost:\d+$/);
    const created = await sendRaw({
      port: first.httpPort,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${first.token}` },
      body: JSON.stringify({
        organization_key: first.organizationKey,
        url_group_id: first.urlGroupId,
        url: 'https://example.com/limited',
        alias: 'fifty',
        redirect_type: 307,
        max_visits: LIMIT,
      }),
    });
    expect(created.status).toBe(200);
    const { data } = JSON.parse(created.text) as { data: { id: number } };

    // Each follow on a connection of its own, so the kernel spreads them over both workers of
    // each service.
    const follow = (service: ChildService) =>
      sendRaw({
        port: service.httpPort,
        method: 'GET',
        path: '/fifty',
        headers: { Host: linkDomain ?? '', Accept: 'application/json' },
        agent: new Agent({ keepAlive: false }),
      });
    const answers = await Promise.all(
      Array.from({ length: FOLLOWS }, (_, i) => follow(i % 2 === 0 ? first : second)),
    );

    const redirects = answers.filter((answer) => answer.status === 307);
    const expired = answers.filter((answer) => answer.status === 410);
    expect({ redirects: redirects.length, expired: expired.length }).toEqual({
      redirects: LIMIT,
      expired: FOLLOWS - LIMIT,
    });
    for (const answer of redirects) {
      expect(answer.headers.location).toBe('https://example.com/limited');
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    for (const answer of expired) {
      expect(answer.text).toBe('{"data":null,"code":30,"errors":["This short link has expired."]}');
      expect(answer.headers.location).toBeUndefined();
    }
    // The follows reached workers of both services (each request's log line names its worker).
    for (const service of [first, second]) {
      const followers = logRecords(service.output())
        .filter((record) => (record.req as { path?: string } | undefined)?.path === '/fifty')
        .map((record) => record.pid);
      expect(followers.length).toBeGreaterThan(0);
      expect(workerPids(service)).toEqual(expect.arrayContaining([...new Set(followers)]));
    }
    // The store holds the count.
    const store = await createLmdbStore({ dataDir });
    try {
      expect((await store.links.findById(data.id))?.visits).toBe(LIMIT);
    } finally {
      await store.close();
    }
  });
});
