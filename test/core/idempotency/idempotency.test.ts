import {
  BackendUnavailableError,
  createCore,
  createMemoryRateLimiter,
  UndecodableBody,
  type ResponseInfo,
  type ShortLink,
  type UrlGuard,
} from '../../../core';
import { createRuntime, loadConfig } from '../../../core/runtime';
import { gatedUrlGuard } from '../../support/gated-url-guard';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { failingStore, failureOf } from '../../support/failures';
import { LONGEST_KEY, MALFORMED_KEYS, manualClock } from '../../support/idempotency';
import { settleAll } from '../../storage/fixtures';

/** A caller of alice with `key`, and the response info the core fills in. */
function keyed(f: CoreFixture, key: string | undefined, authorization?: string) {
  const response: ResponseInfo = {};
  const caller = f.caller({
    idempotencyKey: key,
    response,
    ...(authorization ? { authorization } : {}),
  });
  return { caller, response };
}

async function create(f: CoreFixture, key: string | undefined, body = f.body()) {
  const { caller, response } = keyed(f, key);
  const link = await caller.links.create(body as never);
  return { link, response };
}

async function fail(f: CoreFixture, key: string | undefined, body: unknown = f.body()) {
  const { caller, response } = keyed(f, key);
  const error = await failureOf(caller.links.create(body as never));
  return { error, response };
}

/** A URL guard whose first checks fail as `errors` say, then allow. */
function failingFirst(...errors: Error[]): UrlGuard {
  const queue = [...errors];
  return {
    check: () => {
      const error = queue.shift();
      return error ? Promise.reject(error) : Promise.resolve({ blocked: false });
    },
  };
}

describe('idempotency through the core: replays', () => {
  it('replays a success with a generated alias: the same link, nothing new stored', async () => {
    const f = await createTestCore();
    const first = await create(f, 'retry-1');
    expect(first.response.idempotentReplayed).toBeUndefined();
    const second = await create(f, 'retry-1');
    expect(second.link).toEqual(first.link);
    expect(JSON.stringify(second.link)).toBe(JSON.stringify(first.link));
    expect(second.response.idempotentReplayed).toBe(true);
    expect(f.linkCount()).toBe(1);
    // Without the key the same body makes another link.
    const third = await create(f, undefined);
    expect(third.link.id).not.toBe(first.link.id);
    expect(third.response.idempotentReplayed).toBeUndefined();
  });

  it('replays a success with a chosen alias instead of answering 15 for its own link', async () => {
    const f = await createTestCore();
    const body = f.body({ alias: 'mine', redirect_type: 302 });
    const first = await create(f, 'chosen', body);
    const again = await create(f, 'chosen', body);
    expect(again.link).toEqual(first.link);
    expect(again.response.idempotentReplayed).toBe(true);
    expect(f.linkCount()).toBe(1);
    expect((await fail(f, undefined, body)).error.reason).toBe('ALIAS_TAKEN');
  });

  it('records and replays a 15 (and the messages of a multi-field failure)', async () => {
    const f = await createTestCore();
    await create(f, undefined, f.body({ alias: 'taken' }));
    const first = await fail(f, 'k15', f.body({ alias: 'taken' }));
    expect(first.error.reason).toBe('ALIAS_TAKEN');
    const replayed = await fail(f, 'k15', f.body({ alias: 'taken' }));
    expect(replayed.error).toMatchObject({ reason: 'ALIAS_TAKEN', messages: first.error.messages });
    expect(replayed.response.idempotentReplayed).toBe(true);

    const fields = f.body({ url: 'ftp://x', alias: 'bad alias!', redirect_type: 333 });
    const many = await fail(f, 'k7', fields);
    expect(many.error.reason).toBe('URL_INVALID');
    expect(many.error.messages).toHaveLength(3);
    const manyAgain = await fail(f, 'k7', fields);
    expect(manyAgain.error).toMatchObject({ reason: 'URL_INVALID', messages: many.error.messages });
    expect(manyAgain.response.idempotentReplayed).toBe(true);
  });

  it('records failures of the stages after it: 5, 14, 18', async () => {
    const blocking: UrlGuard = {
      check: () => Promise.resolve({ blocked: true, reason: 'test' }),
    };
    const f = await createTestCore({ urlGuard: blocking });
    const cases: Array<[number, Record<string, unknown>]> = [
      [5, f.body({ url_group_id: null })],
      [14, f.body({ url_group_id: '999' })],
      [18, f.body()],
    ];
    for (const [code, body] of cases) {
      expect((await fail(f, `stage-${code}`, body)).error.code).toBe(code);
      const again = await fail(f, `stage-${code}`, body);
      expect([code, again.error.code, again.response.idempotentReplayed]).toEqual([
        code,
        code,
        true,
      ]);
    }
  });

  it('matches requests by meaning: trimmed url, defaults, numeric group, key order', async () => {
    const f = await createTestCore();
    const first = await create(
      f,
      'meaning',
      f.body({ url: 'https://example.com/x', url_group_id: '1', alias: '' }),
    );
    const variants = [
      { url: '  https://example.com/x\n', url_group_id: 1, alias: null },
      { url: 'https://example.com/x', url_group_id: '1', redirect_type: 301 },
      { url: 'https://example.com/x', url_group_id: '1', redirect_type: null, alias: undefined },
    ];
    for (const variant of variants) {
      const reordered = Object.fromEntries(Object.entries(f.body(variant)).reverse());
      const again = await create(f, 'meaning', reordered);
      expect(again.link).toEqual(first.link);
      expect(again.response.idempotentReplayed).toBe(true);
    }
    expect(f.linkCount()).toBe(1);
  });
});

