import {
  BackendUnavailableError,
  createCore,
  createMemoryRateLimiter,
  hashSecret,
  ShortlinkError,
  type ResponseInfo,
} from '../../core';
import { createTestCore, scriptedAliases } from '../support/core-fixture';
import { failingStore, failureOf } from '../support/failures';

describe('links.create: ids', () => {
  it('gives increasing integer ids starting at 1, across organizations', async () => {
    const f = await createTestCore();
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const key = i % 2 === 0 ? f.organizationKey : f.otherOrganizationKey;
      ids.push((await f.caller().links.create(f.body({ organization_key: key }) as never)).id);
    }
    expect(ids).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps ids increasing after failed requests', async () => {
    const f = await createTestCore();
    const first = await f.caller().links.create(f.body({ alias: 'one' }) as never);
    await failureOf(f.caller().links.create(f.body({ alias: 'one' }) as never));
    await failureOf(f.caller().links.create(f.body({ url: 'nope' }) as never));
    const second = await f.caller().links.create(f.body() as never);
    expect(first.id).toBe(1);
    expect(second.id).toBeGreaterThan(first.id);
    expect(Number.isInteger(second.id)).toBe(true);
  });
});

describe('links.create: generated aliases', () => {
  it('retries a collision and never overwrites the existing link', async () => {
    const generator = scriptedAliases(['taken01', 'fresh01'], () => 'unused0');
    const f = await createTestCore({ aliasGenerator: generator });
    await f
      .caller()
      .links.create(f.body({ alias: 'taken01', url: 'https://first.example/' }) as never);
    const link = await f.caller().links.create(f.body({ url: 'https://second.example/' }) as never);
    expect(link.alias).toBe('fresh01');
    expect(generator.calls).toBe(2);
    expect((await f.store.links.findByAlias(f.domain, 'taken01'))?.url).toBe(
      'https://first.example/',
    );
    expect((await f.store.links.findByAlias(f.domain, 'fresh01'))?.url).toBe(
      'https://second.example/',
    );
  });

  it('skips a generated alias that is reserved', async () => {
    const generator = scriptedAliases(['API', 'Metrics', 'okalias'], () => 'unused0');
    const f = await createTestCore({ aliasGenerator: generator });
    expect((await f.caller().links.create(f.body() as never)).alias).toBe('okalias');
  });

  it('gives up with code 1 after the bounded number of attempts, storing nothing more', async () => {
    const generator = scriptedAliases([], () => 'always1');
    const f = await createTestCore({ aliasGenerator: generator, maxAliasAttempts: 4 });
    await f.caller().links.create(f.body({ alias: 'always1' }) as never);
    const error = await failureOf(
      f.caller().links.create(f.body({ url: 'https://other.example/' }) as never),
    );
    expect(error.reason).toBe('INTERNAL');
    expect(error.reason).toBe('INTERNAL');
    expect(error.messages).toEqual(['Could not allocate an alias; please retry.']);
    expect(generator.calls).toBe(4);
    expect(f.linkCount()).toBe(1);
    expect((await f.store.links.findByAlias(f.domain, 'always1'))?.url).toBe(
      'https://example.com/some/long/path?q=1',
    );
  });

  it('retries ten times by default', async () => {
    const generator = scriptedAliases([], () => 'always1');
    const f = await createTestCore({ aliasGenerator: generator });
    await f.caller().links.create(f.body() as never);
    expect((await failureOf(f.caller().links.create(f.body() as never))).reason).toBe('INTERNAL');
    expect(generator.calls).toBe(11);
  });

  it('generates distinct aliases of 7 characters of [0-9A-Za-z] with nanoid', async () => {
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 1000, keyPrefix: 'gen' }),
    });
    const aliases = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const { alias } = await f.caller().links.create(f.body() as never);
      expect(alias).toMatch(/^[0-9A-Za-z]{7}$/);
      aliases.add(alias);
    }
    expect(aliases.size).toBe(200);
  });

  it.each<[string, unknown]>([
    ['an empty alias', ''],
    ['an alias with a "/"', 'a/b'],
    ['an alias with a space', 'a b'],
    ['an alias over 64 characters', 'x'.repeat(65)],
    ['a non-ASCII alias', 'ünï'],
    ['a number', 12345],
    ['undefined', undefined],
    ['a promise', Promise.resolve('abc1234')],
  ])('fails with code 1 and stores nothing when the generator returns %s', async (_, alias) => {
    const logged: unknown[] = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (object: unknown) => logged.push(object),
    };
    const f = await createTestCore({
      aliasGenerator: { generate: () => alias as string },
      logger,
    });
    const error = await failureOf(f.caller().links.create(f.body() as never));
    expect(error).toMatchObject({
      reason: 'INTERNAL',
      messages: ['An unexpected error occurred.'],
    });
    expect((error.cause as Error).message).toMatch(
      /^the alias generator returned .+, not an alias/,
    );
    expect(logged).toEqual([expect.objectContaining({ err: error.cause })]);
    expect(f.linkCount()).toBe(0);
  });
});

