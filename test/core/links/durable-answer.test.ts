import { BackendUnavailableError, createCore, type Store } from '../../../core';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { failureOf } from '../../support/failures';

/**
 * A create answers only once its writes would survive a power loss: it waits for Store.flush,
 * exactly once (under an idempotency key, once after the answer is recorded, covering the link
 * and the record alike). Here the flush is a promise the test settles.
 */
function heldFlushes(store: Store) {
  const pending: Array<() => void> = [];
  let calls = 0;
  const wrapped: Store = {
    ...store,
    flush: () => {
      calls += 1;
      return new Promise<void>((resolve) => pending.push(resolve));
    },
  };
  return {
    store: wrapped,
    calls: () => calls,
    reportAll: () => pending.splice(0).forEach((report) => report()),
  };
}

async function heldCore() {
  const f = await createTestCore();
  const held = heldFlushes(f.store);
  const core = createCore({ ...f.core.deps, store: held.store });
  return { f, held, core };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe.each([
  ['without an idempotency key', undefined],
  ['with an idempotency key', 'durable-key-1'],
])('links.create %s', (_name, idempotencyKey) => {
  it('answers after one flush, though the link is stored before it', async (): Promise<void> => {
    const { f, held, core } = await heldCore();
    let answered = false;
    const creating = core
      .createCaller({ authorization: `Bearer ${f.token}`, idempotencyKey })
      .links.create(f.body() as never)
      .then((link) => {
        answered = true;
        return link;
      });
    await tick();
    expect(f.linkCount()).toBe(1);
    expect(held.calls()).toBe(1);
    expect(answered).toBe(false);
    held.reportAll();
    const link = await creating;
    expect(link.id).toBe(1);
    expect(held.calls()).toBe(1);
  });
});

describe('links.create when the store cannot confirm the flush', () => {
  const failingFlush = (store: Store): Store => ({
    ...store,
    flush: () => Promise.reject(new BackendUnavailableError('no fsync report')),
  });

  it('answers 23 without a key', async () => {
    const f = await createTestCore();
    const core = createCore({ ...f.core.deps, store: failingFlush(f.store) });
    const error = await failureOf(
      core.createCaller({ authorization: `Bearer ${f.token}` }).links.create(f.body() as never),
    );
    expect(error.reason).toBe('BACKEND_UNAVAILABLE');
  });

  it('answers 23 under a key, and a retry replays the recorded success', async () => {
    const f: CoreFixture = await createTestCore();
    const failing = createCore({ ...f.core.deps, store: failingFlush(f.store) });
    const request = { authorization: `Bearer ${f.token}`, idempotencyKey: 'durable-key-2' };
    expect(
      (await failureOf(failing.createCaller(request).links.create(f.body() as never))).reason,
    ).toBe('BACKEND_UNAVAILABLE');
    const response = { idempotentReplayed: false };
    const replayed = await f.core
      .createCaller({ ...request, response })
      .links.create(f.body() as never);
    expect(replayed.id).toBe(1);
    expect(response.idempotentReplayed).toBe(true);
    expect(f.linkCount()).toBe(1);
  });
});

describe('a replay under an idempotency key', () => {
  it('answers only once the recorded answer it replays is confirmed on disk', async () => {
    const { f, held, core } = await heldCore();
    const request = { authorization: `Bearer ${f.token}`, idempotencyKey: 'durable-key-3' };
    let firstAnswered = false;
    const first = core
      .createCaller(request)
      .links.create(f.body() as never)
      .then((link) => {
        firstAnswered = true;
        return link;
      });
    await tick();
    expect(f.linkCount()).toBe(1);
    expect(firstAnswered).toBe(false);
    // A retry while the first request still waits for its fsync: the record is completed, but a
    // power loss now would lose it and the link, so the replay must not answer before the sync.
    let replayAnswered = false;
    const replay = core
      .createCaller(request)
      .links.create(f.body() as never)
      .then((link) => {
        replayAnswered = true;
        return link;
      });
    await tick();
    expect(replayAnswered).toBe(false);
    held.reportAll();
    const [created, replayed] = await Promise.all([first, replay]);
    expect(replayed).toEqual(created);
    expect(f.linkCount()).toBe(1);
  });
});
