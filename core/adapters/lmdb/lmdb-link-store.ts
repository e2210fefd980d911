import {
  type LinkActing,
  type LinkChangeOutcome,
  type LinkCompletion,
  type LinkDisabling,
  type LinkEdit,
  type LinkHistoryEntry,
  type LinkListQuery,
  type LinkRecord,
  type LinkStore,
  type NewLink,
} from '../../ports/link-store';
import { notBefore } from '../creation-order';
import { decideEdit, decideStateChange } from '../link-edit';
import { META_KEYS, type LinkKey, type LmdbDatabases, type StoredLink } from './databases';
import { fromStoredEntry, fromStoredLink, toStoredEntry, toStoredLink } from './link-tuple';
import { ownsClaim, replaceOwnedRecord } from './lmdb-idempotency-store';
import { onLmdb, readLmdb } from './lmdb-errors';
import { indexKeysFit, putLinkIndexes } from './link-indexes';

/** Sorts after every alias of a domain: aliases are ASCII (`A-Z a-z 0-9 _ -`). */
const AFTER_EVERY_ALIAS = '\uffff';

/**
 * Links on LMDB. One write transaction checks that the [domain, alias] key is free, takes the
 * next id from the counter in `meta`, puts the link and its index entries (by id, by
 * organization, by group). LMDB runs one write transaction at a time per environment, across
 * every process that opens it (the writer lock in lock.mdb), so the check decides who gets an
 * alias (never a lookup before the write), and ids are distinct and increasing across every
 * process on the DATA_DIR, starting at 1. A taken alias writes nothing and uses no id.
 *
 * A link's creation time is no earlier than the previous link's (a create whose clock read came
 * before another's commit takes that one's time), so ids and creation times order links alike,
 * and listings, newest first by (createdAt, id), walk an index backwards from the position's id: a
 * link committed after a listing began has a higher id than every link that existed then, so
 * paging down by id repeats and misses nothing.
 */
