import {
  BackendUnavailableError,
  CappedMemoryRateLimiter,
  createCore,
  createMemoryRateLimiter,
  hashSecret,
} from '../../../core';
import { createTestCore, TEST_CLIENT_ADDRESS } from '../../support/core-fixture';
import { expectFailure, failingStore, failureOf } from '../../support/failures';

describe('links.create: the token stage (codes 3, 10, 11)', () => {
  it('refuses a missing Authorization header with code 3', async () => {
    const f = await createTestCore();
    for (const authorization of [undefined, null]) {
      const error = await failureOf(f.caller({ authorization }).links.create(f.body() as never));
      expect(error.reason).toBe('TOKEN_MISSING');
      expect(error.reason).toBe('TOKEN_MISSING');
      expect(error.messages).toEqual(['The Authorization header is missing.']);
    }
  });

  it.each([
    ['a Basic credential', 'Basic x'],
    ['"Bearer" with an empty token', 'Bearer '],
    ['"Bearer" alone', 'Bearer'],
    ['an empty header', ''],
    ['a token without the scheme', 'slpat_abc'],
    ['a token with inner spaces', 'Bearer abc def'],
    ['another scheme', 'Token abc'],
  ])('refuses %s with code 10', async (_label, authorization) => {
    const f = await createTestCore();
    await expectFailure(
      f.caller({ authorization }).links.create(f.body() as never),
      'TOKEN_MALFORMED',
      ['The Authorization header must be "Bearer <token>".'],
    );
  });

  it('refuses an unknown token with code 11', async () => {
    const f = await createTestCore();
    await expectFailure(
      f.caller({ authorization: 'Bearer slpat_unknown' }).links.create(f.body() as never),
      'TOKEN_UNKNOWN',
      ['The access token is unknown or revoked.'],
    );
  });

  it('accepts the scheme in any case and the right token', async () => {
    const f = await createTestCore();
    const link = await f
      .caller({ authorization: `bearer ${f.token}` })
      .links.create(f.body() as never);
    expect(link.id).toBe(1);
  });

  it('never puts the token or the header into an error message', async () => {
    const f = await createTestCore();
    const secret = 'slpat_secretvalue123';
    for (const authorization of [`Bearer ${secret}`, `Basic ${secret}`]) {
      const error = await failureOf(f.caller({ authorization }).links.create(f.body() as never));
      expect(JSON.stringify(error.messages)).not.toContain(secret);
      expect(error.message).not.toContain(secret);
    }
  });
});

