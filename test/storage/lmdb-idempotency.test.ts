import { join } from 'node:path';
import {
  createLmdbStore,
  FORMAT_VERSION,
  META_KEYS,
  type LmdbStore,
} from '../../core/adapters/lmdb';
import type { StoredIdempotencyRecord } from '../../core/adapters/lmdb/databases';
import type { CompletedRecord, LinkRecord, RunningRecord } from '../../core';
import { createTestCore } from '../support/core-fixture';
import { LmdbIdempotencyStore } from '../../core/adapters/lmdb/lmdb-idempotency-store';
import { formatVersionIn, openRawDatabases } from '../support/raw-lmdb';
import { captureLogs } from '../support/log-capture';
import { tempDirs } from '../support/temp-dirs';
import { insertNew, newLink } from './fixtures';

/**
 * What the LMDB adapter adds to the storage contract for idempotency records: its sweep, and a
 * keyed link written with its recorded answer in one transaction.
 */
const dirs = tempDirs('lmdb-idempotency');
let store: LmdbStore;

beforeEach(async () => {
  store = await createLmdbStore({ dataDir: join(await dirs.make(), 'data') });
});
afterEach(() => store.close());
afterAll(() => dirs.removeAll());

const T0 = new Date('2099-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const running = (owner: string, seconds: number): RunningRecord => ({
  state: 'running',
  owner,
  fingerprint: 'f'.repeat(64),
  expiresAt: at(seconds),
});
/** A completed record living to `seconds`, answering `body`. */
const completed = (seconds: number, body = '{"id":1}'): CompletedRecord => ({
  state: 'completed',
  fingerprint: 'f'.repeat(64),
  outcome: { code: 0, body },
  expiresAt: at(seconds),
});

