import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ShortlinkError } from '../../core';
import { createReputationRule, type FailMode } from '../../core/url-guard/reputation-rule';
import {
  SafeBrowsingClient,
  type SafeBrowsingOptions,
} from '../../core/url-guard/safe-browsing/safe-browsing-client';
import { startFakeSafeBrowsing, type FakeSafeBrowsing } from './fake-safe-browsing';
import { eventually } from '../support/eventually';
import { organization, recordingLogger } from './fixtures';

const KEY = 'sb-test-key-5f1c';
const UNAVAILABLE_CLOSED = {
  blocked: true,
  reason: 'the reputation service could not check it; please try again later',
  undecided: true,
};

describe('reputation lookup (Safe Browsing v4 Lookup API)', () => {
  let fake: FakeSafeBrowsing;
  const clients: SafeBrowsingClient[] = [];

  beforeEach(async () => {
    fake = await startFakeSafeBrowsing();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await fake.close();
  });

  const setup = (options: Partial<SafeBrowsingOptions> & { failMode?: FailMode } = {}) => {
    const logger = recordingLogger();
    let now = 1_700_000_000_000;
    const client = new SafeBrowsingClient({
      baseUrl: `${fake.url}/`,
      apiKey: KEY,
      threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING'],
      perMinute: 100,
      maxConcurrent: 4,
      timeoutMs: 5_000,
      maxWaitMs: 5_000,
      cleanCacheMs: 60_000,
      cacheEntries: 100,
      logger,
      now: () => now,
      ...options,
    });
    clients.push(client);
    const rule = createReputationRule(client, options.failMode ?? 'open');
    const check = (url: string) => rule.check(new URL(url), { organization });
    return { client, check, logger, advance: (ms: number) => (now += ms) };
  };

  it('refuses a reported URL, naming the threat type, with a request in the API format', async () => {
    fake.threats.set('https://evil.example/login', { threatType: 'SOCIAL_ENGINEERING' });
    const { check } = setup();
    expect(await check('https://evil.example/login')).toEqual({
      blocked: true,
      reason: 'reported by the reputation service as SOCIAL_ENGINEERING',
    });
    expect(fake.requests).toEqual([
      {
        method: 'POST',
        path: '/v4/threatMatches:find',
        key: KEY,
        body: {
          client: { clientId: 'shortlink', clientVersion: expect.any(String) },
          threatInfo: {
            threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING'],
            platformTypes: ['ANY_PLATFORM'],
            threatEntryTypes: ['URL'],
            threatEntries: [{ url: 'https://evil.example/login' }],
          },
        },
      },
    ]);
  });

  it('lets a URL with no match through', async () => {
    const { check } = setup();
    expect(await check('https://fine.example/')).toEqual({ blocked: false });
    expect(fake.requests).toHaveLength(1);
  });

  it('caches a match for its cacheDuration and a clean answer for the configured time', async () => {
    fake.threats.set('https://evil.example/', { threatType: 'MALWARE', cacheDuration: '120.5s' });
    const { check, advance } = setup({ cleanCacheMs: 30_000 });
    expect((await check('https://evil.example/')).blocked).toBe(true);
    expect((await check('https://fine.example/')).blocked).toBe(false);
    expect((await check('https://evil.example/')).blocked).toBe(true);
    expect((await check('https://fine.example/')).blocked).toBe(false);
    expect(fake.requests).toHaveLength(2); // the second checks were answered from the cache

    advance(30_001); // the clean answer expired, the match (120.5 s) has not
    await check('https://evil.example/');
    await check('https://fine.example/');
    expect(fake.requests).toHaveLength(3);

    advance(90_500);
    await check('https://evil.example/');
    expect(fake.requests).toHaveLength(4);
  });

  it('shares one call between concurrent checks of the same URL', async () => {
    const { check } = setup();
    const release = fake.hold();
    const pending = Promise.all([check('https://a.example/'), check('https://a.example/')]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await pending).toEqual([{ blocked: false }, { blocked: false }]);
    expect(fake.requests).toHaveLength(1);
  });

  describe.each([
    ['open', { blocked: false }],
    ['closed', UNAVAILABLE_CLOSED],
  ] as const)('SAFE_BROWSING_FAIL=%s', (failMode, expected) => {
    it('decides a timed-out call by the fail mode, and does not cache it', async () => {
      fake.mode = { kind: 'hang' };
      const { check, logger } = setup({ failMode, timeoutMs: 200 });
      expect(await check('https://slow.example/')).toEqual(expected);
      expect(logger.entries).toContainEqual(
        expect.objectContaining({ level: 'warn', object: { why: 'timeout' } }),
      );
      fake.mode = { kind: 'answer' };
      expect(await check('https://slow.example/')).toEqual({ blocked: false });
      expect(fake.requests).toHaveLength(2);
    });

    it('decides a 5xx answer by the fail mode', async () => {
      fake.mode = { kind: 'status', status: 503 };
      const { check } = setup({ failMode });
      expect(await check('https://x.example/')).toEqual(expected);
    });

    it('decides an unreachable service by the fail mode', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const { check } = setup({ failMode, baseUrl: `http://127.0.0.1:${port}` });
      expect(await check('https://x.example/')).toEqual(expected);
    });

    it('answers a check over the per-minute quota with code 23 and a retry time, whatever the fail mode', async () => {
      const { check } = setup({ failMode, perMinute: 1 });
      expect(await check('https://first.example/')).toEqual({ blocked: false });
      const refusal = await check('https://second.example/').then(
        () => null,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(ShortlinkError);
      expect(refusal).toMatchObject({
        reason: 'BACKEND_UNAVAILABLE',
        retryAfterSeconds: expect.any(Number),
      });
      expect((refusal as ShortlinkError).retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(fake.requests).toHaveLength(1);
      // the quota did not stop cached answers
      expect(await check('https://first.example/')).toEqual({ blocked: false });
    });

    it('decides a check that waited too long for a concurrency slot by the fail mode', async () => {
      const { check } = setup({ failMode, maxConcurrent: 1, maxWaitMs: 100 });
      const release = fake.hold();
      const first = check('https://first.example/');
      // The first call holds the only slot (the server has it) before the second one queues.
      await eventually(() => fake.requests.length === 1, 'the first call to reach the service');
      expect(await check('https://second.example/')).toEqual(expected);
      release();
      expect(await first).toEqual({ blocked: false });
      // The abandoned job runs before this one (first in, first out) and must not call.
      expect(await check('https://third.example/')).toEqual({ blocked: false });
      expect(
        fake.requests.map(
          (r) => (r.body as { threatInfo: { threatEntries: unknown } }).threatInfo.threatEntries,
        ),
      ).toEqual([[{ url: 'https://first.example/' }], [{ url: 'https://third.example/' }]]);
    });
  });

  it('does not follow a redirect (the key stays with the configured URL)', async () => {
    const elsewhere = await startFakeSafeBrowsing();
    try {
      fake.mode = {
        kind: 'status',
        status: 307,
        location: `${elsewhere.url}/v4/threatMatches:find`,
      };
      const { check } = setup({ failMode: 'closed' });
      expect(await check('https://x.example/')).toEqual(UNAVAILABLE_CLOSED);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('never logs the key or echoes it in a reason', async () => {
    fake.mode = { kind: 'status', status: 500 };
    const { check, logger } = setup({ failMode: 'closed' });
    const verdict = await check('https://x.example/');
    fake.mode = { kind: 'hang' };
    const slow = setup({ failMode: 'closed', timeoutMs: 100 });
    await slow.check('https://y.example/');
    const logged = JSON.stringify([...logger.entries, ...slow.logger.entries]);
    expect(logged).toContain('status 500');
    expect(logged).not.toContain(KEY);
    expect(JSON.stringify(verdict)).not.toContain(KEY);
  });

  it('does not repeat a threat type that is not a plain enum name', async () => {
    fake.threats.set('https://evil.example/', { threatType: '<b>click here</b>' });
    const { check } = setup();
    expect(await check('https://evil.example/')).toEqual({
      blocked: true,
      reason: 'reported by the reputation service as a threat',
    });
  });

  it('treats an answer that is not in the API format as unavailable', async () => {
    const bad = createServer((_req, res) => res.end('{"matches": "nope"}'));
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = bad.address() as AddressInfo;
      const { check } = setup({ failMode: 'closed', baseUrl: `http://127.0.0.1:${port}` });
      expect(await check('https://x.example/')).toEqual(UNAVAILABLE_CLOSED);
    } finally {
      bad.closeAllConnections();
      await new Promise((resolve) => bad.close(resolve));
    }
  });
});
