import { createMemoryStore, type VisitBatch, type VisitStore } from '../../../core';
import { VisitCounter } from '../../../core/visits/visit-counter';
import { silentLogger } from '../../../core/ports/logger';

const DAY_MS = 86_400_000;
const clockAt = (ms: number) => ({ now: () => new Date(ms) });

/** A visit store over memory whose add() can be made to fail, before or after applying. */
function flakyVisits() {
  const inner = createMemoryStore().visits;
  const sent: VisitBatch[] = [];
  let failure: 'none' | 'before' | 'after' = 'none';
  const store: VisitStore = {
    add: async (batch) => {
      sent.push(batch);
      if (failure === 'before') throw new Error('store down');
      const applied = await inner.add(batch);
      if (failure === 'after') throw new Error('answer lost');
      return applied;
    },
    read: (...args) => inner.read(...args),
    totals: (ids) => inner.totals(ids),
  };
  return { store, sent, fail: (how: typeof failure) => (failure = how) };
}

function counterOn(store: VisitStore, options: { pendingMax?: number; at?: number } = {}) {
  const dropped: number[] = [];
  const counter = new VisitCounter({
    store,
    clock: clockAt(options.at ?? 20_000 * DAY_MS + 5_000),
    flushSeconds: 1,
    pendingMax: options.pendingMax ?? 100,
    logger: silentLogger,
    onDropped: (visits) => dropped.push(visits),
  });
  return { counter, dropped };
}

describe('VisitCounter', () => {
  it('gathers per link and UTC day, humans and bots apart, and sends them in one batch', async () => {
    const { store, sent } = flakyVisits();
    const { counter } = counterOn(store);
    counter.record(1, false);
    counter.record(1, false);
    counter.record(1, true);
    counter.record(2, true);
    expect(sent).toHaveLength(0);
    await counter.flush();
    expect(sent).toHaveLength(1);
    expect(await store.read(1, 20_000, 20_000)).toEqual([
      { linkId: 1, day: 20_000, humans: 2, bots: 1 },
    ]);
    expect(await store.totals([2])).toEqual(new Map([[2, { humans: 0, bots: 1 }]]));
    // Nothing gathered since: no empty batch.
    await counter.flush();
    expect(sent).toHaveLength(1);
  });

  it('sends a batch whose answer was lost again, and the store adds it once', async () => {
    const { store, sent, fail } = flakyVisits();
    const { counter } = counterOn(store);
    counter.record(1, false);
    fail('after');
    await counter.flush();
    fail('none');
    counter.record(1, false);
    await counter.flush();
    // The lost batch again (same seq), then the new one.
    expect(sent.map(({ seq }) => seq)).toEqual([1, 1, 2]);
    expect(await store.totals([1])).toEqual(new Map([[1, { humans: 2, bots: 0 }]]));
  });

  it('holds counts while the store is down, up to pendingMax link-days, dropping and counting the rest', async () => {
    const { store, fail } = flakyVisits();
    const { counter, dropped } = counterOn(store, { pendingMax: 2 });
    fail('before');
    counter.record(1, false);
    await counter.flush();
    counter.record(2, false);
    counter.record(2, true); // same link-day: held
    counter.record(3, false); // a third link-day: dropped
    expect(dropped).toEqual([1]);
    expect(counter.held).toBe(2);
    fail('none');
    await counter.flush();
    expect(counter.held).toBe(0);
    expect(await store.totals([1, 2, 3])).toEqual(
      new Map([
        [1, { humans: 1, bots: 0 }],
        [2, { humans: 1, bots: 1 }],
        [3, { humans: 0, bots: 0 }],
      ]),
    );
  });

  it('sends everything at close, and drops (counted) what the store still refuses', async () => {
    const { store, fail } = flakyVisits();
    const { counter } = counterOn(store);
    counter.record(5, false);
    await counter.close();
    expect(await store.totals([5])).toEqual(new Map([[5, { humans: 1, bots: 0 }]]));
    counter.record(5, false); // after close: not counted
    expect(counter.held).toBe(0);

    const other = counterOn(store);
    other.counter.record(6, true);
    other.counter.record(6, false);
    fail('before');
    await other.counter.close();
    expect(other.dropped).toEqual([2]);
  });

  it('flushes by itself every interval once started', async () => {
    jest.useFakeTimers();
    try {
      const { store, sent } = flakyVisits();
      const { counter } = counterOn(store);
      counter.start();
      counter.record(1, false);
      await jest.advanceTimersByTimeAsync(999);
      expect(sent).toHaveLength(0);
      await jest.advanceTimersByTimeAsync(1);
      expect(sent).toHaveLength(1);
      await counter.close();
    } finally {
      jest.useRealTimers();
    }
  });
});
