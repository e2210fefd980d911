import type { LinkKey, LmdbDatabases } from './databases';

/**
 * The link indexes (`links_by_id`, `links_by_organization`, `links_by_group`): what one link puts
 * in them, and how a store written before they existed gets them.
 */

/** Links read and indexed per write transaction when the indexes are built at opening. */
export const LINK_INDEX_BATCH = 5_000;

/**
 * lmdb-js refuses a key longer than 1978 bytes (its build's maximum). An organization key and a
 * group key hold both ids, each at most MAX_ID_LENGTH (255) characters, so at most 765 bytes of
 * UTF-8: far below. Checked before a link's transaction anyway, so that no index put can throw
 * after the link's own put (lmdb-js commits what a transaction callback wrote before it threw).
 */
const MAX_INDEXED_ID_BYTES = 1_900;

/** Whether a link of this organization and group fits in the indexes' keys. */
export function indexKeysFit(organizationId: string, groupApiId: string): boolean {
  return Buffer.byteLength(organizationId) + Buffer.byteLength(groupApiId) <= MAX_INDEXED_ID_BYTES;
}

/**
 * Puts one link's three index entries; call inside the link's write transaction, after
 * indexKeysFit said yes (then nothing here throws). Ids only grow, so each entry goes at the end
 * of its tree (`links_by_id`'s, or the organization's or group's own tree of ids), where LMDB
 * fills pages instead of splitting them in half: a few dozen bytes per link, and the pages a
 * create changes are mostly the ones the previous create changed.
 */
export function putLinkIndexes(
  dbs: LmdbDatabases,
  key: LinkKey,
  id: number,
  organizationId: string,
  groupApiId: string,
): void {
  void dbs.linksById.put(id, key);
  // Putting a pair that exists already adds nothing (duplicate keys, not duplicate pairs).
  void dbs.linksByOrganization.put(organizationId, id);
  void dbs.linksByGroup.put([organizationId, groupApiId], id);
}

/**
 * Whether every link has its index entries, told by counting (LMDB keeps each database's count,
 * so this reads two numbers): a link and its entries are written in one transaction, and neither
 * is ever removed, so equal counts mean complete indexes. Unequal: a store written before the
 * indexes existed, or by a process of an older release after this one upgraded the store.
 */
export function linkIndexesComplete(dbs: LmdbDatabases): boolean {
  return dbs.linksById.getCount() === dbs.links.getCount();
}

/**
 * Adds the index entries of every link that lacks them, reading `links` in key order,
 * `batchSize` links per write transaction, so a large store does not hold LMDB's single writer
 * (shared by every process on the directory) for long, and a running server's creates get
 * their turn between batches. Safe when several processes do it at once, and beside creates:
 * a link with its `links_by_id` entry has the other two (written together), and an entry only
 * ever holds what the link already says (its organization, group and key never change), so
 * whoever writes it first, the result is the same. A build cut short (a crash) leaves whole
 * batches, and the next one skips what they indexed. Answers how many links it indexed.
 */
export async function indexLinks(
  dbs: LmdbDatabases,
  batchSize: number = LINK_INDEX_BATCH,
): Promise<number> {
  const { links, linksById } = dbs;
  let after: LinkKey | undefined;
  let indexed = 0;
  for (;;) {
    const from = after;
    const batch = await links.transaction(() => {
      let read = 0;
      let added = 0;
      let last: LinkKey | undefined;
      // `start` is inclusive: the previous batch's last key comes again, and is skipped.
      const range = links.getRange(
        from ? { start: from, limit: batchSize + 1 } : { limit: batchSize },
      );
      for (const { key, value } of range) {
        if (from && key[0] === from[0] && key[1] === from[1]) continue;
        read += 1;
        last = key;
        const [id, , , , organizationId, groupApiId] = value;
        if (linksById.doesExist(id)) continue;
        if (indexKeysFit(organizationId, groupApiId)) {
          putLinkIndexes(dbs, key, id, organizationId, groupApiId);
        } else {
          // Never written by this code (insert refuses such a link): found by id, not listed.
          void linksById.put(id, key);
        }
        added += 1;
      }
      return { read, added, last };
    });
    indexed += batch.added;
    if (batch.read < batchSize || !batch.last) return indexed;
    after = batch.last;
  }
}
