import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LinkRecord } from '../../core';
import { positionOf } from '../../core/ports/link-store';
import {
  createLmdbStore,
  FORMAT_VERSION,
  META_KEYS,
  type LmdbStore,
} from '../../core/adapters/lmdb';
import type { StoredLink } from '../../core/adapters/lmdb/databases';
import { indexLinks, LINK_INDEX_BATCH } from '../../core/adapters/lmdb/link-indexes';
import { captureLogs } from '../support/log-capture';
import { compileToTemp, ROOT } from '../support/compile-to-temp';
import { formatVersionIn, openRawDatabases } from '../support/raw-lmdb';
import { tempDirs } from '../support/temp-dirs';
import { insertNew, newLink } from './fixtures';

jest.setTimeout(60_000);

const dirs = tempDirs('lmdb-link-indexes');
afterAll(() => dirs.removeAll());

const DISABLING = { reason: 'reported', at: new Date('2026-06-07T08:09:10.111Z'), by: 'admin' };
/** The operator's change that makes DISABLING. */
const ACTING = { at: DISABLING.at, by: 'admin', refuseHeld: false } as const;

/**
 * Links as format-2 code made them: ids 1 to `count`, of organizations acme and beta and groups
 * "1" and "2" in turn.
 */
function oldLinks(count: number): LinkRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const organizationId = i % 2 ? 'beta' : 'acme';
    return {
      ...newLink({
        domain: `${organizationId}.link`,
        alias: `old-${i + 1}`,
        url: `https://example.com/${i + 1}`,
        organizationId,
        groupApiId: i % 3 ? '1' : '2',
      }),
      id: i + 1,
    };
  });
}

/**
 * A data directory as a format-2 release left it, written with raw lmdb-js puts: `links` (tuples
 * of 8 elements: no state), the id counter, format version 2, and none of the link indexes.
 */
async function storeOfFormat2(links: LinkRecord[]): Promise<string> {
  const dir = join(await dirs.make(), 'data');
  await (await createLmdbStore({ dataDir: dir })).close();
  const { root, dbs } = openRawDatabases(dir);
  try {
    await dbs.linksById.drop();
    await dbs.linksByOrganization.drop();
    await dbs.linksByGroup.drop();
    await root.transaction(() => {
      for (const link of links) {
        const stored: StoredLink = [
          link.id,
          link.url,
          link.redirectType,
          link.scheme,
          link.organizationId,
          link.groupApiId,
          link.userId,
          link.createdAt.getTime(),
        ];
        void dbs.links.put([link.domain, link.alias], stored);
      }
      void dbs.meta.put(META_KEYS.linkIds, links.length);
      void dbs.meta.put(META_KEYS.formatVersion, 2);
    });
  } finally {
    await root.close();
  }
  return dir;
}

const newestFirst = (links: LinkRecord[]) => [...links].sort((a, b) => b.id - a.id);

/** Every link of the store, paged down by id, `limit` per page. */
async function listAll(store: LmdbStore, limit: number): Promise<LinkRecord[]> {
  const all: LinkRecord[] = [];
  for (;;) {
    const last = all[all.length - 1];
    const page = await store.links.list({ limit, ...(last && { before: positionOf(last) }) });
    all.push(...page);
    if (page.length < limit) return all;
  }
}

/** The position of id `id` among `links`, which share one creation time. */
const at = (links: LinkRecord[], id: number) => ({ createdAt: links[0]!.createdAt, id });

/** What a store answers by id and in listings, checked against the links it should hold. */
async function expectLinks(store: LmdbStore, links: LinkRecord[]): Promise<void> {
  for (const link of links) {
    const found = await store.links.findById(link.id);
    expect(found).toEqual(link);
    if (!link.disabled) expect(found).not.toHaveProperty('disabled');
  }
  await expect(store.links.findById(links.length + 1)).resolves.toBeNull();
  await expect(store.links.list({ limit: 100 })).resolves.toEqual(newestFirst(links));
  for (const organizationId of ['acme', 'beta']) {
    await expect(store.links.list({ organizationId, limit: 100 })).resolves.toEqual(
      newestFirst(links.filter((link) => link.organizationId === organizationId)),
    );
    await expect(
      // The links share one creation time: the position is id 9's.
      store.links.list({ organizationId, groupApiId: '2', before: at(links, 9), limit: 2 }),
    ).resolves.toEqual(
      newestFirst(
        links.filter(
          (link) =>
            link.organizationId === organizationId && link.groupApiId === '2' && link.id < 9,
        ),
      ).slice(0, 2),
    );
  }
}

