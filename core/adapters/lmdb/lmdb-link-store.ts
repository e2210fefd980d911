import type {
  LinkCompletion,
  LinkDisabling,
  LinkListQuery,
  LinkRecord,
  LinkStore,
  NewLink,
} from '../../ports/link-store';
import {
  fromStoredLink,
  META_KEYS,
  toStoredLink,
  type LinkKey,
  type LmdbDatabases,
} from './databases';
import { ownsClaim, replaceOwnedRecord } from './lmdb-idempotency-store';
import { onLmdb, readLmdb } from './lmdb-errors';

/**
 * Links on LMDB. One write transaction checks that the [domain, alias] key is free, takes the
 * next id from the counter in `meta` and puts the link. LMDB runs one write transaction at a
 * time per environment, across every process that opens it (the writer lock in lock.mdb), so
 * the check decides who gets an alias (never a lookup before the write), and ids are distinct
 * and increasing across every process on the DATA_DIR, starting at 1. A taken alias writes
 * nothing and uses no id.
 */
export class LmdbLinkStore implements LinkStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
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
        const record = { ...link, id: (typeof last === 'number' ? last : 0) + 1 };
        // Made before the first write: lmdb-js's transaction() commits what a callback wrote
        // before it threw (no rollback), so nothing that can throw may follow a write.
        const answer = completion?.completed(record);
        void meta.put(META_KEYS.linkIds, record.id);
        void links.put(key, toStoredLink(record));
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

  findById(_id: number): Promise<LinkRecord | null> {
    return Promise.reject(new Error('TODO(lmdb): findById'));
  }

  list(_query: LinkListQuery): Promise<LinkRecord[]> {
    return Promise.reject(new Error('TODO(lmdb): list'));
  }

  setDisabled(
    _id: number,
    _disabling: LinkDisabling | null,
  ): Promise<{ link: LinkRecord; changed: boolean } | null> {
    return Promise.reject(new Error('TODO(lmdb): setDisabled'));
  }

  /** Number of links held (tests and benchmarks). */
  count(): number {
    return this.dbs.links.getCount();
  }
}
