import { CappedMemoryRateLimiter, rememberingRefusals, type RateLimiter } from '../../../core';

/** What a shared backend's limiter would be: asked on every call (here, a memory one). */
function backendLimiter(limit: number, now: () => number) {
  const memory = new CappedMemoryRateLimiter({ limit, maxKeys: 1000, now });
  let calls = 0;
  const limiter: RateLimiter = {
    limit,
    windowSeconds: memory.windowSeconds,
    consume: (key) => {
      calls += 1;
      return memory.consume(key);
    },
    peek: (key) => {
      calls += 1;
      return memory.peek(key);
    },
  };
  return { limiter, calls: () => calls };
}

describe('refusals known without a round trip (RateLimiter.knownRefusal)', () => {
  it('the in-memory limiter reads its own window: a refusal only once past the limit', async () => {
    let now = 0;
    const limiter = new CappedMemoryRateLimiter({ limit: 2, maxKeys: 10, now: () => now });
    expect(limiter.knownRefusal('a')).toBeUndefined();
    await limiter.consume('a');
    await limiter.consume('a');
    expect(limiter.knownRefusal('a')).toBeUndefined();
    await limiter.consume('a');
    expect(limiter.knownRefusal('a')).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetAt: 60_000,
    });
    expect(limiter.knownRefusal('b')).toBeUndefined();
    now = 60_000;
    expect(limiter.knownRefusal('a')).toBeUndefined();
  });

  it('a shared limiter remembers the refusals it answered until their windows reset', async () => {
    let now = 0;
    const backend = backendLimiter(2, () => now);
    const limiter = rememberingRefusals(backend.limiter, { maxKeys: 10, now: () => now });
    for (let i = 0; i < 2; i += 1) expect((await limiter.consume('a')).allowed).toBe(true);
    expect(limiter.knownRefusal?.('a')).toBeUndefined();
    const refused = await limiter.consume('a');
    expect(refused.allowed).toBe(false);
    expect(limiter.knownRefusal?.('a')).toEqual(refused);
    expect(limiter.knownRefusal?.('b')).toBeUndefined();
    expect(backend.calls()).toBe(3);
    now = 59_999;
    expect(limiter.knownRefusal?.('a')).toEqual(refused);
    now = 60_000;
    expect(limiter.knownRefusal?.('a')).toBeUndefined();
    expect((await limiter.consume('a')).allowed).toBe(true);
  });

  it('learns a refusal another process caused from its next answer, a peek included', async () => {
    const now = () => 0;
    const backend = backendLimiter(1, now);
    const here = rememberingRefusals(backend.limiter, { maxKeys: 10, now });
    const elsewhere = rememberingRefusals(backend.limiter, { maxKeys: 10, now });
    await elsewhere.consume('a');
    await elsewhere.consume('a');
    expect(elsewhere.knownRefusal?.('a')).toBeDefined();
    expect(here.knownRefusal?.('a')).toBeUndefined();
    expect((await here.peek('a'))?.allowed).toBe(false);
    expect(here.knownRefusal?.('a')).toBeDefined();
  });

  it('holds at most maxKeys refusals: forgetting one only costs the next call its round trip', async () => {
    const backend = backendLimiter(0, () => 0);
    const limiter = rememberingRefusals(backend.limiter, { maxKeys: 3, now: () => 0 });
    for (const key of ['a', 'b', 'c', 'd']) await limiter.consume(key);
    expect(['a', 'b', 'c', 'd'].map((key) => limiter.knownRefusal?.(key) !== undefined)).toEqual([
      false,
      true,
      true,
      true,
    ]);
    expect((await limiter.consume('a')).allowed).toBe(false);
    expect(limiter.knownRefusal?.('a')).toBeDefined();
  });
});