describe('hashSecret: the form tokens and organization keys are stored in', () => {
  it('is SHA-256 of the UTF-8 text, in lower-case hex, as every existing store holds them', () => {
    // Known digests (sha256sum): a change here would lock out every stored credential.
    expect(hashSecret('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashSecret('é')).toBe(
      '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c',
    );
  });
});

describe('links.create: failed token checks are limited per client address', () => {
  it('answers 19 after 30 failures, still serves a valid token from there, and spares other addresses', async () => {
    const f = await createTestCore();
    const guesser = f.caller({ authorization: 'Bearer wrong', clientAddress: '198.51.100.1' });
    for (let attempt = 1; attempt <= 30; attempt += 1) {
      expect((await failureOf(guesser.links.create(f.body() as never))).reason).toBe(
        'TOKEN_UNKNOWN',
      );
    }
    const blocked = await failureOf(guesser.links.create(f.body() as never));
    expect(blocked.reason).toBe('RATE_LIMITED');
    expect(blocked.reason).toBe('RATE_LIMITED');
    expect(blocked.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(blocked.retryAfterSeconds).toBeLessThanOrEqual(60);

    // The same address with the right token: served (a NAT full of guessers locks nobody out).
    const withValidToken = f.core.createCaller({
      authorization: `Bearer ${f.token}`,
      clientAddress: '198.51.100.1',
      response: {},
    });
    expect((await withValidToken.links.create(f.body() as never)).id).toBe(1);
    expect(f.linkCount()).toBe(1);
    expect((await failureOf(guesser.links.create(f.body() as never))).reason).toBe('RATE_LIMITED');

    // Malformed and missing headers count as failures too, and another address is unaffected.
    const other = f.caller({ clientAddress: '198.51.100.2' });
    expect((await other.links.create(f.body() as never)).id).toBe(2);
    expect(
      (
        await failureOf(
          f.caller({ clientAddress: '198.51.100.2', authorization: 'x' }).links.create({} as never),
        )
      ).reason,
    ).toBe('TOKEN_MALFORMED');
  });

  it('counts missing and malformed headers as failures', async () => {
    const f = await createTestCore({
      authFailureLimiter: createMemoryRateLimiter({ limit: 2, keyPrefix: 'authfail-test' }),
    });
    const from = (authorization: string | undefined) =>
      f.caller({ authorization, clientAddress: '198.51.100.3' });
    expect((await failureOf(from(undefined).links.create(f.body() as never))).reason).toBe(
      'TOKEN_MISSING',
    );
    expect((await failureOf(from('Basic x').links.create(f.body() as never))).reason).toBe(
      'TOKEN_MALFORMED',
    );
    expect((await failureOf(from(undefined).links.create(f.body() as never))).reason).toBe(
      'RATE_LIMITED',
    );
  });

  it('does not count successful token checks', async () => {
    const f = await createTestCore({
      authFailureLimiter: createMemoryRateLimiter({ limit: 1, keyPrefix: 'authfail-test' }),
    });
    for (let i = 0; i < 3; i += 1) {
      await f.caller({ clientAddress: TEST_CLIENT_ADDRESS }).links.create(f.body() as never);
    }
    expect(f.linkCount()).toBe(3);
  });
});

describe('links.create: failed token checks are counted per bounded address', () => {
  it('counts an IPv6 client by its /64 and an IPv4-mapped address as its IPv4 address', async () => {
    const f = await createTestCore({
      authFailureLimiter: new CappedMemoryRateLimiter({ limit: 2, maxKeys: 10 }),
    });
    const guess = (clientAddress: string) =>
      failureOf(
        f.caller({ authorization: 'Bearer wrong', clientAddress }).links.create(f.body() as never),
      ).then((error) => error.code);
    expect(await guess('2001:db8:1:2::1')).toBe(11);
    expect(await guess('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(11);
    expect(await guess('2001:db8:1:2:abcd::9')).toBe(19);
    expect(await guess('2001:db8:1:3::1')).toBe(11); // the next /64
    expect(await guess('198.51.100.9')).toBe(11);
    expect(await guess('::ffff:198.51.100.9')).toBe(11);
    expect(await guess('198.51.100.9')).toBe(19);
  });

  it('holds at most maxKeys addresses, forgetting the least recently counted', async () => {
    const limiter = new CappedMemoryRateLimiter({ limit: 30, maxKeys: 1000 });
    const f = await createTestCore({ authFailureLimiter: limiter });
    for (let i = 0; i < 3000; i += 1) {
      const clientAddress = `2001:db8:${(i >> 8).toString(16)}:${(i & 255).toString(16)}::1`;
      await failureOf(
        f.caller({ authorization: 'Bearer wrong', clientAddress }).links.create(f.body() as never),
      );
    }
    expect(limiter.size).toBe(1000);
    expect(await limiter.peek('2001:db8:b:b7::/64')).toMatchObject({ remaining: 29 });
    expect(await limiter.peek('2001:db8::/64')).toBeNull();
  });
});

describe('links.create: a token check the store could not answer', () => {
  it('is not counted as a failed check, and answers 23', async () => {
    const limiter = new CappedMemoryRateLimiter({ limit: 30, maxKeys: 10 });
    const f = await createTestCore({ authFailureLimiter: limiter });
    const store = failingStore(f.store, () => new BackendUnavailableError('down'), {
      parts: ['identities'],
    });
    const core = createCore({ ...f.core.deps, store });
    const caller = core.createCaller({
      authorization: 'Bearer slpat_x',
      clientAddress: '192.0.2.4',
    });
    expect((await failureOf(caller.links.create(f.body() as never))).reason).toBe(
      'BACKEND_UNAVAILABLE',
    );
    expect(await limiter.peek('192.0.2.4')).toBeNull();
  });
});
