import { redirectCaching, type Clock, type LinkView } from '../../../core';

/** How long a redirect may be kept by the follower: the rule REST renders as Cache-Control. */

const NOW = Date.parse('2027-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

/** A clock that counts its reads. */
function clock() {
  let reads = 0;
  const c: Clock & { reads(): number } = {
    now: () => {
      reads += 1;
      return new Date(NOW);
    },
    reads: () => reads,
  };
  return c;
}

type Limits = Pick<LinkView, 'redirect_type' | 'expires_at' | 'max_visits'>;
const caching = (link: Limits, maxAge = 90) => redirectCaching(link, clock(), maxAge);

describe('redirectCaching', () => {
  it.each([301, 308] as const)('keeps a %d for the configured max-age', (status) => {
    expect(caching({ redirect_type: status })).toEqual({ maxAgeSeconds: 90 });
    expect(caching({ redirect_type: status }, 0)).toEqual({ maxAgeSeconds: 0 });
  });

  it.each([302, 303, 307] as const)('never keeps a %d, whatever its limits', (status) => {
    expect(caching({ redirect_type: status })).toBe('no-store');
    expect(caching({ redirect_type: status, expires_at: at(3_600_000) })).toBe('no-store');
  });

  it('never keeps a link with max_visits: every redirect must be counted', () => {
    expect(caching({ redirect_type: 301, max_visits: 1_000_000_000 })).toBe('no-store');
    expect(caching({ redirect_type: 308, max_visits: 5, expires_at: at(3_600_000) })).toBe(
      'no-store',
    );
  });

  it.each([
    ['an hour away: the configured max-age', 3_600_000, 90],
    ['exactly the max-age away', 90_000, 90],
    ['30.999 s away: 30 (floored)', 30_999, 30],
    ['1 s away', 1_000, 1],
    ['0.5 s away: 0', 500, 0],
    ['already past (a follow that raced the expiry): 0', -5_000, 0],
  ])('never keeps a permanent redirect past its expiry: %s', (_label, ms, seconds) => {
    expect(caching({ redirect_type: 301, expires_at: at(ms) })).toEqual({ maxAgeSeconds: seconds });
    expect(caching({ redirect_type: 308, expires_at: at(ms) })).toEqual({ maxAgeSeconds: seconds });
  });

  it('reads the clock only for a permanent redirect with an expiry', () => {
    const c = clock();
    redirectCaching({ redirect_type: 301 }, c, 90);
    redirectCaching({ redirect_type: 302, expires_at: at(1000) }, c, 90);
    redirectCaching({ redirect_type: 301, max_visits: 3, expires_at: at(1000) }, c, 90);
    expect(c.reads()).toBe(0);
    redirectCaching({ redirect_type: 301, expires_at: at(1000) }, c, 90);
    expect(c.reads()).toBe(1);
  });
});
