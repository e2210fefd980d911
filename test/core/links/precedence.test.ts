import {
  createMemoryRateLimiter,
  UndecodableBody,
  type UrlGuard,
  type UrlGuardContext,
} from '../../../core';
import { gatedUrlGuard } from '../../support/gated-url-guard';
import { createTestCore } from '../../support/core-fixture';
import { expectFailure, failureOf } from '../../support/failures';

/** A guard that refuses every URL and remembers what it was asked. */
function blockingGuard() {
  const seen: Array<{ url: string; context: UrlGuardContext }> = [];
  const guard: UrlGuard = {
    check: (url, context) => {
      seen.push({ url: url.href, context });
      return Promise.resolve({ blocked: true, reason: 'listed by the test' });
    },
  };
  return { guard, seen };
}

/** Fails every stage after the organization stage at once. */
const badFields = { url: 'ftp://x', alias: 'bad alias!', redirect_type: '302' };

describe('links.create: the anti-phishing stage (code 18)', () => {
  it('refuses a blocked URL with 18, stores nothing and asks the guard with the parsed URL', async () => {
    const { guard, seen } = blockingGuard();
    const f = await createTestCore({ urlGuard: guard });
    await expectFailure(
      f.caller().links.create(f.body({ url: ' https://Evil.example/x ' }) as never),
      'URL_BLOCKED',
      ['The URL was refused: listed by the test'],
    );
    expect(f.linkCount()).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('https://evil.example/x');
    expect(seen[0]!.context.organization.id).toBe('acme');
  });
});

