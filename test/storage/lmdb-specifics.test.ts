import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from 'lmdb';
import { BackendUnavailableError, createCore, LinkDomainTakenError } from '../../core';
import {
  createLmdbStore,
  DATABASES,
  DataDirError,
  FORMAT_VERSION,
  META_KEYS,
  type LmdbStore,
} from '../../core/adapters/lmdb';
import {
  fillUp,
  mountSupport,
  mountTmpfs,
  type SmallFilesystem,
} from '../support/small-filesystem';
import { formatVersionIn, openRawDatabases } from '../support/raw-lmdb';
import { tempDirs } from '../support/temp-dirs';
import { within } from '../support/within';
import { createTestCore } from '../support/core-fixture';
import { MAX_DATABASES, openDatabases } from '../../core/adapters/lmdb/databases';
import { FLUSH_TIMEOUT_MS } from '../../core/adapters/lmdb/flush-guard';
import { LmdbLinkStore } from '../../core/adapters/lmdb/lmdb-link-store';
import { insertNew, newLink, organization, settleAll } from './fixtures';

jest.setTimeout(60_000);

const dirs = tempDirs('lmdb');
const mounts: SmallFilesystem[] = [];
afterAll(async () => {
  for (const mount of mounts.splice(0)) mount.unmount();
  await dirs.removeAll();
});

async function dataDir(): Promise<string> {
  return join(await dirs.make(), 'data');
}

describe('LMDB store: restarts', () => {
  it('keeps links, identities and the id sequence across close and reopen', async () => {
    const dir = await dataDir();
    const before = await createLmdbStore({ dataDir: dir });
    const f = await createTestCore({ store: before });
    const created = await f.caller().links.create(f.body({ alias: 'kept' }) as never);
    const lastId = (await insertNew(before.links, newLink({ alias: 'direct' }))).id;
    expect(lastId).toBe(created.id + 1);
    await before.close();

    const after = await createLmdbStore({ dataDir: dir });
    try {
      await expect(after.links.findByAlias('acme.link', 'kept')).resolves.toMatchObject({
        id: created.id,
        url: created.url,
        alias: 'kept',
      });
      expect((await insertNew(after.links, newLink({ alias: 'reopened' }))).id).toBe(lastId + 1);
      await expect(after.identities.findOrganizationById('acme')).resolves.toMatchObject({
        domain: 'acme.link',
      });
      // The same token and organization key still create links after the restart.
      const again = await createCoreCaller(after, f.token, f.organizationKey);
      expect(again.id).toBe(lastId + 2);
    } finally {
      await after.close();
    }
  });

  it('creates its directory with mode 0700, parents included', async () => {
    const dir = join(await dirs.make(), 'nested', 'data');
    const store = await createLmdbStore({ dataDir: dir });
    await store.close();
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });
});

function createCoreCaller(store: LmdbStore, token: string, organizationKey: string) {
  const core = createCore({ store });
  return core
    .createCaller({ authorization: `Bearer ${token}`, clientAddress: '203.0.113.9' })
    .links.create({
      organization_key: organizationKey,
      url_group_id: '1',
      url: 'https://example.com/after/restart',
    });
}