describe('idempotency through the core: the organization stage comes first', () => {
  it.each([
    [4, { organization_key: '' }],
    [12, { organization_key: 'wrong' }],
  ])('records no %s: the key stays free for the corrected request', async (code, fields) => {
    const f = await createTestCore();
    for (let i = 0; i < 2; i += 1) {
      const refused = await fail(f, `org-${code}`, f.body(fields));
      expect([refused.error.code, refused.response.idempotentReplayed]).toEqual([code, undefined]);
    }
    expect(f.store.idempotency.size).toBe(0);
    const created = await create(f, `org-${code}`);
    expect(created.response.idempotentReplayed).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });

  it('records no 13: once the organization is active again, the same key creates the link', async () => {
    const f = await createTestCore();
    const body = f.body({ organization_key: f.inactiveOrganizationKey });
    expect((await fail(f, 'org-13', body)).error.reason).toBe('ORGANIZATION_INACTIVE');
    expect(f.store.idempotency.size).toBe(0);
    await f.provisioner.setOrganizationActive('sleepy', true);
    const created = await create(f, 'org-13', body);
    expect(created.link.domain).toBe('sleepy.link');
    expect(created.response.idempotentReplayed).toBeUndefined();
  });

  it('records no 17: after `member add`, the same key creates the link instead of replaying 17', async () => {
    const f = await createTestCore();
    const bob = keyed(f, 'org-17', `Bearer ${f.outsiderToken}`);
    expect((await failureOf(bob.caller.links.create(f.body() as never))).reason).toBe(
      'NOT_A_MEMBER',
    );
    expect(f.store.idempotency.size).toBe(0);
    await f.provisioner.addMember('bob', 'acme');
    const again = keyed(f, 'org-17', `Bearer ${f.outsiderToken}`);
    const link = await again.caller.links.create(f.body() as never);
    expect(link.domain).toBe('acme.link');
    expect(again.response.idempotentReplayed).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });

  it('answers a retry 13 after the organization was deactivated, not the recorded link', async () => {
    const f = await createTestCore();
    const first = await create(f, 'deactivated');
    await f.provisioner.setOrganizationActive('acme', false);
    const retry = await fail(f, 'deactivated');
    expect([retry.error.reason, retry.response.idempotentReplayed]).toEqual([
      'ORGANIZATION_INACTIVE',
      undefined,
    ]);
    // The record is kept: active again, the retry is the replay.
    await f.provisioner.setOrganizationActive('acme', true);
    const replayed = await create(f, 'deactivated');
    expect([replayed.link, replayed.response.idempotentReplayed]).toEqual([first.link, true]);
    expect(f.linkCount()).toBe(1);
  });
});

