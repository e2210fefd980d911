import { parseDurationMs } from '../../core/url-guard/safe-browsing/duration';
import { ExpiringCache } from '../../core/url-guard/safe-browsing/expiring-cache';
import { readLookupAnswer } from '../../core/url-guard/safe-browsing/lookup-protocol';

describe('reputation lookup helpers', () => {
  it('reads protobuf JSON durations', () => {
    expect(parseDurationMs('300s')).toBe(300_000);
    expect(parseDurationMs('1.5s')).toBe(1_500);
    expect(parseDurationMs('0.000000001s')).toBe(0);
    expect(parseDurationMs('5m')).toBeNull();
    expect(parseDurationMs(300)).toBeNull();
  });

  it('takes the shortest cacheDuration of several matches, and reads {} as clean', () => {
    expect(
      readLookupAnswer({
        matches: [
          { threatType: 'MALWARE', cacheDuration: '300s' },
          { threatType: 'SOCIAL_ENGINEERING', cacheDuration: '60s' },
        ],
      }),
    ).toEqual({ kind: 'threat', threatType: 'MALWARE', cacheMs: 60_000 });
    expect(readLookupAnswer({})).toEqual({ kind: 'clean' });
    expect(readLookupAnswer({ matches: [] })).toEqual({ kind: 'clean' });
    expect(readLookupAnswer('nope')).toBeNull();
  });

  it('expires entries and drops the oldest when full', () => {
    let now = 0;
    const cache = new ExpiringCache<string>(2, () => now);
    cache.set('a', 'A', 1_000);
    cache.set('b', 'B', 5_000);
    cache.set('c', 'C', 5_000);
    expect(cache.get('a')).toBeUndefined(); // dropped to make room
    expect(cache.get('b')).toBe('B');
    now = 5_000;
    expect(cache.get('b')).toBeUndefined(); // expired
    cache.set('d', 'D', 0); // a zero lifetime is not stored
    expect(cache.get('d')).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