export class LmdbLinkStore implements LinkStore {
  /**
   * @param indexed whether the link indexes are complete (see link-indexes.ts). A store of an
   * older format opened without migrating (the admin commands, read-only opens) lacks them:
   * then lookups by id and listings read every link instead, correct but slower.
   */
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
    private readonly indexed = true,
  ) {}

  async insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    const stored = await this.insertWith(link, undefined);
    // Without a completion there is no claim to lose.
    if (stored === 'claim_lost') throw new Error('an insert without a key lost a claim');
    return stored;
  }

  /**
   * The link and its keyed request's recorded answer in one write transaction, written only while
   * the request still holds its claim: a crash can leave neither or both, never a link whose key
   * still reads "running" (a retry after the lease would then create a second link), and a request
   * that lost its claim to a retry writes nothing ('claim_lost').
   */
  insertCompleting(
    link: NewLink,
    completion: LinkCompletion,
  ): Promise<LinkRecord | 'alias_taken' | 'claim_lost'> {
    return this.insertWith(link, completion);
  }

  private async insertWith(
    link: NewLink,
    completion: LinkCompletion | undefined,
  ): Promise<LinkRecord | 'alias_taken' | 'claim_lost'> {
    if (!indexKeysFit(link.organizationId, link.groupApiId)) {
      // Provisioning refuses such ids; refused before the transaction, where it writes nothing.
      throw new Error('the organization and group ids of this link are too long to index');
    }
    const key: LinkKey = [link.domain, link.alias];
    const { links, meta } = this.dbs;
    const stored = await onLmdb(this.dbs, this.path, 'link insert', () =>
      links.transaction((): LinkRecord | 'claim_lost' | undefined => {
        // A keyed create whose claim another request has taken over writes nothing: checked in
        // the transaction that writes, so no claim can come in between.
        if (completion && !ownsClaim(this.dbs, completion.scope, completion.owner)) {
          return 'claim_lost';
        }
        if (links.doesExist(key)) return undefined;
        const last = meta.get(META_KEYS.linkIds);
        const lastId = typeof last === 'number' ? last : 0;
        const record: LinkRecord = {
          ...link,
          createdAt: notBefore(link.createdAt, this.createdAtOf(lastId)),
          id: lastId + 1,
          ...(link.maxVisits !== undefined && { visits: 0 }),
        };
        // Made before the first write: lmdb-js's transaction() commits what a callback wrote
        // before it threw (no rollback), so nothing that can throw may follow a write.
        const answer = completion?.completed(record);
        const value = toStoredLink(record);
        void meta.put(META_KEYS.linkIds, record.id);
        void links.put(key, value);
        putLinkIndexes(this.dbs, key, record.id, record.organizationId, record.groupApiId);
        if (completion && answer) {
          replaceOwnedRecord(this.dbs, completion.scope, completion.owner, answer);
        }
        return record;
      }),
    );
    // The commit made the link visible to every process and safe from a crash of this one; the
    // create waits for the fsync (Store.flush) before it answers.
    return stored ?? 'alias_taken';
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    return readLmdb(this.dbs, this.path, 'link lookup', () => {
      const key: LinkKey = [domain, alias];
      const stored = this.dbs.links.get(key);
      return stored ? fromStoredLink(key, stored) : null;
    });
  }

  /**
   * Links are keyed [domain, alias], sorted by domain first: one seek per domain, each past the
   * last alias of the one before (aliases are ASCII, so every one sorts below U+FFFF), rather
   * than a walk over every link.
   */
  listDomains(): Promise<string[]> {
    return readLmdb(this.dbs, this.path, 'link domain listing', () => {
      const domains: string[] = [];
      let start: LinkKey | undefined;
      for (;;) {
        const [next] = [...this.dbs.links.getKeys(start ? { start, limit: 1 } : { limit: 1 })];
        if (next === undefined) return domains;
        domains.push(next[0]);
        start = [next[0], AFTER_EVERY_ALIAS];
      }
    });
  }

  findById(id: number): Promise<LinkRecord | null> {
    return readLmdb(this.dbs, this.path, 'link lookup by id', () => {
      const key = this.keyOf(id);
      return key ? this.linkAt(key, id) : null;
    });
  }

  list(query: LinkListQuery): Promise<LinkRecord[]> {
    return readLmdb(this.dbs, this.path, 'link listing', () => {
      // Creation times never decrease with ids here (insert), so the links after a position in
      // (createdAt, id) order are those with a lower id.
      const below = query.before?.id ?? Number.POSITIVE_INFINITY;
      // No id is below 1 (nor below NaN).
      if (!(below > 1) || !(query.limit >= 1)) return [];
      if (!this.indexed) return this.listReadingAll(query, below);
      const found: LinkRecord[] = [];
      for (const id of this.idsDownFrom(query, below)) {
        // The range starts at `below` itself (inclusive), and beforeId is exclusive.
        if (id >= below) continue;
        const key = this.dbs.linksById.get(id);
        const link = key && this.linkAt(key, id);
        if (link && matches(link, query)) found.push(link);
        if (found.length >= query.limit) break;
      }
      return found;
    });
  }

  /**
   * One read and at most one write in one write transaction, with the history entry: a link
   * already in the asked state is answered as it is (a disabled link keeps its first reason, time
   * and author).
   */
  setDisabled(
    id: number,
    disabling: LinkDisabling | null,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return this.change(id, 'link state change', (link) =>
      decideStateChange(link, disabling, acting),
    );
  }

  update(
    id: number,
    edit: LinkEdit,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return this.change(id, 'link update', (link) => decideEdit(link, edit, acting));
  }

  /** Only a link with a limit writes: its count, in a write transaction of its own. */
  async takeVisit(id: number): Promise<'counted' | 'exhausted' | null> {
    let answer: 'counted' | 'exhausted' = 'counted';
    const outcome = await this.change(id, 'link visit', (link) => {
      if (link.maxVisits === undefined) return { link, entry: null };
      const visits = link.visits ?? 0;
      if (visits >= link.maxVisits) {
        answer = 'exhausted';
        return { link, entry: null };
      }
      return { link: { ...link, visits: visits + 1 }, entry: null, write: true };
    });
    return outcome === null ? null : answer;
  }

  history(
    id: number,
    page: { after: number; limit: number },
  ): Promise<Array<{ position: number; entry: LinkHistoryEntry }>> {
    return readLmdb(this.dbs, this.path, 'link history', () => {
      // A store of an older format opened read-only has no `link_history` (a read-only open
      // creates no database): none of its links has changed since.
      const linkHistory = this.dbs.linkHistory as LmdbDatabases['linkHistory'] | undefined;
      if (!linkHistory || !isLinkId(id) || !(page.limit >= 1)) return [];
      const entries: Array<{ position: number; entry: LinkHistoryEntry }> = [];
      const range = {
        start: [id, Math.max(0, Math.floor(page.after)) + 1],
        end: [id, Number.MAX_SAFE_INTEGER],
        limit: Math.floor(page.limit),
      };
      for (const { key, value } of linkHistory.getRange(range)) {
        entries.push({ position: key[1], entry: fromStoredEntry(value) });
      }
      return entries;
    });
  }

  /**
   * Reads the link with this id and writes what `decide` makes of it, in one write transaction:
   * the link when it changed (or `write` says so) and its history entry at the next position.
   */
  private async change(
    id: number,
    operation: string,
    decide: (
      link: LinkRecord,
    ) => { link: LinkRecord; entry: LinkHistoryEntry | null; write?: boolean } | 'held',
  ): Promise<LinkChangeOutcome | 'held' | null> {
    // Without the indexes the key is found by reading every link, outside the write transaction
    // (LMDB's single writer is not held for a full read); a link's key never changes.
    const scanned = this.indexed
      ? undefined
      : await readLmdb(this.dbs, this.path, 'link lookup by id', () => this.keyOf(id));
    if (scanned === null) return null;
    const { links, linksById, linkHistory } = this.dbs;
    return onLmdb(this.dbs, this.path, operation, () =>
      links.transaction((): LinkChangeOutcome | 'held' | null => {
        const key = scanned ?? (isLinkId(id) ? linksById.get(id) : undefined);
        const stored = key && links.get(key);
        if (!key || !stored || stored[0] !== id) return null;
        const decided = decide(fromStoredLink(key, stored));
        if (decided === 'held') return decided;
        // Everything that can throw runs before the first write (lmdb-js commits what a callback
        // wrote before it threw).
        const value = decided.entry || decided.write ? toStoredLink(decided.link) : undefined;
        const entry = decided.entry && toStoredEntry(decided.entry);
        if (value) void links.put(key, value);
        if (entry) void linkHistory.put([id, this.lastPosition(id) + 1], entry);
        return { link: decided.link, changed: decided.entry !== null };
      }),
    );
  }

  /** The position of the link's last history entry; 0 when it has none. */
  private lastPosition(id: number): number {
    const range = { start: [id, Number.MAX_SAFE_INTEGER], end: [id, 0], reverse: true, limit: 1 };
    for (const key of this.dbs.linkHistory.getKeys(range)) return key[1];
    return 0;
  }

  /** The creation time (ms) of the link with this id, when the index finds it. */
  private createdAtOf(id: number): number | undefined {
    const key = isLinkId(id) && this.indexed ? this.dbs.linksById.get(id) : undefined;
    const stored = key && this.dbs.links.get(key);
    return stored && stored[0] === id ? stored[7] : undefined;
  }

  /** Number of links held (tests and benchmarks). */
  count(): number {
    return this.dbs.links.getCount();
  }

  /** The [domain, alias] of the link with this id, or null. */
  private keyOf(id: number): LinkKey | null {
    if (!isLinkId(id)) return null;
    if (this.indexed) return this.dbs.linksById.get(id) ?? null;
    for (const { key, value } of this.dbs.links.getRange()) {
      if (value[0] === id) return key;
    }
    return null;
  }

  /** The link stored at `key`, when it is the link with this id. */
  private linkAt(key: LinkKey, id: number): LinkRecord | null {
    const stored = this.dbs.links.get(key);
    return stored && stored[0] === id ? fromStoredLink(key, stored) : null;
  }

  /**
   * The ids `query` names, from `below` (inclusive) down, each from the narrowest index: ids only
   * (one snapshot), no link of another organization or group read.
   */
  private idsDownFrom(query: LinkListQuery, below: number): Iterable<number> {
    const { organizationId, groupApiId } = query;
    const range = { start: below, reverse: true };
    if (organizationId === undefined) {
      // Every link (a group without its organization too, filtered by `matches`).
      return this.dbs.linksById.getKeys(range);
    }
    if (!indexKeysFit(organizationId, groupApiId ?? '')) return [];
    return groupApiId === undefined
      ? this.dbs.linksByOrganization.getValues(organizationId, range)
      : this.dbs.linksByGroup.getValues([organizationId, groupApiId], range);
  }

  /** list() without the indexes: every link read, the newest `limit` below `below` kept. */
  private listReadingAll(query: LinkListQuery, below: number): LinkRecord[] {
    const kept: Array<{ key: LinkKey; value: StoredLink }> = [];
    for (const { key, value } of this.dbs.links.getRange()) {
      const [id, , , , organizationId, groupApiId] = value;
      if (id >= below || !matches({ organizationId, groupApiId }, query)) continue;
      kept.push({ key, value });
      // Sorted down by id and cut to `limit` now and then, so memory stays near `limit` links.
      if (kept.length >= 2 * query.limit + 1024) newestFirst(kept, query.limit);
    }
    return newestFirst(kept, query.limit).map(({ key, value }) => fromStoredLink(key, value));
  }

  /**
   * Links are keyed [domain, alias], sorted by domain first: the domain's links are one range of
   * keys, from [domain] to past its last alias, walked without reading their values and no
   * further than `limit` (lmdb-js's getKeysCount ignores a limit).
   */
  countByDomain(domain: string, limit?: number): Promise<number> {
    return readLmdb(this.dbs, this.path, 'link count by domain', () => {
      const keys = this.dbs.links.getKeys({
        start: [domain],
        end: [domain, AFTER_EVERY_ALIAS],
        ...(limit !== undefined && { limit }),
      });
      let count = 0;
      for (const _key of keys) count += 1;
      return count;
    });
  }
}

function isLinkId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1;
}

function matches(
  link: Pick<LinkRecord, 'organizationId' | 'groupApiId'>,
  query: LinkListQuery,
): boolean {
  return (
    (query.organizationId === undefined || link.organizationId === query.organizationId) &&
    (query.groupApiId === undefined || link.groupApiId === query.groupApiId)
  );
}

/** Sorts `entries` by id from the highest down and cuts it to `limit`, in place. */
function newestFirst<T extends { value: StoredLink }>(entries: T[], limit: number): T[] {
  entries.sort((a, b) => b.value[0] - a.value[0]);
  entries.length = Math.min(entries.length, limit);
  return entries;
}