describe('idempotency through the core: another request under the same key (25)', () => {
  it.each([
    ['url', { url: 'https://example.com/other' }],
    ['redirect_type', { redirect_type: 302 }],
    ['alias', { alias: 'chosen' }],
    ['group', { url_group_id: '42' }],
  ])('refuses a different %s with 25 and stores nothing', async (_field, overrides) => {
    const f = await createTestCore();
    await create(f, 'same-key');
    const { error, response } = await fail(f, 'same-key', f.body(overrides));
    expect(error.reason).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(error.messages).toEqual([
      'This idempotency key was already used for a different request.',
    ]);
    expect(response.idempotentReplayed).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });

  it('refuses a different organization (another key) with 25', async () => {
    const f = await createTestCore();
    await create(f, 'org-key');
    const other = await fail(f, 'org-key', f.body({ organization_key: f.otherOrganizationKey }));
    expect(other.error.reason).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(f.linkCount()).toBe(1);
  });

  it('scopes keys to the token user: the same key of another user is another key', async () => {
    const f = await createTestCore();
    await f.provisioner.saveUser({ id: 'carol', organizations: ['acme'] });
    const carol = (await f.provisioner.issueToken('carol')).token as string;
    const alices = await create(f, 'shared-name');
    const response: ResponseInfo = {};
    const carols = await f
      .caller({ authorization: `Bearer ${carol}`, idempotencyKey: 'shared-name', response })
      .links.create(f.body({ url: 'https://example.com/carol' }) as never);
    expect(carols.id).not.toBe(alices.link.id);
    expect(response.idempotentReplayed).toBeUndefined();
    // A second token of alice is still alice: her key, replayed.
    const aliceAgain = (await f.provisioner.issueToken('alice')).token as string;
    const replay = await f
      .caller({ authorization: `Bearer ${aliceAgain}`, idempotencyKey: 'shared-name' })
      .links.create(f.body() as never);
    expect(replay).toEqual(alices.link);
    expect(f.linkCount()).toBe(2);
  });
});

describe('idempotency through the core: a key whose first request still runs (26)', () => {
  it('answers 26 with a 1 s retry hint while running, 25 for another body, then the replay', async () => {
    const gate = gatedUrlGuard();
    const f = await createTestCore({ urlGuard: gate.guard });
    const first = create(f, 'slow');
    await gate.entered;
    const busy = await fail(f, 'slow');
    expect(busy.error).toMatchObject({ reason: 'IDEMPOTENCY_KEY_IN_USE', retryAfterSeconds: 1 });
    expect(busy.response.retryAfterSeconds).toBe(1);
    expect((await fail(f, 'slow', f.body({ url: 'https://example.com/b' }))).error.reason).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    gate.release();
    const done = await first;
    const replay = await create(f, 'slow');
    expect(replay.link).toEqual(done.link);
    expect(f.linkCount()).toBe(1);
  });

  it('lets 20 concurrent requests with one key create exactly one link', async () => {
    const f = await createTestCore();
    const responses = Array.from({ length: 20 }, (): ResponseInfo => ({}));
    const results = await settleAll(
      responses.map((response) =>
        f.caller({ idempotencyKey: 'burst', response }).links.create(f.body() as never),
      ),
    );
    expect(f.linkCount()).toBe(1);
    const created = results.flatMap((r) => (r.ok ? [r.value] : []));
    const refused = results.flatMap((r) => (r.ok ? [] : [r.error]));
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((link: ShortLink) => link.id)).size).toBe(1);
    expect(refused.every((e) => (e as { code?: number }).code === 26)).toBe(true);
    expect(responses.filter((r) => r.idempotentReplayed).length).toBe(created.length - 1);
  });
});