describe('LMDB store: a data directory it cannot use is a start-up error naming the path', () => {
  it('refuses a format version newer than the code', async () => {
    const dir = await dataDir();
    await (await createLmdbStore({ dataDir: dir })).close();
    await formatVersionIn(dir, FORMAT_VERSION + 1);

    const opening = createLmdbStore({ dataDir: dir });
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(
      `DATA_DIR ${dir} holds data in format version ${FORMAT_VERSION + 1}, newer than this code's ${FORMAT_VERSION}`,
    );
  });

  it('indexes the link domains of organizations written before the index existed', async () => {
    const dir = await dataDir();
    await (await createLmdbStore({ dataDir: dir })).close();
    // What the first LMDB release wrote: the organization, without a link-domain index entry.
    const raw = open({ path: dir, maxDbs: 32 });
    const acme = organization();
    await raw.openDB({ name: DATABASES.organizations }).put('acme', acme);
    await raw.close();

    const store = await createLmdbStore({ dataDir: dir });
    try {
      await expect(
        store.identities.saveOrganization({ ...acme, id: 'thief', keyHash: 'b'.repeat(64) }),
      ).rejects.toBeInstanceOf(LinkDomainTakenError);
      await expect(store.identities.saveOrganization(acme)).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it.each([
    ['an empty path', '', '""'],
    ['blanks', '  ', '"  "'],
    ['no path', undefined, 'undefined'],
    ['a number', 42, '42'],
  ])(
    'refuses %s for dataDir, and writes nothing in the working directory',
    async (_, given, shown) => {
      const before = await readdir(process.cwd());
      for (const readOnly of [false, true]) {
        await expect(createLmdbStore({ dataDir: given as string, readOnly })).rejects.toThrow(
          new DataDirError(`DATA_DIR must name a directory (a non-empty path), not ${shown}`),
        );
      }
      expect(await readdir(process.cwd())).toEqual(before);
    },
  );

  it('refuses a file where the directory should be', async () => {
    const file = join(await dirs.make(), 'data');
    await writeFile(file, 'not a directory');
    await expect(createLmdbStore({ dataDir: file })).rejects.toThrow(
      new DataDirError(`DATA_DIR ${file} is not a directory`),
    );
  });

  it('refuses a directory that cannot be created (a file in its path)', async () => {
    const parent = join(await dirs.make(), 'file');
    await writeFile(parent, 'x');
    const dir = join(parent, 'data');
    const opening = createLmdbStore({ dataDir: dir });
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(`DATA_DIR ${dir} cannot be examined`);
  });

  it('refuses a directory under /proc at once (where the recursive mkdir of Node spins forever)', async () => {
    if (!existsSync('/proc/self')) return; // not Linux: no procfs to try
    const dir = '/proc/no-such-process/shortlink/data';
    // Before, this never settled (the test's time limit caught it).
    const opening = createLmdbStore({ dataDir: dir });
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(`DATA_DIR ${dir} cannot be created`);
  });

  it('refuses a data directory that is a dangling symbolic link, saying it cannot be created', async () => {
    const base = await dirs.make();
    const dir = join(base, 'data');
    await symlink(join(base, 'unmounted-disk'), dir);
    const opening = createLmdbStore({ dataDir: dir });
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(`DATA_DIR ${dir} cannot be created: EEXIST`);
  });

  it('creates every missing level of a new data directory, each with mode 0700', async () => {
    const base = await dirs.make();
    const dir = join(base, 'a', 'b', 'data');
    const store = await createLmdbStore({ dataDir: dir });
    await store.close();
    for (const level of [join(base, 'a'), join(base, 'a', 'b'), dir]) {
      expect(statSync(level).mode & 0o777).toBe(0o700);
    }
  });

  const mounting = mountSupport();
  if (!mounting.available) {
    process.stderr.write(`\nLMDB read-only and full-disk tests SKIPPED: ${mounting.reason}\n`);
    it.skip(`read-only and full-disk tests skipped: ${mounting.reason}`, () => undefined);
    return;
  }

  it('refuses a read-only file system', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'ro'), { sizeKb: 256, readOnly: true });
    mounts.push(mount);
    const opening = createLmdbStore({ dataDir: mount.dir });
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(`DATA_DIR ${mount.dir} is not writable by this process`);
  });

  it('refuses a full disk', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'full'), { sizeKb: 64 });
    mounts.push(mount);
    await fillUp(mount.dir);
    const dir = join(mount.dir, 'data');
    await mkdir(dir);
    const opening = createLmdbStore({ dataDir: dir });
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(`DATA_DIR ${dir} is on a full disk`);
  });

  it('answers writes on a disk that fills up later with code 23, and writes again once there is room', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'fills'), { sizeKb: 4096 });
    mounts.push(mount);
    const store = await createLmdbStore({ dataDir: join(mount.dir, 'data') });
    const big = (i: number) => `https://e.example/${'x'.repeat(2000)}${i}`;
    try {
      await fillUp(mount.dir);
      let failure: unknown;
      let written = 0;
      for (let i = 0; i < 5000 && failure === undefined; i += 1) {
        failure = await store.links.insert(newLink({ alias: `a${i}`, url: big(i) })).then(
          () => void (written += 1),
          (error: unknown) => error,
        );
      }
      expect(failure).toBeInstanceOf(BackendUnavailableError);
      expect((failure as Error).message).toContain(store.path);
      // The OS's reason when lmdb-js reported it in time, else its generic "Commit failed".
      expect((failure as Error).message).toMatch(/No space left on device|Commit failed/);
      // Concurrent writes on the full disk fail the same way, and no failed commit is left as an
      // unhandled rejection (which would stop the process; jest fails the test on one).
      const burst = await settleAll(
        Array.from({ length: 20 }, (_, i) =>
          store.links.insert(newLink({ alias: `burst-${i}`, url: big(i) })),
        ),
      );
      expect(burst.map((r) => !r.ok && r.error instanceof BackendUnavailableError)).toEqual(
        burst.map(() => true),
      );

      await rm(join(mount.dir, 'filler'));
      // The failed inserts wrote nothing and used no id.
      const after = await insertNew(store.links, newLink({ alias: 'after' }));
      expect(after.id).toBe(written + 1);
      await expect(store.links.findByAlias('acme.link', 'after')).resolves.toEqual(after);
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  it('closes within the flush bound while the disk stays full after a failed commit', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'stays-full'), { sizeKb: 4096 });
    mounts.push(mount);
    const store = await createLmdbStore({ dataDir: join(mount.dir, 'data') });
    await fillUp(mount.dir);
    let failed = false;
    for (let i = 0; i < 5000 && !failed; i += 1) {
      const link = newLink({ alias: `a${i}`, url: `https://e.example/${'x'.repeat(2000)}${i}` });
      failed = await store.links.insert(link).then(
        () => false,
        () => true,
      );
    }
    expect(failed).toBe(true);
    // lmdb-js waits for the failed commit's flush, which never comes: the close gives up.
    const started = Date.now();
    await expect(store.close()).rejects.toThrow(
      new BackendUnavailableError(
        `the LMDB store in ${store.path} did not confirm within ${FLUSH_TIMEOUT_MS} ms that its ` +
          'last writes reached the disk; it was not closed',
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(FLUSH_TIMEOUT_MS - 100);
  });

  it('leaves a backup target as it was when the copy fails on a full disk: no partial data.mdb', async () => {
    const store = await createLmdbStore({ dataDir: await dataDir() });
    const mount = await mountTmpfs(join(await dirs.make(), 'small-target'), { sizeKb: 64 });
    mounts.push(mount);
    const empty = join(mount.dir, 'empty');
    await mkdir(empty);
    const missing = join(mount.dir, 'missing', 'copy');
    try {
      for (let i = 0; i < 100; i += 1) {
        await insertNew(
          store.links,
          newLink({ alias: `a${i}`, url: `https://e.example/${'x'.repeat(2000)}${i}` }),
        );
      }
      for (const target of [empty, missing]) {
        await expect(store.backup(target)).rejects.toThrow(/No space left on device/);
      }
    } finally {
      await store.close();
    }
    expect(await readdir(empty)).toEqual([]);
    expect(existsSync(join(mount.dir, 'missing'))).toBe(false);
  });
});