describe('links.create: a failed request stores nothing', () => {
  it.each([
    ['an unknown group', { url_group_id: '999' }],
    ['an invalid url', { url: 'ftp://x' }],
    ['an invalid alias', { alias: 'no way' }],
    ['an invalid redirect_type', { redirect_type: 300 }],
    ['a reserved alias', { alias: 'healthz' }],
  ])('with %s: no link, but the request counted against the rate limit', async (_label, fields) => {
    const f = await createTestCore();
    const before = f.linkCount();
    const response: ResponseInfo = {};
    await failureOf(f.caller({ response }).links.create(f.body(fields) as never));
    expect(f.linkCount()).toBe(before);
    expect(response.rateLimit).toMatchObject({ limit: 60, remaining: 59 });
  });

  it('with a taken alias: the existing link is unchanged', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'mine', redirect_type: 302 }) as never);
    const stored = await f.store.links.findByAlias(f.domain, 'mine');
    await failureOf(
      f.caller().links.create(f.body({ alias: 'mine', url: 'https://x.example/' }) as never),
    );
    expect(f.linkCount()).toBe(1);
    expect(await f.store.links.findByAlias(f.domain, 'mine')).toEqual(stored);
  });
});

describe('links.create: store and limiter failures', () => {
  it('turns an unexpected store error into code 1 without leaking it', async () => {
    const f = await createTestCore();
    const store = failingStore(f.store, () => new Error('E11000 secret internal detail'), {
      parts: ['links'],
    });
    const core = createCore({ ...f.core.deps, store });
    const error = await failureOf(
      core.createCaller({ authorization: `Bearer ${f.token}` }).links.create(f.body() as never),
    );
    expect(error).toBeInstanceOf(ShortlinkError);
    expect(error.reason).toBe('INTERNAL');
    expect(error.messages).toEqual(['An unexpected error occurred.']);
    expect(JSON.stringify(error.messages)).not.toContain('E11000');
    expect((error.cause as Error).message).toBe('E11000 secret internal detail');
  });

  it.each([['identities'], ['links']] as const)(
    'turns BackendUnavailableError from the %s part into code 23',
    async (part) => {
      const f = await createTestCore();
      const store = failingStore(f.store, () => new BackendUnavailableError('down'), {
        parts: [part],
      });
      const core = createCore({ ...f.core.deps, store });
      const error = await failureOf(
        core.createCaller({ authorization: `Bearer ${f.token}` }).links.create(f.body() as never),
      );
      expect(error.reason).toBe('BACKEND_UNAVAILABLE');
      expect(error.reason).toBe('BACKEND_UNAVAILABLE');
      expect(error.messages).toEqual(['The service is temporarily unavailable.']);
      expect(f.linkCount()).toBe(0);
    },
  );

  it('turns a failing rate-limit backend into code 23', async () => {
    const f = await createTestCore();
    const core = createCore({
      ...f.core.deps,
      rateLimiter: {
        limit: 60,
        windowSeconds: 60,
        consume: () => Promise.reject(new BackendUnavailableError('redis down')),
        peek: () => Promise.reject(new BackendUnavailableError('redis down')),
      },
    });
    const error = await failureOf(
      core.createCaller({ authorization: `Bearer ${f.token}` }).links.create(f.body() as never),
    );
    expect(error.reason).toBe('BACKEND_UNAVAILABLE');
  });

  it('turns a failing URL guard into code 1', async () => {
    const f = await createTestCore({
      urlGuard: { check: () => Promise.reject(new TypeError('guard bug')) },
    });
    expect((await failureOf(f.caller().links.create(f.body() as never))).reason).toBe('INTERNAL');
    expect(f.linkCount()).toBe(0);
  });

  it('reports readiness through the store ping', async () => {
    const f = await createTestCore();
    await expect(f.core.ready()).resolves.toBeUndefined();
    const down = createCore({
      store: failingStore(f.store, () => new BackendUnavailableError('down'), { ping: true }),
    });
    await expect(down.ready()).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('keys the per-token limit by hash even when the identity lookup is the only thing failing', async () => {
    const limiter = createMemoryRateLimiter({ limit: 5, keyPrefix: 'k' });
    const f = await createTestCore({ rateLimiter: limiter });
    const store = failingStore(f.store, () => new BackendUnavailableError('down'), {
      parts: ['identities'],
    });
    const core = createCore({ ...f.core.deps, store });
    await failureOf(
      core.createCaller({ authorization: `Bearer ${f.token}` }).links.create(f.body() as never),
    );
    // The token check could not run, so nothing was counted for the token.
    expect(await limiter.peek(hashSecret(f.token))).toBeNull();
  });
});

describe('links.create: a clock that gives no valid Date', () => {
  it.each<[string, () => unknown]>([
    ['an invalid Date', () => new Date(Number.NaN)],
    ['a string', () => '2026-01-01'],
    ['undefined', () => undefined],
  ])('fails with code 1 and stores nothing when now() returns %s', async (_, now) => {
    const f = await createTestCore({ clock: { now: now as () => Date } });
    for (const idempotencyKey of [undefined, 'key-1', 'key-1']) {
      const error = await failureOf(f.caller({ idempotencyKey }).links.create(f.body() as never));
      expect(error).toMatchObject({ reason: 'INTERNAL' });
      expect((error.cause as Error).message).toMatch(
        /^the clock's now\(\) returned .+, not a valid Date$/,
      );
    }
    expect(f.linkCount()).toBe(0);
  });
});

describe('links.create under a key: a clock that fails only when the answer is made', () => {
  it('stores neither link nor answer, fails with 1 and frees the key (never a link left running)', async () => {
    let calls = 0;
    let failFrom = Number.POSITIVE_INFINITY;
    const f = await createTestCore({
      clock: {
        now: () => {
          calls += 1;
          return calls >= failFrom ? new Date(Number.NaN) : new Date('2026-01-01T00:00:00Z');
        },
      },
    });
    calls = 0;
    await f.caller({ idempotencyKey: 'count-calls' }).links.create(f.body() as never);
    // The last call of a keyed create: the recorded answer's expiry, made with the link, before
    // the store writes either.
    failFrom = calls;
    calls = 0;
    const error = await failureOf(
      f.caller({ idempotencyKey: 'late-clock' }).links.create(f.body() as never),
    );
    expect(error.reason).toBe('INTERNAL');
    expect(f.linkCount()).toBe(1);
    // The key was released: a retry with a working clock runs and creates the link.
    failFrom = Number.POSITIVE_INFINITY;
    const link = await f.caller({ idempotencyKey: 'late-clock' }).links.create(f.body() as never);
    expect(link.id).toBe(2);
    expect(f.linkCount()).toBe(2);
  });
});

describe('links.create: an embedder URL guard held to its port (fails closed)', () => {
  it.each<[string, unknown]>([
    ['a string', 'ok'],
    ['null', null],
    ['an object without "blocked"', { allowed: true }],
    ['"blocked" as a string', { blocked: 'false' }],
  ])('fails with code 1 and stores nothing when the guard answers %s', async (_, answer) => {
    const f = await createTestCore({
      urlGuard: { check: () => Promise.resolve(answer as never) },
    });
    const error = await failureOf(f.caller().links.create(f.body() as never));
    expect(error).toMatchObject({
      reason: 'INTERNAL',
      messages: ['An unexpected error occurred.'],
    });
    expect((error.cause as Error).message).toMatch(/^the URL guard answered .+, not a verdict/);
    expect(f.linkCount()).toBe(0);
  });

  it('refuses with 18 and says so when a blocking verdict gives no reason', async () => {
    const f = await createTestCore({
      urlGuard: { check: () => Promise.resolve({ blocked: true } as never) },
    });
    const error = await failureOf(f.caller().links.create(f.body() as never));
    expect(error).toMatchObject({
      reason: 'URL_BLOCKED',
      messages: ['The URL was refused: no reason was given'],
    });
    expect(f.linkCount()).toBe(0);
  });
});