describe('LMDB idempotency records: the sweep', () => {
  it('removes exactly the records expired at the sweep time, completed or running', async () => {
    const { idempotency } = store;
    await idempotency.claim({ userId: 'u', key: 'short' }, running('a', 10), T0);
    await idempotency.claim({ userId: 'u', key: 'long' }, running('b', 60), T0);
    await idempotency.claim({ userId: 'u', key: 'done' }, running('c', 20), T0);
    await idempotency.complete({ userId: 'u', key: 'done' }, 'c', completed(40));
    expect(idempotency.count()).toBe(3);
    await idempotency.sweep(at(10));
    expect(idempotency.count()).toBe(2);
    // 'done' was claimed with a lease to 20 s; completed, it lives to 40 s.
    await idempotency.sweep(at(30));
    expect(idempotency.count()).toBe(2);
    await idempotency.sweep(at(40));
    expect(idempotency.count()).toBe(1);
    await expect(
      idempotency.claim({ userId: 'u', key: 'long' }, running('x', 120), at(41)),
    ).resolves.toMatchObject({ claimed: false, existing: { owner: 'b' } });
    await idempotency.sweep(at(60));
    expect(idempotency.count()).toBe(0);
  });

  it('sweeps a record claimed again after expiry and then completed, once it expires', async () => {
    const { idempotency } = store;
    const scope = { userId: 'u', key: 'again' };
    await idempotency.claim(scope, running('first', 10), T0);
    await expect(idempotency.claim(scope, running('second', 30), at(20))).resolves.toEqual({
      claimed: true,
    });
    await idempotency.complete(scope, 'second', completed(100, '{"id":2}'));
    // The first claim's lease has ended and the record lives to 100 s: the sweep at 50 s must
    // keep the record.
    await idempotency.sweep(at(50));
    expect(idempotency.count()).toBe(1);
    await idempotency.sweep(at(99));
    expect(idempotency.count()).toBe(1);
    await idempotency.sweep(at(100));
    expect(idempotency.count()).toBe(0);
  });

  it('keeps a record completed again after an earlier one expired, past the earlier expiry', async () => {
    const { idempotency } = store;
    const scope = { userId: 'u', key: 'twice' };
    await idempotency.claim(scope, running('first', 10), T0);
    await idempotency.complete(scope, 'first', completed(20, '{"id":1}'));
    // Expired at 20 s and not yet swept: claimed and completed again, to live to 200 s.
    await idempotency.claim(scope, running('second', 100), at(30));
    await idempotency.complete(scope, 'second', completed(200, '{"id":2}'));
    // The first record's expiry entry (20 s) is due: the sweep must keep the second record.
    await idempotency.sweep(at(50));
    expect(idempotency.count()).toBe(1);
    await expect(idempotency.claim(scope, running('third', 300), at(60))).resolves.toMatchObject({
      claimed: false,
      existing: { state: 'completed', outcome: { body: '{"id":2}' } },
    });
    await idempotency.sweep(at(200));
    expect(idempotency.count()).toBe(0);
  });

  it('removes a completed record at its own expiry, before its lease would have ended', async () => {
    // IDEMPOTENCY_TTL_SECONDS below the lease: the record's own expiry counts, not the lease.
    const { idempotency } = store;
    const scope = { userId: 'u', key: 'brief' };
    await idempotency.claim(scope, running('owner', 60), T0);
    await idempotency.complete(scope, 'owner', completed(5));
    await idempotency.sweep(at(4));
    expect(idempotency.count()).toBe(1);
    await idempotency.sweep(at(5));
    expect(idempotency.count()).toBe(0);
  });

  it('keeps the expiry index in step when a record is replaced, completed or released', async () => {
    const { idempotency } = store;
    const scope = { userId: 'u', key: 'k' };
    await idempotency.claim(scope, running('first', 10), T0);
    // Expired and claimed again with a later lease: a sweep must not remove the new claim.
    await idempotency.claim(scope, running('second', 100), at(10));
    await idempotency.sweep(at(50));
    await expect(idempotency.claim(scope, running('third', 200), at(50))).resolves.toMatchObject({
      claimed: false,
      existing: { owner: 'second' },
    });
    await idempotency.release(scope, 'second');
    expect(idempotency.count()).toBe(0);
    await idempotency.sweep(at(1000));
    expect(idempotency.count()).toBe(0);
  });

  it('keeps a completed record until its own expiry, past its running record’s lease', async () => {
    const { idempotency } = store;
    const scope = { userId: 'u', key: 'done' };
    await idempotency.claim(scope, running('owner', 10), T0);
    await idempotency.complete(scope, 'owner', completed(100));
    // Past the lease's end: the completed record lives on, to its own expiry.
    await idempotency.sweep(at(50));
    expect(idempotency.count()).toBe(1);
    await expect(idempotency.claim(scope, running('retry', 200), at(50))).resolves.toMatchObject({
      claimed: false,
      existing: { state: 'completed', outcome: { code: 0, body: '{"id":1}' } },
    });
    await idempotency.sweep(at(100));
    expect(idempotency.count()).toBe(0);
  });

  it('sweeps from claims at most once a minute of the caller’s clock', async () => {
    const { idempotency } = store;
    await idempotency.claim({ userId: 'u', key: 'a' }, running('a', 5), T0);
    await idempotency.idle(); // the first claim's sweep (a claim starts none while one runs)
    await idempotency.claim({ userId: 'u', key: 'b' }, running('b', 5), at(30));
    expect(idempotency.count()).toBe(2); // 'a' expired at 5 s, but no sweep was due
    await idempotency.claim({ userId: 'u', key: 'c' }, running('c', 500), at(61));
    await idempotency.idle(); // the sweep runs beside the claim
    expect(idempotency.count()).toBe(1);
  });

  it('answers a claim without waiting for the sweep it starts', async () => {
    const { idempotency } = store;
    let finish = () => {};
    const sweep = jest
      .spyOn(idempotency, 'sweep')
      .mockReturnValue(new Promise<void>((resolve) => (finish = resolve)));
    try {
      await expect(
        idempotency.claim({ userId: 'u', key: 'k' }, running('k', 100), T0),
      ).resolves.toEqual({ claimed: true });
      expect(sweep).toHaveBeenCalledTimes(1);
      // While that sweep runs, a due claim starts no second one.
      await idempotency.claim({ userId: 'u', key: 'l' }, running('l', 100), at(120));
      expect(sweep).toHaveBeenCalledTimes(1);
    } finally {
      finish();
      await idempotency.idle();
      sweep.mockRestore();
    }
  });

  it('logs a failed sweep, answers the claim, and sweeps again at the next due claim', async () => {
    const logs = captureLogs();
    const own = await createLmdbStore({
      dataDir: join(await dirs.make(), 'data'),
      logger: logs.logger,
    });
    const sweep = jest
      .spyOn(own.idempotency, 'sweep')
      .mockRejectedValueOnce(new Error('MDB_PANIC: a stand-in failure'));
    try {
      await expect(
        own.idempotency.claim({ userId: 'u', key: 'k' }, running('k', 5), T0),
      ).resolves.toEqual({ claimed: true });
      await own.idempotency.idle();
      const failed = logs.records().filter((line) => line.msg?.toString().includes('sweep failed'));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ level: 40, error: 'MDB_PANIC: a stand-in failure' });
      await own.idempotency.claim({ userId: 'u', key: 'l' }, running('l', 500), at(61));
      await own.idempotency.idle();
      expect(sweep).toHaveBeenCalledTimes(2);
      expect(own.idempotency.count()).toBe(1); // the second sweep, a real one, removed 'k'
    } finally {
      sweep.mockRestore();
      await own.close();
    }
  });

  it('stops a sweep in progress after its current transaction, as closing the store does', async () => {
    const dir = join(await dirs.make(), 'data');
    const { root, dbs } = openRawDatabases(dir);
    const records = new LmdbIdempotencyStore(dbs, dir);
    try {
      const claims = 2_500; // three of the sweep's lease transactions
      for (let i = 0; i < claims; i += 1) {
        await records.claim({ userId: 'u', key: `k${i}` }, running(`o${i}`, 10), T0);
      }
      await records.idle();
      // Every lease has ended at 100 s. The next due claim starts a sweep; when that sweep begins
      // its first lease transaction, the store is told to stop.
      const calls: string[] = [];
      const transaction = dbs.idempotencyRunning.transaction.bind(dbs.idempotencyRunning);
      const spy = jest
        .spyOn(dbs.idempotencyRunning, 'transaction')
        .mockImplementation((callback) => {
          calls.push(calls.length === 0 ? 'claim' : 'sweep');
          if (calls.length === 2) records.stopSweeping();
          return transaction(callback);
        });
      await records.claim({ userId: 'u', key: 'late' }, running('late', 500), at(100));
      await records.idle();
      spy.mockRestore();
      expect(calls).toEqual(['claim', 'sweep']);
      expect(records.count()).toBe(claims + 1 - 1_000); // one page of ended leases removed
      // Stopped: a due claim starts no sweep.
      await records.claim({ userId: 'u', key: 'later' }, running('later', 500), at(200));
      await records.idle();
      expect(records.count()).toBe(claims + 2 - 1_000);
    } finally {
      await root.close();
    }
  });

  it('is told to stop sweeping when the store closes', async () => {
    const own = await createLmdbStore({ dataDir: join(await dirs.make(), 'data') });
    const stop = jest.spyOn(own.idempotency, 'stopSweeping');
    await own.close();
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('survives a reopen: records live in the data directory', async () => {
    const dir = join(await dirs.make(), 'data');
    const first = await createLmdbStore({ dataDir: dir });
    await first.idempotency.claim({ userId: 'u', key: 'kept' }, running('owner', 100), T0);
    await first.close();
    const second = await createLmdbStore({ dataDir: dir });
    try {
      await expect(
        second.idempotency.claim({ userId: 'u', key: 'kept' }, running('other', 100), at(1)),
      ).resolves.toMatchObject({ claimed: false, existing: { owner: 'owner' } });
    } finally {
      await second.close();
    }
  });
});

