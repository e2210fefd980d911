import { loadConfig } from '../../core/runtime';
import { createLimitersFromConfig } from '../../core/runtime/limiters-from-config';
import { captureLogs } from '../support/log-capture';
import { freePort } from '../support/free-port';

describe('the insurance limiter of failed token checks while Redis is away', () => {
  it('holds at most AUTH_FAILURE_TRACKED_ADDRESSES addresses, forgetting the least recently counted', async () => {
    // Nothing listens on the port: the limiters start on the insurance limiter.
    const port = await freePort();
    const logs = captureLogs();
    const config = loadConfig({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      AUTH_FAILURES_PER_MINUTE: '2',
      AUTH_FAILURE_TRACKED_ADDRESSES: '2',
    });
    const limiters = await createLimitersFromConfig(config, logs.logger);
    try {
      expect(limiters.backendState?.()).toBe('fallback');
      const { authFailures } = limiters;
      const allowed = async (address: string) => (await authFailures.consume(address)).allowed;

      // 198.51.100.1 uses up its budget, and stays refused while it is among the last two.
      expect([await allowed('198.51.100.1'), await allowed('198.51.100.1')]).toEqual([true, true]);
      expect(await authFailures.consume('198.51.100.1')).toMatchObject({
        allowed: false,
        limit: 2,
        remaining: 0,
      });
      expect(await allowed('198.51.100.2')).toBe(true);
      expect(await allowed('198.51.100.1')).toBe(false);

      // Two other addresses push it out: a flood of addresses cannot grow the process's memory,
      // and forgetting only forgives (a fresh window).
      expect(await allowed('198.51.100.3')).toBe(true);
      expect(await allowed('198.51.100.4')).toBe(true);
      expect(await authFailures.peek('198.51.100.1')).toBeNull();
      expect(await authFailures.consume('198.51.100.1')).toMatchObject({
        allowed: true,
        remaining: 1,
      });
    } finally {
      await limiters.close();
    }
  });
});