describe('LMDB store: links written before the link indexes (format 2)', () => {
  it('indexes them at opening, marks the store 4: found by id, listed, governed, ids going on', async () => {
    const links = oldLinks(12);
    const dir = await storeOfFormat2(links);
    const logs = captureLogs();
    const store = await createLmdbStore({ dataDir: dir, logger: logs.logger });
    try {
      await expectLinks(store, links);
      // A link of format 2 reads as active, and can be disabled.
      await expect(store.links.setDisabled(3, DISABLING, ACTING)).resolves.toEqual({
        link: { ...links[2], disabled: DISABLING },
        changed: true,
      });
      const added = await insertNew(store.links, newLink({ alias: 'new' }));
      expect(added.id).toBe(13);
      await expect(store.links.list({ organizationId: 'acme', limit: 1 })).resolves.toEqual([
        added,
      ]);
      const messages = logs.records().filter((r) => r.msg !== 'LMDB store ready');
      expect(messages).toEqual([
        expect.objectContaining({ msg: 'indexing links', links: 12, dataDir: dir }),
        expect.objectContaining({ msg: 'links indexed', links: 12, dataDir: dir }),
        expect.objectContaining({ msg: 'LMDB store format migrated', from: 2, to: FORMAT_VERSION }),
      ]);
    } finally {
      await store.close();
    }
    expect(FORMAT_VERSION).toBe(4);
    expect(await formatVersionIn(dir)).toBe(4);

    // Opened again: nothing to build, the state kept.
    const again = captureLogs();
    const reopened = await createLmdbStore({ dataDir: dir, logger: again.logger });
    try {
      expect(again.records().map((r) => r.msg)).toEqual(['LMDB store ready']);
      await expect(reopened.links.findById(3)).resolves.toEqual({
        ...links[2],
        disabled: DISABLING,
      });
      expect(reopened.links.count()).toBe(13);
    } finally {
      await reopened.close();
    }
  });

  it('reads them without indexes when opened without migrating, or read-only, writing no index', async () => {
    const links = oldLinks(12);
    const dir = await storeOfFormat2(links);
    const admin = await createLmdbStore({ dataDir: dir, migrate: false });
    try {
      await expectLinks(admin, links);
      // Governed too: the key is found by reading the links.
      await expect(admin.links.setDisabled(5, DISABLING, ACTING)).resolves.toMatchObject({
        changed: true,
      });
      await expect(admin.links.setDisabled(99, DISABLING, ACTING)).resolves.toBeNull();
    } finally {
      await admin.close();
    }
    expect(await formatVersionIn(dir)).toBe(2);
    const withState = links.map((link) =>
      link.id === 5 ? { ...link, disabled: DISABLING } : link,
    );

    const before = await readFile(join(dir, 'data.mdb'));
    const reader = await createLmdbStore({ dataDir: dir, readOnly: true });
    try {
      await expectLinks(reader, withState);
    } finally {
      await reader.close();
    }
    await expect(readFile(join(dir, 'data.mdb'))).resolves.toEqual(before);
    const { root, dbs } = openRawDatabases(dir);
    try {
      expect(dbs.linksById.getCount()).toBe(0);
    } finally {
      await root.close();
    }
  });

  it(`indexes more than one batch (${LINK_INDEX_BATCH}) of links once, when two processes open it at once`, async () => {
    // Two processes, as in production: LMDB's locks are per process, and one process must not open
    // the same environment twice (that hung a jest worker that had opened others before).
    const count = LINK_INDEX_BATCH * 2 + 7;
    const dir = await storeOfFormat2(oldLinks(count));
    const build = await compileToTemp();
    try {
      const outputs = await Promise.all([openIn(build.dir, dir), openIn(build.dir, dir)]);
      // Each link indexed by exactly one of them, whichever came first.
      const indexed = outputs
        .flatMap((output) => output.split('\n'))
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; links?: number })
        .filter((record) => record.msg === 'links indexed')
        .map((record) => record.links ?? 0);
      expect(indexed.reduce((sum, n) => sum + n, 0)).toBe(count);
    } finally {
      await build.remove();
    }
    const store = await createLmdbStore({ dataDir: dir });
    try {
      const ids = (await listAll(store, 1000)).map((link) => link.id);
      expect(ids).toEqual(Array.from({ length: count }, (_, i) => count - i));
      await expect(store.links.findById(count)).resolves.toMatchObject({ alias: `old-${count}` });
    } finally {
      await store.close();
    }
    expect(await formatVersionIn(dir)).toBe(FORMAT_VERSION);
  });
});

