import {
  BackendUnavailableError,
  ErrorCode,
  type ResponseInfo,
  type ShortLink,
  type Store,
} from '../../../core';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { embeddedStores } from '../../support/embedded-stores';
import { heldCalls } from '../../support/held-url-guard';
import { manualClock } from '../../support/idempotency';

/**
 * A keyed create that runs past its claim's lease: paused (a frozen VM, SIGSTOP, CPU throttling),
 * or slowed down by a stage (a slow reputation lookup). One key never makes two links: a request
 * whose claim a retry took over stores nothing and answers as a retry would; a request that
 * merely runs long keeps its lease alive.
 */

/** Links the store holds (memory: `size`, LMDB: `count()`). */
function linkCount(store: Store): number {
  const links = store.links as unknown as { size?: number; count?: () => number };
  return links.size ?? links.count?.() ?? Number.NaN;
}

/** A keyed create of the fixture's default body; settles with its link or its failure. */
function keyedCreate(f: CoreFixture<Store>, key: string) {
  const response: ResponseInfo = {};
  const call = f.caller({ idempotencyKey: key, response }).links.create(f.body() as never);
  const settled = call.then(
    (link: ShortLink) => ({ link, code: 0, response }),
    (error: { code?: number }) => ({ link: undefined, code: error.code, response }),
  );
  return settled;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(embeddedStores('idempotency-lease'))(
  'a request paused past its lease (%s)',
  (_name, open) => {
    it('stores nothing once a retry has completed under the key, and answers the retry’s link', async () => {
      const clock = manualClock();
      const guard = heldCalls([0]);
      const store = await open();
      const f = await createTestCore({ store, clock, urlGuard: guard.guard });
      const paused = keyedCreate(f, 'paused-then-done');
      await guard.reached(1);
      clock.advanceSeconds(61);
      const retry = await keyedCreate(f, 'paused-then-done');
      expect([retry.code, retry.response.idempotentReplayed]).toEqual([0, undefined]);
      guard.release(0);
      const late = await paused;
      expect([late.code, late.link, late.response.idempotentReplayed]).toEqual([
        0,
        retry.link,
        true,
      ]);
      expect(linkCount(store)).toBe(1);
    });

    it('stores nothing while the retry still runs, and answers 26 like a retry would', async () => {
      const clock = manualClock();
      const guard = heldCalls([0, 1]);
      const store = await open();
      const f = await createTestCore({ store, clock, urlGuard: guard.guard });
      const paused = keyedCreate(f, 'paused-both');
      await guard.reached(1);
      clock.advanceSeconds(61);
      const retry = keyedCreate(f, 'paused-both');
      await guard.reached(2);
      guard.release(0);
      const late = await paused;
      expect([late.code, late.response.retryAfterSeconds]).toEqual([
        ErrorCode.IDEMPOTENCY_KEY_IN_USE,
        1,
      ]);
      expect(linkCount(store)).toBe(0);
      guard.release(1);
      expect((await retry).code).toBe(0);
      expect(linkCount(store)).toBe(1);
      const again = await keyedCreate(f, 'paused-both');
      expect([again.link, again.response.idempotentReplayed]).toEqual([(await retry).link, true]);
    });

    it('answers 26 and leaves the key free when the retry that took it over failed (23)', async () => {
      const clock = manualClock();
      const down = new BackendUnavailableError('reputation service down');
      const guard = heldCalls([0, 1], new Map([[1, down]]));
      const store = await open();
      const f = await createTestCore({ store, clock, urlGuard: guard.guard });
      const paused = keyedCreate(f, 'paused-released');
      await guard.reached(1);
      clock.advanceSeconds(61);
      const retry = keyedCreate(f, 'paused-released');
      await guard.reached(2);
      guard.release(1);
      expect((await retry).code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
      guard.release(0);
      expect((await paused).code).toBe(ErrorCode.IDEMPOTENCY_KEY_IN_USE);
      expect(linkCount(store)).toBe(0);
      // The client's next retry, as 26 asks, runs and creates the one link.
      const next = await keyedCreate(f, 'paused-released');
      expect([next.code, next.response.idempotentReplayed]).toEqual([0, undefined]);
      expect(linkCount(store)).toBe(1);
    });

    it('completes as usual when its lease ran out but nobody claimed the key meanwhile', async () => {
      const clock = manualClock();
      const guard = heldCalls([0]);
      const store = await open();
      const f = await createTestCore({ store, clock, urlGuard: guard.guard });
      const paused = keyedCreate(f, 'paused-alone');
      await guard.reached(1);
      clock.advanceSeconds(3600);
      guard.release(0);
      const done = await paused;
      expect([done.code, done.response.idempotentReplayed]).toEqual([0, undefined]);
      const again = await keyedCreate(f, 'paused-alone');
      expect([again.link, again.response.idempotentReplayed]).toEqual([done.link, true]);
      expect(linkCount(store)).toBe(1);
    });
  },
);

describe.each(embeddedStores('idempotency-renewal'))(
  'a slow request keeps its lease (%s)',
  (_name, open) => {
    it('renews the lease while it runs: a retry answers 26 long past the first lease, one link', async () => {
      const guard = heldCalls([0]);
      const store = await open();
      const renew = jest.spyOn(store.idempotency, 'renew');
      // A lease of 1 s, renewed every third of a second; the request is held for over 3 s.
      const f = await createTestCore({ store, idempotencyLeaseSeconds: 1, urlGuard: guard.guard });
      const slow = keyedCreate(f, 'slow');
      await guard.reached(1);
      for (let i = 0; i < 4; i += 1) {
        await sleep(800);
        const retry = await keyedCreate(f, 'slow');
        expect([retry.code, retry.response.retryAfterSeconds]).toEqual([
          ErrorCode.IDEMPOTENCY_KEY_IN_USE,
          1,
        ]);
      }
      expect(renew.mock.calls.length).toBeGreaterThanOrEqual(4);
      guard.release(0);
      const done = await slow;
      expect(done.code).toBe(0);
      expect(linkCount(store)).toBe(1);
      // Renewals stop with the request.
      const renewals = renew.mock.calls.length;
      await sleep(700);
      expect(renew.mock.calls.length).toBe(renewals);
      expect((await keyedCreate(f, 'slow')).response.idempotentReplayed).toBe(true);
    });

    it('stops renewing a lease another request has taken over', async () => {
      const clock = manualClock();
      const guard = heldCalls([0, 1]);
      const store = await open();
      const renew = jest.spyOn(store.idempotency, 'renew');
      const f = await createTestCore({
        store,
        clock,
        idempotencyLeaseSeconds: 3,
        urlGuard: guard.guard,
      });
      const paused = keyedCreate(f, 'taken');
      await guard.reached(1);
      // As a process paused longer than its lease: the clock jumps past it before any renewal, and
      // a retry claims the key.
      clock.advanceSeconds(10);
      const retry = keyedCreate(f, 'taken');
      await guard.reached(2);
      const first = await firstRenewal(renew);
      // The paused request's renewal found the key another's, and it renews no more.
      expect(first).toEqual({ held: false, owner: expect.any(String) as string });
      await sleep(1_300);
      expect(renew.mock.calls.filter(([, owner]) => owner === first.owner)).toHaveLength(1);
      guard.release(1);
      guard.release(0);
      expect((await retry).code).toBe(0);
      expect((await paused).response.idempotentReplayed).toBe(true);
      expect(linkCount(store)).toBe(1);
    });
  },
);

/** The first renewal's owner and answer, once it has answered. */
async function firstRenewal(renew: jest.SpiedFunction<Store['idempotency']['renew']>) {
  while (renew.mock.calls.length === 0) await sleep(50);
  const [, owner] = renew.mock.calls[0]!;
  const held = await (renew.mock.results[0]!.value as Promise<boolean>);
  return { held, owner };
}