describe('idempotency through the core: server faults release the key', () => {
  it.each([
    ['23', new BackendUnavailableError('down'), 23],
    ['1', new Error('bug'), 1],
  ])('a %s is not recorded: the retry runs again and succeeds', async (_name, error, code) => {
    const f = await createTestCore({ urlGuard: failingFirst(error) });
    expect((await fail(f, 'fault')).error.code).toBe(code);
    expect(f.store.idempotency.size).toBe(0);
    expect(f.linkCount()).toBe(0);
    const retry = await create(f, 'fault');
    expect(retry.response.idempotentReplayed).toBeUndefined();
    expect(f.linkCount()).toBe(1);
    expect((await create(f, 'fault')).link).toEqual(retry.link);
  });

  it('releases a claim whose answer was lost (applied, then 23): a retry runs, not 26', async () => {
    // MongoDB: the claim's upsert reached the server, its answer did not (socket timeout).
    const f = await createTestCore();
    const { idempotency } = f.store;
    let lose = true;
    const store = {
      ...f.store,
      idempotency: {
        claim: async (...args: Parameters<typeof idempotency.claim>) => {
          const claimed = await idempotency.claim(...args);
          if (!lose) return claimed;
          lose = false;
          throw new BackendUnavailableError('no answer from the server');
        },
        complete: idempotency.complete.bind(idempotency),
        release: idempotency.release.bind(idempotency),
        renew: idempotency.renew.bind(idempotency),
      },
    };
    const core = createCore({ ...f.core.deps, store });
    const caller = () =>
      core.createCaller({ authorization: `Bearer ${f.token}`, idempotencyKey: 'lost-claim' });
    expect((await failureOf(caller().links.create(f.body() as never))).reason).toBe(
      'BACKEND_UNAVAILABLE',
    );
    const retried = await caller().links.create(f.body() as never);
    expect(retried.id).toBe(1);
  });

  it('answers 23 and stores nothing when the records cannot be reached', async () => {
    const f = await createTestCore();
    const store = failingStore(f.store, () => new BackendUnavailableError('down'), {
      parts: ['idempotency'],
    });
    const core = createCore({ store });
    const error = await failureOf(
      core
        .createCaller({ authorization: `Bearer ${f.token}`, idempotencyKey: 'k' })
        .links.create(f.body() as never),
    );
    expect(error.reason).toBe('BACKEND_UNAVAILABLE');
    expect(f.linkCount()).toBe(0);
  });
});

describe('idempotency through the core: expiry', () => {
  it('replays until IDEMPOTENCY_TTL_SECONDS, then runs the key again', async () => {
    const clock = manualClock();
    const f = await createTestCore({ clock, idempotencyTtlSeconds: 3600 });
    const first = await create(f, 'ttl');
    clock.advanceSeconds(3599);
    expect((await create(f, 'ttl')).link).toEqual(first.link);
    clock.advanceSeconds(2);
    const fresh = await create(f, 'ttl');
    expect(fresh.response.idempotentReplayed).toBeUndefined();
    expect(fresh.link.id).not.toBe(first.link.id);
    // The new run is recorded again, with a different body accepted after expiry.
    expect((await create(f, 'ttl')).link).toEqual(fresh.link);
    clock.advanceSeconds(3601);
    const other = await create(f, 'ttl', f.body({ url: 'https://example.com/later' }));
    expect(other.link.url).toBe('https://example.com/later');
  });

  it('frees the key of a crashed request once its running record’s lease has passed', async () => {
    const clock = manualClock();
    const f = await createTestCore({ clock });
    // What a process that died mid-request leaves behind: a running record, never completed.
    await f.store.idempotency.claim(
      { userId: 'alice', key: 'orphan' },
      {
        state: 'running',
        owner: 'dead-process',
        fingerprint: 'whatever',
        expiresAt: new Date(clock.now().getTime() + 60_000),
      },
      clock.now(),
    );
    expect((await fail(f, 'orphan')).error.reason).toBe('IDEMPOTENCY_KEY_REUSED');
    clock.advanceSeconds(59);
    expect((await fail(f, 'orphan')).error.reason).toBe('IDEMPOTENCY_KEY_REUSED');
    clock.advanceSeconds(2);
    const ran = await create(f, 'orphan');
    expect(ran.response.idempotentReplayed).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });

  it('answers 26 for a running record of the same request until its lease of 60 s ends', async () => {
    const clock = manualClock();
    const gate = gatedUrlGuard();
    const f = await createTestCore({ clock, urlGuard: gate.guard });
    const stuck = create(f, 'lease');
    await gate.entered;
    expect((await fail(f, 'lease')).error.reason).toBe('IDEMPOTENCY_KEY_IN_USE');
    clock.advanceSeconds(61);
    gate.release();
    // The lease passed: whichever of the stuck request and a retry inserts first makes the
    // link, and the other answers it (idempotency-lease.test.ts holds each order in turn).
    const retried = await create(f, 'lease');
    const late = await stuck;
    expect(late.link).toEqual(retried.link);
    expect(f.linkCount()).toBe(1);
  });

  it('sweeps expired records from memory', async () => {
    const clock = manualClock();
    const f = await createTestCore({ clock, idempotencyTtlSeconds: 10 });
    for (let i = 0; i < 5; i += 1) await create(f, `sweep-${i}`);
    expect(f.store.idempotency.size).toBe(5);
    clock.advanceSeconds(61);
    await create(f, 'after');
    expect(f.store.idempotency.size).toBe(1);
  });
});