/** Opens (and so upgrades) the store in `dataDir` from a process of its own; its JSON log lines. */
function openIn(buildDir: string, dataDir: string): Promise<string> {
  const script = `
const pino = require('pino');
const { createLmdbStore } = require(${JSON.stringify(join(buildDir, 'core', 'adapters', 'lmdb'))});
createLmdbStore({ dataDir: process.argv[1], logger: pino() })
  .then((store) => store.close())
  .catch((error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, dataDir],
      { env: { PATH: process.env.PATH ?? '', NODE_PATH: join(ROOT, 'node_modules') } },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    );
  });
}

describe('LMDB store: link index entries missing from a store of the current format', () => {
  it('adds them at opening (written by an older process after the upgrade, say)', async () => {
    const dir = join(await dirs.make(), 'data');
    const links: LinkRecord[] = [];
    const first = await createLmdbStore({ dataDir: dir });
    try {
      for (const link of oldLinks(12)) {
        const { id: _, ...fresh } = link;
        links.push(await insertNew(first.links, fresh));
      }
    } finally {
      await first.close();
    }
    expect(links.map((link) => link.id)).toEqual(oldLinks(12).map((link) => link.id));
    const { root, dbs } = openRawDatabases(dir);
    try {
      for (const link of links.filter((l) => l.id > 6)) {
        await dbs.linksById.remove(link.id);
        await dbs.linksByOrganization.remove(link.organizationId, link.id);
        await dbs.linksByGroup.remove([link.organizationId, link.groupApiId], link.id);
      }
    } finally {
      await root.close();
    }

    // Read-only, nothing is written: the links are read without the incomplete indexes.
    const reader = await createLmdbStore({ dataDir: dir, readOnly: true });
    try {
      await expectLinks(reader, links);
    } finally {
      await reader.close();
    }

    const logs = captureLogs();
    const store = await createLmdbStore({ dataDir: dir, logger: logs.logger });
    try {
      expect(logs.records()).toContainEqual(
        expect.objectContaining({ msg: 'links indexed', links: 6 }),
      );
      await expectLinks(store, links);
    } finally {
      await store.close();
    }
  });

  it('indexes in batches, skipping what is indexed, and concurrent builds add each link once', async () => {
    const dir = await storeOfFormat2(oldLinks(23));
    const { root, dbs } = openRawDatabases(dir);
    try {
      await expect(indexLinks(dbs, 4)).resolves.toBe(23);
      await expect(indexLinks(dbs, 4)).resolves.toBe(0);
      for (const id of [1, 2, 9, 20, 23]) await dbs.linksById.remove(id);
      const added = await Promise.all([
        indexLinks(dbs, 2),
        indexLinks(dbs, 3),
        indexLinks(dbs, 100),
      ]);
      expect(added.reduce((sum, n) => sum + n, 0)).toBe(5);
      expect(dbs.linksById.getCount()).toBe(23);
      expect(dbs.linksByOrganization.getCount()).toBe(23);
      expect(dbs.linksByGroup.getCount()).toBe(23);
      expect(dbs.linksById.get(9)).toEqual(['acme.link', 'old-9']);
      expect(dbs.linksByGroup.doesExist(['beta', '1'], 8)).toBe(true);
      expect(dbs.linksByOrganization.doesExist('acme', 8)).toBe(false);
    } finally {
      await root.close();
    }
  });
});