describe('LMDB store: backup', () => {
  it('copies a consistent store while writes go on; the copy opens as a store', async () => {
    const store = await createLmdbStore({ dataDir: await dataDir() });
    const target = join(await dirs.make(), 'backup');
    try {
      for (let i = 0; i < 200; i += 1) {
        await insertNew(store.links, newLink({ alias: `before-${i}` }));
      }
      const during = Array.from({ length: 200 }, (_, i) =>
        insertNew(store.links, newLink({ alias: `during-${i}` })),
      );
      await expect(store.backup(target)).resolves.toBe(target);
      await Promise.all(during);
    } finally {
      await store.close();
    }
    const copy = await createLmdbStore({ dataDir: target });
    try {
      for (let i = 0; i < 200; i += 1) {
        await expect(copy.links.findByAlias('acme.link', `before-${i}`)).resolves.toMatchObject({
          id: i + 1,
        });
      }
      // The link indexes came along, consistent with the links: the copy's newest links are
      // listed first, and every link by id.
      const copied = copy.links.count();
      expect(copied).toBeGreaterThanOrEqual(200);
      const listed = await copy.links.list({ organizationId: 'acme', limit: 1000 });
      expect(listed.map((link) => link.id)).toEqual(
        Array.from({ length: copied }, (_, i) => copied - i),
      );
      await expect(copy.links.findById(1)).resolves.toMatchObject({ alias: 'before-0' });
      await expect(copy.ping()).resolves.toBeUndefined();
    } finally {
      await copy.close();
    }
  });

  it('refuses a target that is not empty', async () => {
    const store = await createLmdbStore({ dataDir: await dataDir() });
    const target = await dirs.make();
    await writeFile(join(target, 'something'), 'x');
    try {
      await expect(store.backup(target)).rejects.toThrow(`${target} exists and is not empty`);
    } finally {
      await store.close();
    }
  });
});

