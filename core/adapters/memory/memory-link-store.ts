import { BackendUnavailableError } from '../../errors/shortlink-error';
import type { CompletedRecord, IdempotencyScope } from '../../ports/idempotency-store';
import {
  type EveryField,
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
import { withoutAbsent } from '../../links/link-shape';
import { notBefore } from '../creation-order';
import { decideEdit, decideStateChange, type LinkDecision } from '../link-edit';

/**
 * Entries per Map. V8 refuses a Map's 2^24th entry with a RangeError; the store moves on to a
 * new Map well before that, so one process can hold more links than one Map can.
 */
const LINK_MAP_CAPACITY = 2 ** 23;

export interface MemoryLinkStoreOptions {
  /** Entries per Map before the next one is started (tests inject a small value). */
  mapCapacity?: number;
  /**
   * The most links this store takes; past it an insert fails with BackendUnavailableError
   * (BACKEND_UNAVAILABLE, as a full disk does on LMDB) and writes nothing. Unlimited when not set.
   */
  maxLinks?: number;
  /**
   * The idempotency records a keyed insert checks and completes in the same tick
   * (insertCompleting); the memory store passes its own.
   */
  claims?: MemoryClaims;
}

/** What a keyed insert needs of the idempotency records: the claim check and the completion. */
export interface MemoryClaims {
  ownsClaim(scope: IdempotencyScope, owner: string): boolean;
  completeNow(scope: IdempotencyScope, owner: string, completed: CompletedRecord): void;
}

const keyOf = (domain: string, alias: string) => `${domain}\u0000${alias}`;

/** Runs `write` now, in this tick (that is what makes it atomic); a throw becomes a rejection. */
function inThisTick<T>(write: () => T): Promise<T> {
  return new Promise((resolve) => resolve(write()));
}

/**
 * A copy, as LMDB and MongoDB answer: a caller that changes it changes nothing stored. Every
 * field is named (EveryField), so a field added to LinkRecord is flagged here.
 */
function copyOf(link: LinkRecord): LinkRecord {
  const { disabled } = link;
  const copy: EveryField<LinkRecord> = {
    id: link.id,
    domain: link.domain,
    alias: link.alias,
    url: link.url,
    redirectType: link.redirectType,
    scheme: link.scheme,
    organizationId: link.organizationId,
    groupApiId: link.groupApiId,
    userId: link.userId,
    createdAt: new Date(link.createdAt),
    disabled: disabled && { reason: disabled.reason, at: new Date(disabled.at), by: disabled.by },
    expiresAt: link.expiresAt && new Date(link.expiresAt),
    maxVisits: link.maxVisits,
    visits: link.visits,
  };
  return withoutAbsent(copy);
}

/**
 * The embedded link store. Insert is atomic because the check, the id and the write share one
 * tick; ids follow the order of the inserts (a taken alias uses none), and so do creation times
 * (notBefore). Links are also kept in id order (an array indexed by id - 1, since ids here are
 * gapless), which serves the lookups by id and the listings newest first.
 */
export class MemoryLinkStore implements LinkStore {
  private readonly maps: Array<Map<string, LinkRecord>> = [new Map<string, LinkRecord>()];
  /** Every link by id - 1: the same objects as in `maps`. */
  private readonly byId: LinkRecord[] = [];
  /** Every domain a link is stored under: links are never deleted, so it only grows. */
  private readonly domains = new Set<string>();
  /** Each link's history by id (only links that changed have one). */
  private readonly histories = new Map<number, LinkHistoryEntry[]>();
  private readonly mapCapacity: number;
  private readonly maxLinks: number;
  private readonly claims: MemoryClaims | undefined;
  private count = 0;
  private lastId = 0;

  constructor(options: MemoryLinkStoreOptions = {}) {
    this.mapCapacity = options.mapCapacity ?? LINK_MAP_CAPACITY;
    this.maxLinks = options.maxLinks ?? Number.POSITIVE_INFINITY;
    this.claims = options.claims;
  }

  insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    return inThisTick(() => {
      const record = this.prepare(link);
      if (record === 'alias_taken') return record;
      this.commit(record);
      return copyOf(record);
    });
  }

  /**
   * The claim check, the link and the completed record in one tick, so no other request can
   * claim the key in between. Everything that can throw (the answer's making) runs before the
   * first write.
   */
  insertCompleting(
    link: NewLink,
    completion: LinkCompletion,
  ): Promise<LinkRecord | 'alias_taken' | 'claim_lost'> {
    return inThisTick(() => {
      const claims = this.claims;
      if (!claims) {
        throw new Error(
          'this memory link store was made without the idempotency records it completes',
        );
      }
      const { scope, owner } = completion;
      if (!claims.ownsClaim(scope, owner)) return 'claim_lost';
      const record = this.prepare(link);
      if (record === 'alias_taken') return record;
      const answer = completion.completed(copyOf(record));
      this.commit(record);
      claims.completeNow(scope, owner, answer);
      return copyOf(record);
    });
  }

  /** The record `link` would be stored as, with the next id; nothing is written yet. */
  private prepare(link: NewLink): LinkRecord | 'alias_taken' {
    const key = keyOf(link.domain, link.alias);
    if (this.maps.some((map) => map.has(key))) return 'alias_taken';
    if (this.count >= this.maxLinks) {
      throw new BackendUnavailableError(
        `the in-memory store holds its maximum of ${this.maxLinks} links; ` +
          'use a durable store (DATA_DIR or MONGODB_URI) for more',
      );
    }
    // Only the fields a new link has: a `disabled` passed by plain JavaScript is not stored.
    return copyOf({
      ...link,
      createdAt: notBefore(link.createdAt, this.byId.at(-1)?.createdAt.getTime()),
      id: this.lastId + 1,
      disabled: undefined,
      visits: link.maxVisits === undefined ? undefined : 0,
    });
  }

  /** Stores a record `prepare` made, in the same tick. */
  private commit(record: LinkRecord): void {
    let current = this.maps[this.maps.length - 1] as Map<string, LinkRecord>;
    if (current.size >= this.mapCapacity) {
      current = new Map();
      this.maps.push(current);
    }
    this.lastId = record.id;
    current.set(keyOf(record.domain, record.alias), record);
    this.byId.push(record);
    this.domains.add(record.domain);
    this.count += 1;
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    const found = this.stored(domain, alias);
    return Promise.resolve(found ? copyOf(found) : null);
  }

  listDomains(): Promise<string[]> {
    return Promise.resolve([...this.domains]);
  }

  findById(id: number): Promise<LinkRecord | null> {
    const found = this.storedById(id);
    return Promise.resolve(found ? copyOf(found) : null);
  }

  list(query: LinkListQuery): Promise<LinkRecord[]> {
    const found: LinkRecord[] = [];
    // Creation times never decrease with ids here (prepare), so the links after a position in
    // (createdAt, id) order are those with a lower id.
    const start = Math.min(this.byId.length, (query.before?.id ?? Number.POSITIVE_INFINITY) - 1);
    for (let index = Math.ceil(start) - 1; index >= 0 && found.length < query.limit; index -= 1) {
      const link = this.byId[index] as LinkRecord;
      if (query.organizationId !== undefined && link.organizationId !== query.organizationId) {
        continue;
      }
      if (query.groupApiId !== undefined && link.groupApiId !== query.groupApiId) continue;
      found.push(copyOf(link));
    }
    return Promise.resolve(found);
  }

  setDisabled(
    id: number,
    disabling: LinkDisabling | null,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return this.change(id, (link) => decideStateChange(link, disabling, acting));
  }

  update(
    id: number,
    edit: LinkEdit,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return this.change(id, (link) => decideEdit(link, edit, acting));
  }

  takeVisit(id: number): Promise<'counted' | 'exhausted' | null> {
    return inThisTick(() => {
      const link = this.storedById(id);
      if (!link) return null;
      if (link.maxVisits === undefined) return 'counted';
      const visits = link.visits ?? 0;
      if (visits >= link.maxVisits) return 'exhausted';
      link.visits = visits + 1;
      return 'counted';
    });
  }

  history(
    id: number,
    page: { after: number; limit: number },
  ): Promise<Array<{ position: number; entry: LinkHistoryEntry }>> {
    const entries = this.histories.get(id) ?? [];
    const from = Math.max(0, Math.floor(page.after));
    return Promise.resolve(
      entries
        .slice(from, from + Math.max(0, page.limit))
        .map((entry, index) => ({ position: from + index + 1, entry: structuredClone(entry) })),
    );
  }

  /**
   * A change of the link with this id, decided on a copy and stored (with its history entry) in
   * the same tick, as a copy: no caller's object is ever the stored one.
   */
  private change(
    id: number,
    decide: (link: LinkRecord) => LinkDecision,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return inThisTick(() => {
      const link = this.storedById(id);
      if (!link) return null;
      const decided = decide(copyOf(link));
      if (decided === 'held') return decided;
      if (!decided.entry) return { link: copyOf(link), changed: false };
      this.replace(copyOf(decided.link));
      this.record(id, decided.entry);
      return { link: copyOf(decided.link), changed: true };
    });
  }

  /** Appends an entry to a link's history (kept as given: entries are never changed). */
  private record(id: number, entry: LinkHistoryEntry): void {
    const entries = this.histories.get(id);
    if (entries) entries.push(structuredClone(entry));
    else this.histories.set(id, [structuredClone(entry)]);
  }

  /** Puts `edited` in the place of the stored link with its id (same key: aliases never change). */
  private replace(edited: LinkRecord): void {
    const key = keyOf(edited.domain, edited.alias);
    for (const map of this.maps) {
      if (map.has(key)) map.set(key, edited);
    }
    this.byId[edited.id - 1] = edited;
  }

  private stored(domain: string, alias: string): LinkRecord | undefined {
    const key = keyOf(domain, alias);
    for (const map of this.maps) {
      const found = map.get(key);
      if (found) return found;
    }
    return undefined;
  }

  private storedById(id: number): LinkRecord | undefined {
    return Number.isSafeInteger(id) && id >= 1 ? this.byId[id - 1] : undefined;
  }

  /** Number of links held (for tests and memory benchmarks). */
  get size(): number {
    return this.count;
  }

  /** Number of Maps in use (tests). */
  get mapCount(): number {
    return this.maps.length;
  }

  /**
   * A walk over every link, stopping at `limit`: provisioning asks this a few times per change of
   * an organization's domain, not per request, so no per-domain count is kept on the insert path.
   */
  countByDomain(domain: string, limit = Number.POSITIVE_INFINITY): Promise<number> {
    let count = 0;
    for (const link of this.byId) {
      if (count >= limit) break;
      if (link.domain === domain) count += 1;
    }
    return Promise.resolve(count);
  }
}
