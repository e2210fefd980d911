import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { BackendUnavailableError, type CompletedRecord, type RunningRecord } from '../../core';
import { createLmdbStore, DATABASES, FORMAT_VERSION, META_KEYS } from '../../core/adapters/lmdb';
import {
  MAX_DATABASES,
  openDatabases,
  type LinkKey,
  type LmdbDatabases,
  type StoredLink,
} from '../../core/adapters/lmdb/databases';
import { toStoredLink } from '../../core/adapters/lmdb/link-tuple';
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

describe('LMDB: writes answer at commit; Store.flush waits for the fsync', () => {
  it('answers an insert, a claim, a completion and a release at commit, before any flush', async () => {
    const { dbs, path } = await environment();
    const links = new LmdbLinkStore(dbs, path);
    const records = new LmdbIdempotencyStore(dbs, path);
    // No flush is ever reported here (the environment's own fsyncs are not waited for).
    await expect(links.insert(newLink())).resolves.toEqual({ ...newLink(), id: 1 });
    await expect(links.insert(newLink({ url: 'https://example.com/other' }))).resolves.toBe(
      'alias_taken',
    );
    await expect(records.claim(SCOPE, running, T0)).resolves.toEqual({ claimed: true });
    await records.complete(SCOPE, 'me', completed);
    expect(dbs.idempotency.get([SCOPE.key, SCOPE.userId])?.[0]).toBe('completed');
    await records.claim({ userId: 'u', key: 'released' }, running, T0);
    expect(dbs.idempotencyRunning.get(['released', 'u'])?.[3]).toBe('me');
    await records.release({ userId: 'u', key: 'released' }, 'me');
    expect(dbs.idempotencyRunning.get(['released', 'u'])).toBeUndefined();
    expect(dbs.idempotency.get(['released', 'u'])).toBeUndefined();
  });

  it('resolves a flush only after the flush report', async () => {
    const { path } = await environment();
    const flush = heldFlush();
    let answered = false;
    const flushing = untilFlushed(flush.source, path)('the writes').then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    flush.report();
    await flushing;
    expect(answered).toBe(true);
  });

  it('answers code 23 naming the data directory when no flush is reported within the bound', async () => {
    const { path } = await environment();
    const never = { flushed: new Promise<void>(() => undefined) };
    const started = Date.now();
    await expect(untilFlushed(never, path, 50)('the writes')).rejects.toThrow(
      new BackendUnavailableError(
        `the LMDB store in ${path} did not confirm within 50 ms that the writes reached the ` +
          'disk (fsync); the write was committed and may be kept',
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('flushes a real store: the promise settles once its writes are synced', async () => {
    const store = await createLmdbStore({ dataDir: join(await dirs.make(), 'data') });
    try {
      await store.links.insert(newLink());
      await expect(store.flush()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
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