describe('LMDB: a keyed link and its recorded answer in one write transaction', () => {
  const scope = { userId: 'u', key: 'k' };
  const answerFor = (link: LinkRecord): CompletedRecord =>
    completed(86_400, JSON.stringify({ id: link.id, alias: link.alias }));
  const completion = (owner: string, answer = answerFor) => ({ scope, owner, completed: answer });

  it('writes the link and completes its owner’s running record together', async () => {
    await store.idempotency.claim(scope, running('owner', 60), T0);
    const stored = await store.links.insertCompleting(newLink(), completion('owner'));
    expect(stored).toEqual({ ...newLink(), id: 1 });
    await expect(store.idempotency.claim(scope, running('retry', 60), at(1))).resolves.toEqual({
      claimed: false,
      existing: answerFor({ ...newLink(), id: 1 }),
    });
    await expect(store.links.findByAlias(newLink().domain, newLink().alias)).resolves.toEqual({
      ...newLink(),
      id: 1,
    });
  });

  it('writes neither for a taken alias: the key still reads running', async () => {
    await insertNew(store.links, newLink());
    await store.idempotency.claim(scope, running('owner', 60), T0);
    await expect(
      store.links.insertCompleting(
        newLink({ url: 'https://example.com/other' }),
        completion('owner'),
      ),
    ).resolves.toBe('alias_taken');
    await expect(store.idempotency.claim(scope, running('retry', 60), at(1))).resolves.toEqual({
      claimed: false,
      existing: running('owner', 60),
    });
    expect(store.links.count()).toBe(1);
  });

  it('writes neither when the answer cannot be made (it is made before the first write)', async () => {
    await store.idempotency.claim(scope, running('owner', 60), T0);
    const failing = completion('owner', () => {
      throw new Error('no answer');
    });
    await expect(store.links.insertCompleting(newLink(), failing)).rejects.toThrow('no answer');
    await expect(store.links.findByAlias(newLink().domain, newLink().alias)).resolves.toBeNull();
    await expect(store.idempotency.claim(scope, running('retry', 60), at(1))).resolves.toEqual({
      claimed: false,
      existing: running('owner', 60),
    });
    // The id was not used either.
    expect((await insertNew(store.links, newLink({ alias: 'next' }))).id).toBe(1);
  });

  it('writes nothing when the claim has passed to another owner, whose record it leaves', async () => {
    await store.idempotency.claim(scope, running('paused', 60), T0);
    await store.idempotency.claim(scope, running('late', 120), at(60));
    const stored = await store.links.insertCompleting(newLink(), completion('paused'));
    expect(stored).toBe('claim_lost');
    expect(store.links.count()).toBe(0);
    await expect(store.idempotency.claim(scope, running('x', 200), at(61))).resolves.toEqual({
      claimed: false,
      existing: running('late', 120),
    });
    // The id was not used either.
    expect((await insertNew(store.links, newLink({ alias: 'next' }))).id).toBe(1);
  });

  it('writes the link of an owner whose lease ended while nobody claimed the key', async () => {
    await store.idempotency.claim(scope, running('slow', 60), T0);
    const stored = await store.links.insertCompleting(newLink(), completion('slow'));
    expect(stored).toEqual({ ...newLink(), id: 1 });
    // Completed: a claim after the lease finds the answer, not a free key.
    await expect(store.idempotency.claim(scope, running('retry', 200), at(61))).resolves.toEqual({
      claimed: false,
      existing: answerFor({ ...newLink(), id: 1 }),
    });
  });

  it('checks the claim in the write transaction: a claim swept away is a claim lost', async () => {
    await store.idempotency.claim(scope, running('swept', 60), T0);
    await store.idempotency.sweep(at(60));
    await expect(store.links.insertCompleting(newLink(), completion('swept'))).resolves.toBe(
      'claim_lost',
    );
    expect(store.links.count()).toBe(0);
  });

  it('is what a keyed create uses through the core: no separate completion write', async () => {
    const insertCompleting = jest.spyOn(store.links, 'insertCompleting');
    const insert = jest.spyOn(store.links, 'insert');
    const complete = jest.spyOn(store.idempotency, 'complete');
    const f = await createTestCore({ store });
    const caller = () =>
      f.core.createCaller({ authorization: `Bearer ${f.token}`, idempotencyKey: 'once' });
    const first = await caller().links.create(f.body() as never);
    expect(insertCompleting).toHaveBeenCalledTimes(1);
    expect(insert).not.toHaveBeenCalled();
    expect(complete).not.toHaveBeenCalled();
    await expect(caller().links.create(f.body() as never)).resolves.toEqual(first);
    expect(insertCompleting).toHaveBeenCalledTimes(1);
    // Without a key: the plain insert, and no record.
    await f.core
      .createCaller({ authorization: `Bearer ${f.token}` })
      .links.create(f.body() as never);
    expect(insert).toHaveBeenCalledTimes(1);
    expect(complete).not.toHaveBeenCalled();
  });
});

