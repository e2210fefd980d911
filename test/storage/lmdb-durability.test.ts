import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { BackendUnavailableError, type CompletedRecord, type RunningRecord } from '../../core';
import { createLmdbStore, DATABASES, FORMAT_VERSION, META_KEYS } from '../../core/adapters/lmdb';
import {
  MAX_DATABASES,
  openDatabases,
  toStoredLink,
  type LinkKey,
  type LmdbDatabases,
  type StoredLink,
} from '../../core/adapters/lmdb/databases';
import { closeWithin, untilFlushed } from '../../core/adapters/lmdb/flush-guard';
import { LmdbIdempotencyStore } from '../../core/adapters/lmdb/lmdb-idempotency-store';
import { LmdbLinkStore } from '../../core/adapters/lmdb/lmdb-link-store';
import { tempDirs } from '../support/temp-dirs';
import { insertNew, newLink } from './fixtures';

/**
 * The environment commits with overlapping sync (a write resolves at commit, its fsync follows):
 * what must be durable before it answers waits for lmdb-js's flush report, with a bound. Here the
 * flush report is played by a promise the test settles, on a real environment.
 */
const dirs = tempDirs('lmdb-durability');
const roots: RootDatabase[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => root.close()));
});
afterAll(() => dirs.removeAll());

async function environment(): Promise<{ dbs: LmdbDatabases; path: string }> {
  const path = join(await dirs.make(), 'data');
  const root = open({ path, maxDbs: MAX_DATABASES, overlappingSync: true });
  roots.push(root);
  return { dbs: openDatabases(root), path };
}

/** A flush report that comes when the test says so. */
function heldFlush() {
  let report!: () => void;
  const flushed = new Promise<void>((resolve) => (report = resolve));
  return { source: { flushed }, report };
}

/** Lets the writer thread commit: waits until `done()` holds (at most 5 s). */
async function eventually(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const T0 = new Date('2099-01-01T00:00:00.000Z');
const SCOPE = { userId: 'u', key: 'k' };
const running: RunningRecord = {
  state: 'running',
  owner: 'me',
  fingerprint: 'f'.repeat(64),
  expiresAt: new Date(T0.getTime() + 60_000),
};
const completed: CompletedRecord = {
  state: 'completed',
  fingerprint: 'f'.repeat(64),
  outcome: { code: 0, body: '{"id":1}' },
  expiresAt: new Date(T0.getTime() + 86_400_000),
};

describe('LMDB: a created link answers only once it is on disk', () => {
  it('answers an insert after the flush report, though the link is visible at commit', async () => {
    const { dbs, path } = await environment();
    const flush = heldFlush();
    const links = new LmdbLinkStore(dbs, path, untilFlushed(flush.source, path));
    let answered = false;
    const inserting = links.insert(newLink()).then((outcome) => {
      answered = true;
      return outcome;
    });
    await eventually(() => links.count() === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    // A taken alias wrote nothing: it answers without waiting for any flush.
    await expect(links.insert(newLink({ url: 'https://example.com/other' }))).resolves.toBe(
      'alias_taken',
    );
    flush.report();
    await expect(inserting).resolves.toEqual({ ...newLink(), id: 1 });
  });

  it('answers code 23 naming the data directory when no flush is reported within the bound', async () => {
    const { dbs, path } = await environment();
    const never = { flushed: new Promise<void>(() => undefined) };
    const links = new LmdbLinkStore(dbs, path, untilFlushed(never, path, 50));
    const started = Date.now();
    await expect(links.insert(newLink())).rejects.toThrow(
      new BackendUnavailableError(
        `the LMDB store in ${path} did not confirm within 50 ms that link insert reached the ` +
          'disk (fsync); the write was committed and may be kept',
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    // As the README says: the answer was 23, yet the link was committed.
    await expect(links.findByAlias('acme.link', 'promo')).resolves.toEqual({
      ...newLink(),
      id: 1,
    });
  });

  it('records an idempotent answer only after the flush report; claims and releases answer at commit', async () => {
    const { dbs, path } = await environment();
    const flush = heldFlush();
    const records = new LmdbIdempotencyStore(dbs, path, untilFlushed(flush.source, path));
    await expect(records.claim(SCOPE, running, T0)).resolves.toEqual({ claimed: true });
    await records.claim({ userId: 'u', key: 'released' }, running, T0);
    await records.release({ userId: 'u', key: 'released' }, 'me');
    let answered = false;
    const completing = records.complete(SCOPE, 'me', completed).then(() => (answered = true));
    await eventually(() => dbs.idempotency.get([SCOPE.key, SCOPE.userId])?.[0] === 'completed');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    flush.report();
    await completing;
    expect(answered).toBe(true);
  });

  it('gives up a close whose last writes are never reported on disk', async () => {
    const hanging = { close: () => new Promise<void>(() => undefined) };
    await expect(closeWithin(hanging, '/srv/data', 30)).rejects.toThrow(
      new BackendUnavailableError(
        'the LMDB store in /srv/data did not confirm within 30 ms that its last writes reached ' +
          'the disk; it was not closed',
      ),
    );
    await expect(closeWithin({ close: () => Promise.resolve() }, '/srv/data', 30)).resolves.toBe(
      undefined,
    );
  });
});

describe('LMDB: a data directory written with synchronous commits', () => {
  it('opens with overlapping sync and goes on counting ids from its counter', async () => {
    const path = join(await dirs.make(), 'data');
    // What an earlier release wrote: every commit synced before it resolved.
    const old = open({ path, maxDbs: MAX_DATABASES, overlappingSync: false });
    const meta = old.openDB<unknown, string>({ name: DATABASES.meta });
    const links = old.openDB<StoredLink, LinkKey>({ name: DATABASES.links });
    await old.transaction(() => {
      void meta.put(META_KEYS.formatVersion, FORMAT_VERSION);
      void meta.put(META_KEYS.linkIds, 41);
      void links.put(['acme.link', 'old'], toStoredLink({ ...newLink({ alias: 'old' }), id: 41 }));
    });
    await old.close();

    const store = await createLmdbStore({ dataDir: path });
    try {
      await expect(store.links.findByAlias('acme.link', 'old')).resolves.toEqual({
        ...newLink({ alias: 'old' }),
        id: 41,
      });
      await expect(store.links.insert(newLink({ alias: 'old' }))).resolves.toBe('alias_taken');
      expect((await insertNew(store.links, newLink({ alias: 'new' }))).id).toBe(42);
    } finally {
      await store.close();
    }
    const reopened = await createLmdbStore({ dataDir: path });
    try {
      expect((await insertNew(reopened.links, newLink({ alias: 'newer' }))).id).toBe(43);
      await expect(reopened.links.findByAlias('acme.link', 'new')).resolves.toMatchObject({
        id: 42,
      });
    } finally {
      await reopened.close();
    }
  });
});