describe('idempotency through the core: the key format (27) and precedence', () => {
  it.each(MALFORMED_KEYS)('refuses a key with $kind: 27, stores nothing', async (bad) => {
    const f = await createTestCore();
    const { error } = await fail(f, bad.key);
    expect(error.reason).toBe('IDEMPOTENCY_KEY_INVALID');
    expect(error.messages).toHaveLength(1);
    expect(error.messages[0]).toMatch(bad.message);
    expect(f.linkCount()).toBe(0);
    expect(f.store.idempotency.size).toBe(0);
  });

  it('refuses a key that is not a string (an in-process caller)', async () => {
    const f = await createTestCore();
    const error = await failureOf(
      f.caller({ idempotencyKey: 42 as never }).links.create(f.body() as never),
    );
    expect(error.reason).toBe('IDEMPOTENCY_KEY_INVALID');
  });

  it('takes a key a transport received once or not at all from a list, and refuses a repeated one', async () => {
    const f = await createTestCore();
    const once = await f.caller({ idempotencyKey: ['once'] }).links.create(f.body() as never);
    const response: ResponseInfo = {};
    await expect(
      f.caller({ idempotencyKey: 'once', response }).links.create(f.body() as never),
    ).resolves.toEqual(once);
    expect(response.idempotentReplayed).toBe(true);
    await f.caller({ idempotencyKey: [] }).links.create(f.body() as never);
    expect(f.linkCount()).toBe(2);

    const repeated = await failureOf(
      f.caller({ idempotencyKey: ['once', 'once'] }).links.create(f.body() as never),
    );
    expect([repeated.code, repeated.messages]).toEqual([
      27,
      ['The idempotency key was sent more than once: send it once.'],
    ]);
    expect(f.linkCount()).toBe(2);
  });

  it('accepts 255 visible ASCII characters; null means no key', async () => {
    const f = await createTestCore();
    const longest = await create(f, LONGEST_KEY);
    expect((await create(f, LONGEST_KEY)).link).toEqual(longest.link);
    const response: ResponseInfo = {};
    await f.caller({ idempotencyKey: null, response }).links.create(f.body() as never);
    expect(f.linkCount()).toBe(2);
  });

  it('orders the stages: token, rate limit, key format, body, organization, idempotency', async () => {
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 3, keyPrefix: 'p' }),
    });
    const badBody = new UndecodableBody('BODY_INVALID', 'not JSON');
    // token before key format
    const anonymous = f.caller({ authorization: undefined, idempotencyKey: '' });
    expect((await failureOf(anonymous.links.create(badBody as never))).reason).toBe(
      'TOKEN_MISSING',
    );
    // key format before body
    expect((await fail(f, '', badBody)).error.reason).toBe('IDEMPOTENCY_KEY_INVALID');
    // body before idempotency: nothing is claimed, the key stays free
    expect((await fail(f, 'p', badBody)).error.reason).toBe('BODY_INVALID');
    expect((await fail(f, 'p', [1])).error.reason).toBe('BODY_INVALID');
    expect(f.store.idempotency.size).toBe(0);
    // rate limit before key format (the budget of 3 is used up now)
    expect((await fail(f, '')).error.reason).toBe('RATE_LIMITED');
  });

  it('orders the organization stage before idempotency: a 4 is not recorded, the fix runs', async () => {
    const f = await createTestCore();
    expect((await fail(f, 'org', f.body({ organization_key: undefined }))).error.reason).toBe(
      'ORGANIZATION_KEY_MISSING',
    );
    expect((await fail(f, 'org', f.body({ organization_key: null }))).error.reason).toBe(
      'ORGANIZATION_KEY_MISSING',
    );
    expect(f.store.idempotency.size).toBe(0);
    expect((await create(f, 'org', f.body())).response.idempotentReplayed).toBeUndefined();
    // And a 4 under a key already used comes before its 25.
    expect((await fail(f, 'org', f.body({ organization_key: '' }))).error.reason).toBe(
      'ORGANIZATION_KEY_MISSING',
    );
  });
});

