import { MAX_ID_BLOCK_SIZE } from '../../../core/adapters/mongodb/block-id-allocator';
import { ConfigError, loadConfig } from '../../../core/runtime';
import { MAX_WORKERS, workerCount } from '../../../core/runtime/config';
import { MAX_IN_PROCESS_ENTRIES, MAX_TIMER_MS } from '../../../core/runtime/settings';
import { loadHttpConfig } from '../../../gateway-http/http-config';

const SECONDS_TIMER_MAX = Math.floor(MAX_TIMER_MS / 1000);

/**
 * Settings whose value feeds a timer or sizes an in-process table have an upper bound: a larger
 * value would start a service that then misbehaves (a timer that fires at once, an allocation that
 * fails with a message naming nothing), so it stops start-up naming the variable instead.
 */
const BOUNDED: [name: string, most: number][] = [
  ['SHUTDOWN_TIMEOUT_MS', MAX_TIMER_MS],
  ['URL_BLOCKLIST_POLL_MS', MAX_TIMER_MS],
  ['SAFE_BROWSING_TIMEOUT_MS', MAX_TIMER_MS],
  ['SAFE_BROWSING_MAX_WAIT_MS', MAX_TIMER_MS],
  ['LINK_DOMAINS_REFRESH_SECONDS', SECONDS_TIMER_MAX],
  ['LINK_CACHE_SIZE', MAX_IN_PROCESS_ENTRIES],
  ['IDENTITY_CACHE_SIZE', MAX_IN_PROCESS_ENTRIES],
  ['AUTH_FAILURE_TRACKED_ADDRESSES', MAX_IN_PROCESS_ENTRIES],
  ['SAFE_BROWSING_CACHE_ENTRIES', MAX_IN_PROCESS_ENTRIES],
  ['ID_BLOCK_SIZE', MAX_ID_BLOCK_SIZE],
];

describe('upper bounds of the settings', () => {
  it.each(BOUNDED)('%s takes %d and refuses one more, naming itself', (name, most) => {
    expect(loadConfig({ [name]: String(most) })[name as keyof ReturnType<typeof loadConfig>]).toBe(
      most,
    );
    const refused = () => loadConfig({ [name]: String(most + 1) });
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(new RegExp(`${name}: must be at most ${most} \\(`));
  });

  it('bounds timers by what a Node.js timer keeps (2^31 - 1 ms)', () => {
    expect(MAX_TIMER_MS).toBe(2147483647);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '3000000000' })).toThrow(
      /SHUTDOWN_TIMEOUT_MS: must be at most 2147483647 \(a Node\.js timer waits at most/,
    );
  });

  it('names the variable for a cache size that could not be allocated', () => {
    expect(() => loadConfig({ LINK_CACHE_SIZE: '5000000000' })).toThrow(
      /LINK_CACHE_SIZE: must be at most 10000000 \(entries are allocated up front/,
    );
    expect(loadConfig({ LINK_CACHE_SIZE: '0' }).LINK_CACHE_SIZE).toBe(0);
  });

  it("bounds REDIRECT_CACHE_MAX_AGE by RFC 9111's largest delta-seconds", () => {
    expect(loadHttpConfig({ REDIRECT_CACHE_MAX_AGE: String(2 ** 31) }).REDIRECT_CACHE_MAX_AGE).toBe(
      2 ** 31,
    );
    expect(() => loadHttpConfig({ REDIRECT_CACHE_MAX_AGE: String(2 ** 31 + 1) })).toThrow(
      /REDIRECT_CACHE_MAX_AGE: must be at most 2147483648/,
    );
  });

  it('says what WORKERS takes when it is neither a number nor auto', () => {
    for (const value of ['abc', '0', '1.5', '-2']) {
      expect(() => loadConfig({ WORKERS: value })).toThrow(
        'invalid configuration: WORKERS: must be a whole number of at least 1, or auto',
      );
    }
    expect(loadConfig({ WORKERS: '3' }).WORKERS).toBe(3);
    expect(loadConfig({ WORKERS: '64' }).WORKERS).toBe(64);
    for (const value of ['65', '1000', '99999999999999999999']) {
      expect(() => loadConfig({ WORKERS: value })).toThrow('WORKERS: must be at most 64');
    }
  });
});

describe('ID_BLOCK_SIZE', () => {
  it('defaults to 1000 and takes a whole number from 1', () => {
    expect(loadConfig({}).ID_BLOCK_SIZE).toBe(1000);
    expect(loadConfig({ ID_BLOCK_SIZE: '1' }).ID_BLOCK_SIZE).toBe(1);
    for (const value of ['0', '-5', '2.5', 'many']) {
      expect(() => loadConfig({ ID_BLOCK_SIZE: value })).toThrow(/ID_BLOCK_SIZE: /);
    }
    expect(() => loadConfig({ ID_BLOCK_SIZE: '' })).toThrow(/ID_BLOCK_SIZE: is set but empty/);
  });
});

describe('WORKERS=auto on a host with more cores than MAX_WORKERS', () => {
  it('gives MAX_WORKERS rather than refusing the start', () => {
    expect(workerCount('auto', 192)).toBe(MAX_WORKERS);
    expect(workerCount('auto', 2)).toBe(2);
    expect(workerCount('7', 192)).toBe(7);
  });
});