describe('LMDB store: used after close', () => {
  it('refuses every operation with BackendUnavailableError, never reaching the closed environment', async () => {
    const store = await createLmdbStore({ dataDir: await dataDir() });
    await store.close();
    const running = { state: 'running' as const, owner: 'o', fingerprint: 'f' };
    const operations: Record<string, () => Promise<unknown>> = {
      insert: () => store.links.insert(newLink()),
      findByAlias: () => store.links.findByAlias('acme.link', 'x'),
      findById: () => store.links.findById(1),
      list: () => store.links.list({ limit: 10 }),
      setDisabled: () =>
        store.links.setDisabled(1, null, { at: new Date(), by: 'admin', refuseHeld: false }),
      update: () =>
        store.links.update(
          1,
          { url: 'https://x.example/' },
          { at: new Date(), by: 'admin', refuseHeld: false },
        ),
      takeVisit: () => store.links.takeVisit(1),
      history: () => store.links.history(1, { after: 0, limit: 10 }),
      saveUser: () => store.identities.saveUser({ id: 'u', name: 'u' }),
      saveOrganization: () => store.identities.saveOrganization(organization()),
      findUserIdByTokenHash: () => store.identities.findUserIdByTokenHash('h'),
      claim: () =>
        store.idempotency.claim(
          { userId: 'u', key: 'k' },
          { ...running, expiresAt: new Date(Date.now() + 60_000) },
          new Date(),
        ),
      release: () => store.idempotency.release({ userId: 'u', key: 'k' }, 'o'),
      ping: () => store.ping(),
      backup: async () => store.backup(await dirs.make()),
    };
    for (const [name, operation] of Object.entries(operations)) {
      // Before the fix a write never settled, and lmdb-js threw from a timer (uncaught).
      const outcome = await within(
        operation().then(
          () => 'resolved',
          (error: unknown) => error,
        ),
        2_000,
      );
      expect([name, outcome]).toEqual([name, expect.any(BackendUnavailableError)]);
      expect((outcome as Error).message).toMatch(
        /^the LMDB store in .+ is closed: .+ was not run$/,
      );
    }
    // Closing again is harmless.
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('answers code 23 to a caller whose core outlives its store', async () => {
    const { core, caller, body } = await createTestCore({
      store: await createLmdbStore({ dataDir: await dataDir() }),
    });
    await core.deps.store.close();
    await expect(caller().links.create(body() as never)).rejects.toMatchObject({
      reason: 'BACKEND_UNAVAILABLE',
      cause: { message: expect.stringContaining('is closed') },
    });
    await expect(caller().links.resolve({ domain: 'acme.link', alias: 'x' })).rejects.toMatchObject(
      { reason: 'BACKEND_UNAVAILABLE' },
    );
    await expect(core.ready()).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('reports a read on an environment closed under the store as a storage failure (23)', async () => {
    const path = await dirs.make();
    const root = open({ path, maxDbs: MAX_DATABASES });
    const links = new LmdbLinkStore(openDatabases(root), path);
    await root.close();
    // lmdb-js's own message ("Can not renew a transaction from a closed database") is not a bug.
    await expect(links.findByAlias('acme.link', 'promo')).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });
});

describe('LMDB store opened to read only (readOnly)', () => {
  it('reads what the store holds and writes nothing at opening', async () => {
    const dir = await dataDir();
    const writer = await createLmdbStore({ dataDir: dir });
    await writer.identities.insertUser({ id: 'alice', name: 'Alice' });
    await writer.close();
    const before = await readFile(join(dir, 'data.mdb'));
    const reader = await createLmdbStore({ dataDir: dir, readOnly: true });
    try {
      await expect(reader.identities.listAll()).resolves.toMatchObject({
        users: [{ id: 'alice', name: 'Alice' }],
      });
    } finally {
      await reader.close();
    }
    await expect(readFile(join(dir, 'data.mdb'))).resolves.toEqual(before);
  });

  it('creates none of the databases a store of the first format lacks', async () => {
    const dir = await dataDir();
    const writer = await createLmdbStore({ dataDir: dir });
    await writer.identities.saveOrganization(organization());
    await writer.close();
    // What the first release left: no running-claims database, no link-domain index.
    const { root, dbs } = openRawDatabases(dir);
    await dbs.idempotencyRunning.drop();
    await dbs.organizationsByDomain.drop();
    await dbs.meta.put(META_KEYS.formatVersion, 1);
    await root.close();
    const before = await readFile(join(dir, 'data.mdb'));

    const reader = await createLmdbStore({ dataDir: dir, readOnly: true });
    try {
      await expect(reader.identities.listAll()).resolves.toMatchObject({
        organizations: [{ id: 'acme', domain: 'acme.link' }],
      });
    } finally {
      await reader.close();
    }
    await expect(readFile(join(dir, 'data.mdb'))).resolves.toEqual(before);
  });

  it('refuses LMDB data without a format version, and a file for a directory', async () => {
    const dir = await dataDir();
    const { root } = openRawDatabases(dir);
    await root.put('something', 'else');
    await root.close();
    await expect(createLmdbStore({ dataDir: dir, readOnly: true })).rejects.toThrow(
      new DataDirError(`DATA_DIR ${dir} holds LMDB data without a format version: not a store`),
    );
    const file = join(await dirs.make(), 'file');
    await writeFile(file, 'x');
    await expect(createLmdbStore({ dataDir: file, readOnly: true })).rejects.toThrow(
      new DataDirError(`DATA_DIR ${file} is not a directory`),
    );
  });

  it('refuses a directory holding no store, creating nothing', async () => {
    const dir = join(await dirs.make(), 'missing');
    await expect(createLmdbStore({ dataDir: dir, readOnly: true })).rejects.toThrow(
      new DataDirError(`DATA_DIR ${dir} holds no store`),
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a format version newer than the code, as a write open does', async () => {
    const dir = await dataDir();
    await (await createLmdbStore({ dataDir: dir })).close();
    await formatVersionIn(dir, FORMAT_VERSION + 1);
    await expect(createLmdbStore({ dataDir: dir, readOnly: true })).rejects.toThrow(
      `DATA_DIR ${dir} holds data in format version ${FORMAT_VERSION + 1}, newer than this code's ${FORMAT_VERSION}`,
    );
  });
});
