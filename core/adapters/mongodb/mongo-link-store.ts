import {
  MongoServerError,
  type Collection,
  type Filter,
  type UpdateFilter,
  type WithId,
} from 'mongodb';
import type {
  LinkCompletion,
  LinkDisabling,
  LinkListQuery,
  LinkRecord,
  LinkStore,
  NewLink,
} from '../../ports/link-store';
import { asBackendError, isDuplicateKeyOn, onMongo } from './backend-errors';
import type { IdempotencyDocument, LinkDocument } from './documents';
import { INDEXES } from './indexes';
import type { MongoIdSequence } from './mongo-id-sequence';
import { idempotencyDocumentId } from './mongo-idempotency-store';
import { insertKeyed } from './mongo-keyed-insert';

/** ShardKeyNotFound: a sharded cluster before 7.0 targets a findAndModify by the shard key only. */
const SHARD_KEY_NOT_FOUND = 61;

function toRecord(document: WithId<LinkDocument>): LinkRecord {
  const { disabled } = document;
  return {
    id: document._id,
    domain: document.domain,
    alias: document.alias,
    url: document.url,
    redirectType: document.redirectType,
    scheme: document.scheme,
    organizationId: document.organizationId,
    groupApiId: document.groupApiId,
    userId: document.userId,
    createdAt: document.createdAt,
    ...(disabled && { disabled: { reason: disabled.reason, at: disabled.at, by: disabled.by } }),
  };
}

/**
 * Links on MongoDB: the unique (domain, alias) index decides who gets an alias. The id comes
 * first, from the process's block of ids (a document cannot be inserted without its `_id`), so a
 * taken alias has used an id: ids are unique and increasing in each process, not gapless.
 */
export class MongoLinkStore implements LinkStore {
  constructor(
    private readonly links: Collection<LinkDocument>,
    private readonly ids: MongoIdSequence,
    /** The idempotency records a keyed insert is conditional on (insertCompleting). */
    private readonly records?: Collection<IdempotencyDocument>,
  ) {}

  async insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    const id = await this.ids.next();
    const record: LinkRecord = { ...link, id };
    try {
      await this.links.insertOne({ _id: id, ...link });
      return record;
    } catch (error) {
      if (isDuplicateKeyOn(error, INDEXES.linkAlias)) return 'alias_taken';
      throw asBackendError(error, 'link insert');
    }
  }

  /** Conditional writes on the record and the link: see mongo-keyed-insert.ts. */
  async insertCompleting(
    link: NewLink,
    completion: LinkCompletion,
  ): Promise<LinkRecord | 'alias_taken' | 'claim_lost'> {
    if (!this.records) throw new Error('this link store was made without the idempotency records');
    const record: LinkRecord = { ...link, id: await this.ids.next() };
    const recordId = idempotencyDocumentId(completion.scope);
    return insertKeyed(this.links, this.records, recordId, record, completion);
  }

  async findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    const document = await onMongo('link lookup', () => this.links.findOne({ domain, alias }));
    return document ? toRecord(document) : null;
  }

  /** Served by the unique (domain, alias) index: one entry read per domain (a DISTINCT_SCAN). */
  async listDomains(): Promise<string[]> {
    return onMongo('link domain listing', () => this.links.distinct('domain'));
  }

  async findById(id: number): Promise<LinkRecord | null> {
    const document = await onMongo('link lookup', () => this.links.findOne({ _id: id }));
    return document ? toRecord(document) : null;
  }

  /** Newest first by `_id`, served by the (organizationId[, groupApiId], _id: -1) indexes. */
  async list(query: LinkListQuery): Promise<LinkRecord[]> {
    // limit(0) would mean "no limit" to the server; the port's least is 1.
    const limit = Math.ceil(query.limit);
    if (!(limit >= 1)) return [];
    const filter: Filter<LinkDocument> = {};
    if (query.organizationId !== undefined) filter.organizationId = query.organizationId;
    if (query.groupApiId !== undefined) filter.groupApiId = query.groupApiId;
    if (query.beforeId !== undefined) filter._id = { $lt: query.beforeId };
    const documents = await onMongo('link listing', () =>
      this.links.find(filter).sort({ _id: -1 }).limit(limit).toArray(),
    );
    return documents.map(toRecord);
  }

  /**
   * One conditional update that matches only a link in the other state, so of concurrent calls
   * exactly one changes it (and a disabled link keeps its first reason). When it matches nothing
   * the link is read, to tell "already so" (changed false) from "no such id" (null); the state
   * read then is the link as it now is.
   */
  async setDisabled(
    id: number,
    disabling: LinkDisabling | null,
  ): Promise<{ link: LinkRecord; changed: boolean } | null> {
    const condition: Filter<LinkDocument> = disabling
      ? { _id: id, disabled: { $exists: false } }
      : { _id: id, disabled: { $exists: true } };
    const update: UpdateFilter<LinkDocument> = disabling
      ? { $set: { disabled: { reason: disabling.reason, at: disabling.at, by: disabling.by } } }
      : { $unset: { disabled: '' } };
    const updated = await onMongo('link state change', () =>
      this.updateWhere(id, condition, update),
    );
    if (updated) return { link: toRecord(updated), changed: true };
    const current = await onMongo('link lookup', () => this.links.findOne({ _id: id }));
    return current ? { link: toRecord(current), changed: false } : null;
  }

  /**
   * `findOneAndUpdate(condition, update)`. On a cluster sharded on {domain, alias} before
   * MongoDB 7.0 the server refuses a findAndModify without the shard key: the link's domain and
   * alias (which never change) are then read by id and added to the condition.
   */
  private async updateWhere(
    id: number,
    condition: Filter<LinkDocument>,
    update: UpdateFilter<LinkDocument>,
  ): Promise<WithId<LinkDocument> | null> {
    try {
      return await this.links.findOneAndUpdate(condition, update, { returnDocument: 'after' });
    } catch (error) {
      if (!(error instanceof MongoServerError) || error.code !== SHARD_KEY_NOT_FOUND) throw error;
      const key = await this.links.findOne(
        { _id: id },
        { projection: { _id: 0, domain: 1, alias: 1 } },
      );
      if (!key) return null;
      return this.links.findOneAndUpdate(
        { ...condition, domain: key.domain, alias: key.alias },
        update,
        { returnDocument: 'after' },
      );
    }
  }

  /**
   * Counted on the unique (domain, alias) index, whose keys for one domain are one range: the
   * server reads index entries only, no document, and stops at `limit`.
   */
  async countByDomain(domain: string, limit?: number): Promise<number> {
    return onMongo('link count by domain', () =>
      this.links.countDocuments(
        { domain },
        { hint: INDEXES.linkAlias.name, ...(limit !== undefined && { limit }) },
      ),
    );
  }
}
