import {
  createMemoryStore,
  ShortlinkMetrics,
  withCaches,
  type ChangeWatchStatus,
} from '../../core';
import { MetricsSnapshot, promtoolLints } from '../support/exposition';

const lints = promtoolLints();

/** A memory store whose two change watches report what the test sets. */
function watchedStore() {
  const states: Record<'link' | 'identity', ChangeWatchStatus> = {
    link: { state: 'open' },
    identity: { state: 'open' },
  };
  const watch = (stream: 'link' | 'identity') => ({
    status: () => states[stream],
    close: () => Promise.resolve(),
  });
  const store = withCaches(
    {
      ...createMemoryStore(),
      watchLinkChanges: () => watch('link'),
      watchIdentityChanges: () => watch('identity'),
    },
    { linkCacheSize: 10, identityTtlSeconds: 10 },
  );
  return { store, states };
}

describe('change stream metrics', () => {
  it('report each stream’s state and the lag of its last change', async () => {
    const { store, states } = watchedStore();
    const metrics = new ShortlinkMetrics();
    metrics.followChangeStreams(store.changeWatches);
    states.link = { state: 'open', lagSeconds: 0.25 };
    states.identity = { state: 'failed', lagSeconds: 3 };
    const snapshot = await MetricsSnapshot.of(metrics.registry);
    const state = (stream: string, s: string) =>
      snapshot.value('shortlink_change_stream_state', { stream, state: s });
    expect([state('link', 'open'), state('link', 'failed'), state('link', 'unavailable')]).toEqual([
      1, 0, 0,
    ]);
    expect(state('identity', 'failed')).toBe(1);
    expect(snapshot.value('shortlink_change_stream_lag_seconds', { stream: 'link' })).toBe(0.25);
    expect(snapshot.value('shortlink_change_stream_lag_seconds', { stream: 'identity' })).toBe(3);
    lints.add('the change stream metrics', await metrics.registry.metrics());
    await store.close();
  });
});

lints.declareLintTest(1);