describe('LMDB: a keyed answer belongs to its own call, not to a caller shared by several', () => {
  it('records the second claim’s link under its key when an embedder reuses one caller', async () => {
    let now = new Date('2099-01-01T00:00:00.000Z');
    const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
    const gate = (name: string) => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gates.set(name, { opened, open });
    };
    gate('first');
    gate('second');
    const f = await createTestCore({
      store,
      clock: { now: () => now },
      // Holds each call at the anti-phishing stage (after its claim, before its link) until told.
      urlGuard: {
        check: async (url) => {
          await gates.get(url.pathname.slice(1))?.opened;
          return { blocked: false };
        },
      },
    });
    // One caller, one request object, for every call: as an embedder may hold it.
    const caller = f.core.createCaller({ authorization: `Bearer ${f.token}`, idempotencyKey: 'K' });
    const first = caller.links.create(f.body({ url: 'https://example.com/first' }) as never);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first call's lease (60 s) lapses; a retry with other fields claims the key anew.
    now = new Date(now.getTime() + 61_000);
    const second = caller.links.create(f.body({ url: 'https://example.com/second' }) as never);
    await new Promise((resolve) => setTimeout(resolve, 50));
    gates.get('first')?.open();
    // The first call lost its claim to the second, which means another request: it stores
    // nothing and answers as a retry of it would, 25.
    await expect(first).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });
    gates.get('second')?.open();
    const secondLink = await second;
    expect(store.links.count()).toBe(1);
    // The key replays the answer the second call gave.
    await expect(
      caller.links.create(f.body({ url: 'https://example.com/second' }) as never),
    ).resolves.toEqual(secondLink);
  });
});

