import pino from 'pino';
import {
  allowAllUrlGuard,
  createMemoryRateLimiter,
  ErrorCode,
  systemClock,
  type ShortLink,
} from '../../core';
import { createTestCore } from '../support/core-fixture';
import { expectEnvelope } from '../support/envelope';
import { sendRaw, type RawAnswer } from '../support/raw-http';
import { startTestService, UNLIMITED, type TestService } from '../support/in-process-service';

/** Many requests at once through the real server: the store and the limiter decide exactly. */
describe('concurrent requests', () => {
  function createMany(t: TestService, bodies: Array<Record<string, unknown>>) {
    return Promise.all(
      bodies.map((body) =>
        sendRaw({
          port: t.port,
          headers: { 'Content-Type': 'application/json', Authorization: t.authorization },
          body: JSON.stringify(body),
        }),
      ),
    );
  }
  const codeOf = (answer: RawAnswer) => expectEnvelope(answer).code;

  describe('with budgets out of the way', () => {
    let t: TestService;
    beforeAll(async () => {
      t = await startTestService(UNLIMITED);
    });
    afterAll(() => t.service.shutdown());

    it('lets exactly one of 100 concurrent creates of one alias win', async () => {
      const before = t.store.links.size;
      const answers = await createMany(
        t,
        Array.from({ length: 100 }, (_, i) =>
          t.validBody({ alias: 'contested', url: `https://example.com/${i}` }),
        ),
      );
      const codes = answers.map(codeOf);
      expect(codes.filter((code) => code === 0)).toHaveLength(1);
      expect(codes.filter((code) => code === ErrorCode.ALIAS_TAKEN)).toHaveLength(99);
      expect(t.store.links.size - before).toBe(1);
      const winner = answers[codes.indexOf(0)]!;
      const won = (JSON.parse(winner.text) as { data: ShortLink }).data;
      const stored = await t.store.links.findByAlias(t.demo.domain, 'contested');
      expect(stored).toMatchObject({ id: won.id, url: won.url, alias: 'contested' });
    });

    it('gives 200 concurrent generated creates 200 distinct aliases and ids', async () => {
      const before = t.store.links.size;
      const answers = await createMany(
        t,
        Array.from({ length: 200 }, (_, i) => t.validBody({ url: `https://example.com/g/${i}` })),
      );
      const links = answers.map((answer) => {
        expect(codeOf(answer)).toBe(0);
        return (JSON.parse(answer.text) as { data: ShortLink }).data;
      });
      expect(new Set(links.map((link) => link.alias)).size).toBe(200);
      expect(new Set(links.map((link) => link.id)).size).toBe(200);
      expect(t.store.links.size - before).toBe(200);
      for (const link of links) {
        const stored = await t.store.links.findByAlias(link.domain, link.alias);
        expect(stored?.url).toBe(link.url);
      }
    });
  });

  it.each([
    ['the in-process limiter', {}],
    // The demo token is new on every start, so its Redis key is too: no flushing needed.
    ['the Redis limiter', { REDIS_URL: 'redis://127.0.0.1:6379' }],
  ])(
    'serves exactly the budget of one token when 100 requests race for 60 (%s)',
    async (_, env) => {
      const t = await startTestService({ RATE_LIMIT_PER_MINUTE: '60', ...env });
      try {
        const before = t.store.links.size;
        const answers = await createMany(
          t,
          Array.from({ length: 100 }, (_, i) => t.validBody({ url: `https://example.com/r/${i}` })),
        );
        const codes = answers.map(codeOf);
        expect(codes.filter((code) => code === 0)).toHaveLength(60);
        expect(codes.filter((code) => code === ErrorCode.RATE_LIMITED)).toHaveLength(40);
        expect(t.store.links.size - before).toBe(60);
        for (const answer of answers.filter((a) => a.status === 429)) {
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
          expect(answer.headers['x-ratelimit-remaining']).toBe('0');
        }
      } finally {
        await t.service.shutdown();
      }
    },
  );

  it('retries colliding generated aliases under concurrency without overwriting any link', async () => {
    // A generator with only 64 aliases: 50 concurrent creates collide constantly.
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 1_000, keyPrefix: 't' }),
      authFailureLimiter: createMemoryRateLimiter({ limit: 1_000, keyPrefix: 'a' }),
      urlGuard: allowAllUrlGuard,
      clock: systemClock,
      aliasGenerator: { generate: () => `a${Math.floor(Math.random() * 64)}` },
      reservedAliases: new Set(),
      maxAliasAttempts: 1_000,
      logger: pino({ level: 'silent' }),
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        f.caller().links.create(f.body({ url: `https://example.com/c/${i}` }) as never),
      ),
    );
    const links = outcomes.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
    expect(new Set(links.map((link) => link.alias)).size).toBe(50);
    expect(f.linkCount()).toBe(50);
    for (const link of links) {
      expect((await f.store.links.findByAlias(f.domain, link.alias))?.url).toBe(link.url);
    }
  });
});
