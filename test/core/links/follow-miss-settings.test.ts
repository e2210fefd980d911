import { silentLogger } from '../../../core';
import {
  ConfigError,
  createLimitersFromConfig,
  createRuntime,
  loadConfig,
} from '../../../core/runtime';

describe('FOLLOW_MISSES_PER_MINUTE', () => {
  it('is 60 unless set; 0 turns the budget off; anything but a whole number is refused', () => {
    expect(loadConfig({}).FOLLOW_MISSES_PER_MINUTE).toBe(60);
    expect(loadConfig({ FOLLOW_MISSES_PER_MINUTE: '30' }).FOLLOW_MISSES_PER_MINUTE).toBe(30);
    expect(loadConfig({ FOLLOW_MISSES_PER_MINUTE: '0' }).FOLLOW_MISSES_PER_MINUTE).toBe(0);
    for (const value of ['-1', '2.5', 'many', '']) {
      expect(() => loadConfig({ FOLLOW_MISSES_PER_MINUTE: value })).toThrow(ConfigError);
      expect(() => loadConfig({ FOLLOW_MISSES_PER_MINUTE: value })).toThrow(
        /FOLLOW_MISSES_PER_MINUTE/,
      );
    }
  });

  it('counts in the process, its table bounded by AUTH_FAILURE_TRACKED_ADDRESSES; 0: no limiter', async () => {
    const config = loadConfig({
      DATA_DIR: ':memory:',
      FOLLOW_MISSES_PER_MINUTE: '7',
      AUTH_FAILURE_TRACKED_ADDRESSES: '2',
    });
    const limiters = await createLimitersFromConfig(config, silentLogger);
    const followMisses = limiters.followMisses!;
    expect(followMisses.limit).toBe(7);
    const allowed = async (key: string) => (await followMisses.consume(key)).allowed;
    for (let i = 0; i < 7; i += 1) await followMisses.consume('a');
    expect(await allowed('a')).toBe(false);
    // Two other keys counted since: 'a' is forgotten (the table holds two), its budget whole again.
    for (const key of ['b', 'c']) await followMisses.consume(key);
    expect(await allowed('a')).toBe(true);
    const off = await createLimitersFromConfig(
      loadConfig({ DATA_DIR: ':memory:', FOLLOW_MISSES_PER_MINUTE: '0' }),
      silentLogger,
    );
    expect(off.followMisses).toBeNull();
  });

  it('reaches the core the runtime builds; with 0 the core has none', async () => {
    const runtime = await createRuntime(
      loadConfig({ DATA_DIR: ':memory:', METRICS_PORT: '0', FOLLOW_MISSES_PER_MINUTE: '2' }),
    );
    try {
      expect(runtime.core.deps.followMissLimiter?.limit).toBe(2);
      expect(runtime.core.deps.followMissLimiter?.knownRefusal).toBeDefined();
    } finally {
      await runtime.close();
    }
    const off = await createRuntime(
      loadConfig({ DATA_DIR: ':memory:', METRICS_PORT: '0', FOLLOW_MISSES_PER_MINUTE: '0' }),
    );
    try {
      expect(off.core.deps.followMissLimiter).toBeNull();
    } finally {
      await off.close();
    }
  });
});
