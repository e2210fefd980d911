import { createCore } from '../../core';
import { MAX_ALIAS_ATTEMPTS } from '../../core/core-options';

/**
 * createCore refuses, when it is built, a number no core can work with, instead of a core that
 * quietly misbehaves (a TTL of -5 recorded every answer already expired, so a retry with the same
 * Idempotency-Key created a second link; no alias attempts failed every generated alias).
 */
describe('createCore: the numbers an embedder gives', () => {
  it.each([
    ['idempotencyTtlSeconds', -5],
    ['idempotencyTtlSeconds', 0],
    ['idempotencyTtlSeconds', 'abc'],
    ['idempotencyTtlSeconds', Number.NaN],
    ['idempotencyTtlSeconds', 1e12],
    ['idempotencyLeaseSeconds', -1],
    ['idempotencyLeaseSeconds', Number.POSITIVE_INFINITY],
    ['linkDomainsRefreshSeconds', 0],
    ['linkDomainsRefreshSeconds', '10'],
    ['maxAliasAttempts', 0],
    ['maxAliasAttempts', -1],
    ['maxAliasAttempts', 2.5],
    ['maxAliasAttempts', MAX_ALIAS_ATTEMPTS + 1],
  ])('refuses %s = %p with a RangeError naming it', (option, value) => {
    const build = () => createCore({ [option]: value });
    expect(build).toThrow(RangeError);
    expect(build).toThrow(new RegExp(`^createCore: ${option} `));
  });

  it('accepts the bounds and fractions of a second for the TTL and the lease', () => {
    expect(() =>
      createCore({
        idempotencyTtlSeconds: 10 * 365 * 86_400,
        idempotencyLeaseSeconds: 0.5,
        maxAliasAttempts: MAX_ALIAS_ATTEMPTS,
      }),
    ).not.toThrow();
    expect(() => createCore({ idempotencyTtlSeconds: 0.25, maxAliasAttempts: 1 })).not.toThrow();
    expect(() => createCore()).not.toThrow();
  });

  it('names every refused option at once', () => {
    expect(() => createCore({ idempotencyTtlSeconds: -1, maxAliasAttempts: 0 })).toThrow(
      'createCore: maxAliasAttempts must be a whole number from 1 to 1000 (given 0); ' +
        'idempotencyTtlSeconds must be a number of seconds above 0 and at most 315360000 (ten years) (given -1)',
    );
  });
});