describe('IDEMPOTENCY_TTL_SECONDS', () => {
  it('defaults to 86400 and is read from the environment', () => {
    expect(loadConfig({}).IDEMPOTENCY_TTL_SECONDS).toBe(86400);
    expect(loadConfig({ IDEMPOTENCY_TTL_SECONDS: '120' }).IDEMPOTENCY_TTL_SECONDS).toBe(120);
    expect(() => loadConfig({ IDEMPOTENCY_TTL_SECONDS: '0' })).toThrow(/IDEMPOTENCY_TTL_SECONDS/);
  });

  it('refuses a life so long that a record could not hold its expiry date', () => {
    expect(loadConfig({ IDEMPOTENCY_TTL_SECONDS: '315360000' }).IDEMPOTENCY_TTL_SECONDS).toBe(
      315360000,
    );
    expect(() => loadConfig({ IDEMPOTENCY_TTL_SECONDS: '315360001' })).toThrow(
      /IDEMPOTENCY_TTL_SECONDS: must be at most 315360000 \(ten years\)/,
    );
    expect(() => loadConfig({ IDEMPOTENCY_TTL_SECONDS: '9000000000000' })).toThrow(
      /IDEMPOTENCY_TTL_SECONDS/,
    );
  });
});

describe('IDEMPOTENCY_LEASE_SECONDS', () => {
  it('defaults to 60, is read from the environment and is at most an hour', () => {
    expect(loadConfig({}).IDEMPOTENCY_LEASE_SECONDS).toBe(60);
    expect(loadConfig({ IDEMPOTENCY_LEASE_SECONDS: '5' }).IDEMPOTENCY_LEASE_SECONDS).toBe(5);
    for (const refused of ['0', '-1', '1.5', '3601']) {
      expect(() => loadConfig({ IDEMPOTENCY_LEASE_SECONDS: refused })).toThrow(
        /IDEMPOTENCY_LEASE_SECONDS/,
      );
    }
  });

  it('is the lease of the core the runtime builds', async () => {
    const runtime = await createRuntime(
      loadConfig({ DATA_DIR: ':memory:', METRICS_PORT: '0', IDEMPOTENCY_LEASE_SECONDS: '7' }),
    );
    try {
      expect(runtime.core.deps.idempotencyLeaseSeconds).toBe(7);
    } finally {
      await runtime.close();
    }
  });
});

describe('a caller reused for several calls', () => {
  it("fills `response` for each call alone: a replay's or a refusal's marks do not stay", async () => {
    const f = await createTestCore();
    const { caller, response } = keyed(f, 'reused');
    const link = await caller.links.create(f.body() as never);
    expect(response.idempotentReplayed).toBeUndefined();
    expect(await caller.links.create(f.body() as never)).toEqual(link);
    expect(response.idempotentReplayed).toBe(true);
    const other = await failureOf(
      caller.links.create(f.body({ url: 'https://example.com/other' }) as never),
    );
    expect(other.reason).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(response.idempotentReplayed).toBeUndefined();
    expect(response.rateLimit?.remaining).toBeGreaterThanOrEqual(0);
  });

  it('clears a retry hint once a later call needs none', async () => {
    const gate = gatedUrlGuard();
    const f = await createTestCore({ urlGuard: gate.guard });
    const first = create(f, 'busy');
    await gate.entered;
    const { caller, response } = keyed(f, 'busy');
    expect((await failureOf(caller.links.create(f.body() as never))).reason).toBe(
      'IDEMPOTENCY_KEY_IN_USE',
    );
    expect(response.retryAfterSeconds).toBe(1);
    gate.release();
    await first;
    await caller.links.create(f.body() as never);
    expect(response.idempotentReplayed).toBe(true);
    expect(response.retryAfterSeconds).toBeUndefined();
  });
});