describe('LMDB: running claims live apart from the completed records', () => {
  it('keeps a claim in idempotency_running and moves it to idempotency when completed', async () => {
    const dir = join(await dirs.make(), 'data');
    const own = await createLmdbStore({ dataDir: dir });
    const { root, dbs } = openRawDatabases(dir);
    try {
      const scope = { userId: 'u', key: 'moved' };
      await own.idempotency.claim(scope, running('owner', 60), T0);
      root.resetReadTxn();
      expect(dbs.idempotencyRunning.get(['moved', 'u'])?.[3]).toBe('owner');
      expect(dbs.idempotency.get(['moved', 'u'])).toBeUndefined();
      await own.idempotency.complete(scope, 'owner', completed(100));
      root.resetReadTxn();
      expect(dbs.idempotencyRunning.get(['moved', 'u'])).toBeUndefined();
      expect(dbs.idempotency.get(['moved', 'u'])?.[0]).toBe('completed');
    } finally {
      await root.close();
      await own.close();
    }
  });

  it('sweeps ended leases page by page, more than one transaction’s worth', async () => {
    const { idempotency } = store;
    const claims = 2_500; // two and a half of the sweep's transactions
    for (let i = 0; i < claims; i += 1) {
      await idempotency.claim(
        { userId: 'u', key: `k${i}` },
        running(`o${i}`, i % 2 ? 10 : 100),
        T0,
      );
    }
    expect(idempotency.count()).toBe(claims);
    await idempotency.sweep(at(10));
    expect(idempotency.count()).toBe(claims / 2);
    await idempotency.sweep(at(100));
    expect(idempotency.count()).toBe(0);
  });

  it('leaves a store of format 1 as it is when told not to migrate (admin commands, backups)', async () => {
    const dir = join(await dirs.make(), 'data');
    await (await createLmdbStore({ dataDir: dir })).close();
    await formatVersionIn(dir, 1);
    await (await createLmdbStore({ dataDir: dir, migrate: false })).close();
    expect(await formatVersionIn(dir)).toBe(1);
    await (await createLmdbStore({ dataDir: dir })).close();
    expect(await formatVersionIn(dir)).toBe(FORMAT_VERSION);
  });

  it('opens a store of format 1: marks it as this code’s, honours its claims until their lease, replays its records', async () => {
    const dir = join(await dirs.make(), 'data');
    await (await createLmdbStore({ dataDir: dir })).close();
    // What format-1 code left: its claims and its completed records both in `idempotency`, each
    // with an expiry entry.
    const legacy = openRawDatabases(dir);
    const future = Date.now() + 60_000;
    await legacy.dbs.meta.put(META_KEYS.formatVersion, 1);
    const legacyRecord = async (key: string, record: StoredIdempotencyRecord) => {
      await legacy.dbs.idempotency.put([key, 'u'], record);
      await legacy.dbs.idempotencyExpiry.put([record[2], key, 'u'], true);
    };
    await legacyRecord('old-claim', ['running', 'f'.repeat(64), future, 'old']);
    await legacyRecord('old-done', ['completed', 'f'.repeat(64), future, 0, '{"id":7}']);
    await legacyRecord('old-ended', ['running', 'f'.repeat(64), future - 30_000, 'gone']);
    await legacy.root.close();

    const upgraded = await createLmdbStore({ dataDir: dir });
    const { root, dbs } = openRawDatabases(dir);
    try {
      expect(dbs.meta.get(META_KEYS.formatVersion)).toBe(FORMAT_VERSION);
      expect(FORMAT_VERSION).toBe(4);
      const now = new Date();
      await expect(
        upgraded.idempotency.claim({ userId: 'u', key: 'old-claim' }, running('new', 99_999), now),
      ).resolves.toMatchObject({ claimed: false, existing: { state: 'running', owner: 'old' } });
      await expect(
        upgraded.idempotency.claim({ userId: 'u', key: 'old-done' }, running('new', 99_999), now),
      ).resolves.toMatchObject({
        claimed: false,
        existing: { state: 'completed', outcome: { code: 0, body: '{"id":7}' } },
      });
      // Past a format-1 claim's lease the key is free again, and its completion replaces it.
      const ended = { userId: 'u', key: 'old-ended' };
      await expect(
        upgraded.idempotency.claim(ended, running('new', 99_999), new Date(future - 30_000)),
      ).resolves.toEqual({ claimed: true });
      await upgraded.idempotency.complete(ended, 'new', {
        ...completed(0, '{"id":8}'),
        expiresAt: new Date(future + 100_000),
      });
      root.resetReadTxn();
      expect(dbs.idempotency.get(['old-ended', 'u'])?.[0]).toBe('completed');
      // The sweep removes the other format-1 records once they expire, by their expiry entries;
      // the new record stays.
      expect(upgraded.idempotency.count()).toBe(3);
      await upgraded.idempotency.sweep(new Date(future));
      root.resetReadTxn();
      expect(dbs.idempotency.get(['old-claim', 'u'])).toBeUndefined();
      expect(dbs.idempotency.get(['old-done', 'u'])).toBeUndefined();
      expect(upgraded.idempotency.count()).toBe(1);
    } finally {
      await root.close();
      await upgraded.close();
    }
  });
});
