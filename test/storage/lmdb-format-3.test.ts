import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { LinkActing, LinkRecord } from '../../core';
import { createLmdbStore, DATABASES, FORMAT_VERSION, META_KEYS } from '../../core/adapters/lmdb';
import {
  LINK_ID_INDEX,
  MAX_DATABASES,
  type LinkKey,
  type StoredLink,
} from '../../core/adapters/lmdb/databases';
import { toLinkView } from '../../core/links/link-view';
import { captureLogs } from '../support/log-capture';
import { formatVersionIn, openRawDatabases } from '../support/raw-lmdb';
import { tempDirs } from '../support/temp-dirs';
import { newLink } from './fixtures';

/**
 * A store written by format-3 code (links with a state, the link indexes, no expiry, no limit, no
 * history) opened by this code: nothing is rewritten, every link reads as it was, and the store is
 * marked 4.
 */
const dirs = tempDirs('lmdb-format-3');
afterAll(() => dirs.removeAll());

const DISABLED_AT = new Date('2026-09-10T11:12:13.456Z');
const member: LinkActing = {
  at: new Date('2026-12-01T00:00:00.000Z'),
  by: 'user:carol',
  refuseHeld: true,
};
const admin: LinkActing = {
  at: new Date('2026-12-02T00:00:00.000Z'),
  by: 'admin',
  refuseHeld: false,
};

/** Link 1 active, 2 disabled by a member before actors were named (bare id), 3 by the operator. */
const LINKS: LinkRecord[] = [
  { ...newLink({ alias: 'active' }), id: 1 },
  {
    ...newLink({ alias: 'by-alice', redirectType: 302 }),
    id: 2,
    disabled: { reason: 'spam', at: DISABLED_AT, by: 'alice' },
  },
  {
    ...newLink({ alias: 'by-admin', groupApiId: '42', scheme: 'http' }),
    id: 3,
    disabled: { reason: 'phishing', at: DISABLED_AT, by: 'admin' },
  },
];

/** The tuple format-3 code wrote: 8 elements, a 9th ([reason, at, by]) while disabled. */
function format3Tuple(link: LinkRecord): StoredLink {
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
  if (link.disabled) {
    stored.push([link.disabled.reason, link.disabled.at.getTime(), link.disabled.by]);
  }
  return stored;
}

/**
 * A data directory as a format-3 release left it, written with raw lmdb-js puts (no code of this
 * release): `links`, the three link indexes, the id counter and format version 3; no
 * `link_history`.
 */
async function storeOfFormat3(): Promise<string> {
  const path = join(await dirs.make(), 'data');
  await mkdir(path, { mode: 0o700 });
  const root = open({ path, maxDbs: MAX_DATABASES });
  const meta = root.openDB<unknown, string>({ name: DATABASES.meta });
  const links = root.openDB<StoredLink, LinkKey>({ name: DATABASES.links });
  const byId = root.openDB<LinkKey, number>({ name: DATABASES.linksById });
  const byOrganization = root.openDB<number, string>({
    name: DATABASES.linksByOrganization,
    ...LINK_ID_INDEX,
  });
  const byGroup = root.openDB<number, [string, string]>({
    name: DATABASES.linksByGroup,
    ...LINK_ID_INDEX,
  });
  await root.transaction(() => {
    for (const link of LINKS) {
      const key: LinkKey = [link.domain, link.alias];
      void links.put(key, format3Tuple(link));
      void byId.put(link.id, key);
      void byOrganization.put(link.organizationId, link.id);
      void byGroup.put([link.organizationId, link.groupApiId], link.id);
    }
    void meta.put(META_KEYS.linkIds, LINKS.length);
    void meta.put(META_KEYS.formatVersion, 3);
  });
  await root.close();
  return path;
}

/** The raw tuples of the store in `dir`, by alias. */
async function tuplesIn(dir: string): Promise<Record<string, unknown[]>> {
  const { root, dbs } = openRawDatabases(dir);
  try {
    const tuples: Record<string, unknown[]> = {};
    for (const { key, value } of dbs.links.getRange()) tuples[key[1]] = value;
    return tuples;
  } finally {
    await root.close();
  }
}