describe('links.create: precedence — the first failing stage wins', () => {
  it('token before everything: a missing token with a bad body is 3', async () => {
    const f = await createTestCore();
    const caller = f.caller({ authorization: undefined });
    expect(
      (await failureOf(caller.links.create(new UndecodableBody('BODY_TOO_LARGE', 'x') as never)))
        .reason,
    ).toBe('TOKEN_MISSING');
    expect((await failureOf(caller.links.create({} as never))).reason).toBe('TOKEN_MISSING');
    const malformed = f.caller({ authorization: 'Basic x' });
    expect((await failureOf(malformed.links.create(null as never))).reason).toBe('TOKEN_MALFORMED');
  });

  it('token before rate limit: an unknown token is 11 while another token is exhausted', async () => {
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 1, keyPrefix: 'p' }),
    });
    await f.caller().links.create(f.body() as never);
    expect((await failureOf(f.caller().links.create(f.body() as never))).reason).toBe(
      'RATE_LIMITED',
    );
    const unknown = f.caller({ authorization: 'Bearer nobody' });
    expect((await failureOf(unknown.links.create(f.body() as never))).reason).toBe('TOKEN_UNKNOWN');
  });

  it('rate limit before body: an exhausted token with an undecodable or non-object body is 19', async () => {
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 1, keyPrefix: 'p' }),
    });
    await f.caller().links.create(f.body() as never);
    for (const body of [
      new UndecodableBody('CONTENT_TYPE_UNSUPPORTED', 'x'),
      new UndecodableBody('BODY_TOO_LARGE', 'x'),
      new UndecodableBody('BODY_INVALID', 'x'),
      [],
      {},
    ]) {
      expect((await failureOf(f.caller().links.create(body as never))).reason).toBe('RATE_LIMITED');
    }
  });

  it('body before organization key: a non-object body is 20, an undecodable one its own code', async () => {
    const f = await createTestCore();
    expect((await failureOf(f.caller().links.create([] as never))).reason).toBe('BODY_INVALID');
    expect(
      (
        await failureOf(
          f.caller().links.create(new UndecodableBody('CONTENT_TYPE_UNSUPPORTED', 'x') as never),
        )
      ).reason,
    ).toBe('CONTENT_TYPE_UNSUPPORTED');
  });

  it('organization key missing (4) before every later stage', async () => {
    const { guard } = blockingGuard();
    const f = await createTestCore({ urlGuard: guard });
    const error = await failureOf(
      f.caller().links.create({ url_group_id: null, ...badFields } as never),
    );
    expect(error.reason).toBe('ORGANIZATION_KEY_MISSING');
    expect(error.messages).toHaveLength(1);
  });

  it('organization (12, 13, 17) before group (5, 14)', async () => {
    const f = await createTestCore();
    const create = (body: Record<string, unknown>, token = f.token) =>
      failureOf(f.caller({ authorization: `Bearer ${token}` }).links.create(body as never));
    expect(
      (await create({ organization_key: 'nope', url_group_id: null, ...badFields })).reason,
    ).toBe('ORGANIZATION_KEY_INVALID');
    expect(
      (
        await create({
          organization_key: f.inactiveOrganizationKey,
          url_group_id: 'nope',
          ...badFields,
        })
      ).reason,
    ).toBe('ORGANIZATION_INACTIVE');
    expect(
      (
        await create(
          { organization_key: f.organizationKey, url_group_id: '', ...badFields },
          f.outsiderToken,
        )
      ).reason,
    ).toBe('NOT_A_MEMBER');
  });

  it('within the organization stage: 12, then 13, then 17', async () => {
    const f = await createTestCore();
    const outsider = f.caller({ authorization: `Bearer ${f.outsiderToken}` });
    // bob is a member of no organization: an inactive one is still reported as inactive.
    expect(
      (
        await failureOf(
          outsider.links.create(f.body({ organization_key: f.inactiveOrganizationKey }) as never),
        )
      ).reason,
    ).toBe('ORGANIZATION_INACTIVE');
    expect(
      (await failureOf(outsider.links.create(f.body({ organization_key: 42 }) as never))).reason,
    ).toBe('ORGANIZATION_KEY_INVALID');
  });

  it('organization (4, 12, 13, 17) before idempotency (replay, 25, 26)', async () => {
    const gate = gatedUrlGuard();
    const f = await createTestCore({ urlGuard: gate.guard });
    const keyed = (body: Record<string, unknown>) =>
      f.caller({ idempotencyKey: 'K' }).links.create(body as never);
    const running = keyed(f.body());
    await gate.entered;
    // While the first request with the key runs (26 for its own retries), and for other bodies
    // under the key (25), the organization stage answers first.
    expect((await failureOf(keyed(f.body()))).reason).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect((await failureOf(keyed(f.body({ url: 'https://example.com/o' })))).reason).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await failureOf(keyed(f.body({ organization_key: null })))).reason).toBe(
      'ORGANIZATION_KEY_MISSING',
    );
    expect((await failureOf(keyed(f.body({ organization_key: 'nope' })))).reason).toBe(
      'ORGANIZATION_KEY_INVALID',
    );
    expect(
      (await failureOf(keyed(f.body({ organization_key: f.inactiveOrganizationKey })))).reason,
    ).toBe('ORGANIZATION_INACTIVE');
    gate.release();
    const link = await running;
    // Done: the replay, unless the organization stage now refuses.
    await expect(keyed(f.body())).resolves.toEqual(link);
    await f.provisioner.setOrganizationActive('acme', false);
    expect((await failureOf(keyed(f.body()))).reason).toBe('ORGANIZATION_INACTIVE');
  });

  it('idempotency (25) before group (5, 14)', async () => {
    const f = await createTestCore();
    const keyed = (body: Record<string, unknown>) =>
      f.caller({ idempotencyKey: 'G' }).links.create(body as never);
    await keyed(f.body());
    expect((await failureOf(keyed(f.body({ url_group_id: null })))).reason).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await failureOf(keyed(f.body({ url_group_id: '9' })))).reason).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it('group (5, 14) before the fields', async () => {
    const f = await createTestCore();
    const missing = await failureOf(
      f.caller().links.create(f.body({ url_group_id: null, ...badFields }) as never),
    );
    expect(missing.reason).toBe('URL_GROUP_ID_MISSING');
    expect(missing.messages).toHaveLength(1);
    const unknown = await failureOf(
      f.caller().links.create(f.body({ url_group_id: '9', ...badFields }) as never),
    );
    expect(unknown.reason).toBe('URL_GROUP_NOT_FOUND');
  });

  it('fields before anti-phishing: the guard is not asked about an invalid body', async () => {
    const { guard, seen } = blockingGuard();
    const f = await createTestCore({ urlGuard: guard });
    for (const fields of [
      { alias: 'bad alias' },
      { redirect_type: 300 },
      { alias: 'a'.repeat(65) },
    ]) {
      const error = await failureOf(f.caller().links.create(f.body(fields) as never));
      expect(error.code).not.toBe(18);
    }
    expect(seen).toHaveLength(0);
  });

  it('expires_at (31) and max_visits (32) after the group and before anti-phishing (18)', async () => {
    const { guard, seen } = blockingGuard();
    const f = await createTestCore({ urlGuard: guard });
    const create = (fields: Record<string, unknown>) =>
      failureOf(f.caller().links.create(f.body(fields) as never));
    const badLimits = { expires_at: '2000-01-01T00:00:00Z', max_visits: 0 };
    expect((await create({ url_group_id: '9', ...badLimits })).reason).toBe('URL_GROUP_NOT_FOUND');
    expect((await create({ redirect_type: 300, ...badLimits })).reason).toBe(
      'REDIRECT_TYPE_INVALID',
    );
    expect((await create(badLimits)).reason).toBe('EXPIRES_AT_INVALID');
    expect((await create({ max_visits: 0 })).reason).toBe('MAX_VISITS_INVALID');
    // Refused by the fields stage: the guard, which would refuse every URL, was never asked.
    expect(seen).toHaveLength(0);
    expect((await create({ max_visits: 1, expires_at: '2099-01-01T00:00:00Z' })).reason).toBe(
      'EXPIRES_AT_INVALID',
    );
    expect((await create({ max_visits: 1 })).reason).toBe('URL_BLOCKED');
  });

  it('anti-phishing (18) before alias availability (15): taken and reserved aliases', async () => {
    const { guard } = blockingGuard();
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'taken' }) as never);
    const guarded = await createTestCore({ urlGuard: guard, store: f.store });
    for (const alias of ['taken', 'api']) {
      expect(
        (await failureOf(guarded.caller().links.create(guarded.body({ alias }) as never))).reason,
      ).toBe('URL_BLOCKED');
    }
  });

  it('alias availability last: a valid body with a taken alias is 15', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'taken' }) as never);
    expect(
      (await failureOf(f.caller().links.create(f.body({ alias: 'taken' }) as never))).reason,
    ).toBe('ALIAS_TAKEN');
  });
});