describe('LMDB store: a store of format 3', () => {
  it('opens unchanged, serves its links as they were, and is marked 4 without rebuilding anything', async () => {
    const dir = await storeOfFormat3();
    const before = await tuplesIn(dir);
    expect(before.active).toHaveLength(8);
    expect(before['by-alice']).toHaveLength(9);
    const logs = captureLogs();
    const store = await createLmdbStore({ dataDir: dir, logger: logs.logger });
    try {
      for (const link of LINKS) {
        await expect(store.links.findById(link.id)).resolves.toStrictEqual(link);
        await expect(store.links.findByAlias(link.domain, link.alias)).resolves.toStrictEqual(link);
        await expect(store.links.history(link.id, { after: 0, limit: 10 })).resolves.toEqual([]);
      }
      await expect(store.links.list({ limit: 10 })).resolves.toStrictEqual([...LINKS].reverse());
      await expect(
        store.links.list({ organizationId: 'acme', groupApiId: '42', limit: 10 }),
      ).resolves.toStrictEqual([LINKS[2]]);
      // The views: a bare id as user:<id>, the operator as admin.
      const views = LINKS.map(toLinkView);
      expect(views.map((view) => [view.state, view.disabled_by])).toEqual([
        ['active', undefined],
        ['disabled', 'user:alice'],
        ['disabled', 'admin'],
      ]);
      expect(views[0]).not.toHaveProperty('disabled_by');
      expect(logs.records().map((record) => record.msg)).toEqual([
        'LMDB store format migrated',
        'LMDB store ready',
      ]);
      expect(logs.records()[0]).toMatchObject({ from: 3, to: 4 });
    } finally {
      await store.close();
    }
    expect(FORMAT_VERSION).toBe(4);
    await expect(formatVersionIn(dir)).resolves.toBe(4);
    // Nothing was rewritten.
    await expect(tuplesIn(dir)).resolves.toEqual(before);
  });

  it('takes changes then: an operator’s takedown is held, a legacy member’s is not, an edit works', async () => {
    const dir = await storeOfFormat3();
    const store = await createLmdbStore({ dataDir: dir });
    try {
      // Held: only the operator lifts link 3.
      await expect(store.links.setDisabled(3, null, member)).resolves.toBe('held');
      await expect(store.links.update(3, { url: 'https://member.example/' }, member)).resolves.toBe(
        'held',
      );
      await expect(store.links.findById(3)).resolves.toStrictEqual(LINKS[2]);
      // Link 2, disabled by alice before actors were named, is a member's: another member enables it.
      const { disabled: _, ...enabled } = LINKS[1] as LinkRecord;
      await expect(store.links.setDisabled(2, null, member)).resolves.toStrictEqual({
        link: enabled,
        changed: true,
      });
      // An edit of the active link, with a limit: its count starts.
      const edited = await store.links.update(
        1,
        { url: 'https://edited.example/', maxVisits: 2 },
        member,
      );
      const limited = { ...LINKS[0], url: 'https://edited.example/', maxVisits: 2, visits: 0 };
      expect(edited).toStrictEqual({ link: limited, changed: true });
      await expect(store.links.takeVisit(1)).resolves.toBe('counted');
      await expect(store.links.history(1, { after: 0, limit: 10 })).resolves.toEqual([
        {
          position: 1,
          entry: {
            kind: 'updated',
            at: member.at,
            by: 'user:carol',
            changes: [
              { field: 'url', from: LINKS[0]?.url, to: 'https://edited.example/' },
              { field: 'max_visits', from: null, to: '2' },
            ],
          },
        },
      ]);
      await expect(store.links.setDisabled(3, null, admin)).resolves.toMatchObject({
        changed: true,
      });
    } finally {
      await store.close();
    }
    const after = await tuplesIn(dir);
    // The edited link with its limit and count (the state and expiry null between); the enabled
    // ones back to 8 elements.
    expect(after.active).toEqual([
      ...format3Tuple({ ...(LINKS[0] as LinkRecord), url: 'https://edited.example/' }),
      null,
      null,
      2,
      1,
    ]);
    expect(after['by-alice']).toHaveLength(8);
    expect(after['by-admin']).toHaveLength(8);

    const reopened = await createLmdbStore({ dataDir: dir });
    try {
      await expect(reopened.links.findById(1)).resolves.toStrictEqual({
        ...LINKS[0],
        url: 'https://edited.example/',
        maxVisits: 2,
        visits: 1,
      });
      await expect(reopened.links.history(3, { after: 0, limit: 10 })).resolves.toHaveLength(1);
    } finally {
      await reopened.close();
    }
  });

  it('is read as it is by a read-only open (the admin listings), with no history yet', async () => {
    const dir = await storeOfFormat3();
    const reader = await createLmdbStore({ dataDir: dir, readOnly: true });
    try {
      for (const link of LINKS) {
        await expect(reader.links.findById(link.id)).resolves.toStrictEqual(link);
        await expect(reader.links.history(link.id, { after: 0, limit: 10 })).resolves.toEqual([]);
      }
    } finally {
      await reader.close();
    }
    await expect(formatVersionIn(dir)).resolves.toBe(3);
  });
});
