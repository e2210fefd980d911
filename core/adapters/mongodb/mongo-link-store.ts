import type { Collection, Filter } from 'mongodb';
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
import { decideEdit, decideStateChange } from '../link-edit';
import { asBackendError, isDuplicateKeyOn, onMongo } from './backend-errors';
import type { HistoryDocument, IdempotencyDocument, LinkDocument } from './documents';
import { toLinkFields, toLinkRecord as toRecord } from './link-document';
import { changeLink } from './mongo-link-changes';
import { INDEXES } from './indexes';
import type { MongoIdSequence } from './mongo-id-sequence';
import { idempotencyDocumentId } from './mongo-idempotency-store';
import { insertKeyed } from './mongo-keyed-insert';

/** A new link's record: its id, and a count of 0 when it has a limit of visits. */
function newRecord(link: NewLink, id: number): LinkRecord {
  return { ...link, id, ...(link.maxVisits !== undefined && { visits: 0 }) };
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
    /** Every link's history entries (update, setDisabled). */
    private readonly linkHistory: Collection<HistoryDocument>,
    /** The idempotency records a keyed insert is conditional on (insertCompleting). */
    private readonly records?: Collection<IdempotencyDocument>,
  ) {}

  async insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    const record = newRecord(link, await this.ids.next());
    try {
      await this.links.insertOne(toLinkFields(record));
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
    const record = newRecord(link, await this.ids.next());
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

  /**
   * Newest first by `createdAt`, then `_id` (ids of several processes' blocks do not follow
   * time), served by the (organizationId[, groupApiId], createdAt: -1, _id: -1) indexes, or
   * (createdAt: -1, _id: -1) for every link.
   */
  async list(query: LinkListQuery): Promise<LinkRecord[]> {
    // limit(0) would mean "no limit" to the server; the port's least is 1.
    const limit = Math.ceil(query.limit);
    if (!(limit >= 1)) return [];
    const filter: Filter<LinkDocument> = {};
    if (query.organizationId !== undefined) filter.organizationId = query.organizationId;
    if (query.groupApiId !== undefined) filter.groupApiId = query.groupApiId;
    if (query.before !== undefined) {
      const { createdAt, id } = query.before;
      filter.$or = [{ createdAt: { $lt: createdAt } }, { createdAt, _id: { $lt: id } }];
    }
    const documents = await onMongo('link listing', () =>
      this.links.find(filter).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray(),
    );
    return documents.map(toRecord);
  }

  /** A change conditional on the link's revision, with its history entry: mongo-link-changes.ts. */
  setDisabled(
    id: number,
    disabling: LinkDisabling | null,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return changeLink(this.links, this.linkHistory, id, 'link state change', (link) =>
      decideStateChange(link, disabling, acting),
    );
  }

  update(
    id: number,
    edit: LinkEdit,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return changeLink(this.links, this.linkHistory, id, 'link update', (link) =>
      decideEdit(link, edit, acting),
    );
  }

  /**
   * One conditional `$inc` that matches only a link below its limit, so of concurrent follows
   * across every process exactly `maxVisits` are counted. When it matches nothing the link is
   * read, to tell a link without a limit or an unknown id from a used-up limit.
   */
  async takeVisit(id: number): Promise<'counted' | 'exhausted' | null> {
    const counted = await onMongo('link visit', () =>
      this.links.updateOne(
        {
          _id: id,
          maxVisits: { $exists: true },
          $expr: { $lt: [{ $ifNull: ['$visits', 0] }, '$maxVisits'] },
        },
        { $inc: { visits: 1 } },
      ),
    );
    if (counted.matchedCount === 1) return 'counted';
    const link = await onMongo('link lookup', () =>
      this.links.findOne({ _id: id }, { projection: { maxVisits: 1 } }),
    );
    if (!link) return null;
    return link.maxVisits == null ? 'counted' : 'exhausted';
  }

  /** Served by `_id` ({link, position}); the last change, if not yet copied, from the link. */
  async history(
    id: number,
    page: { after: number; limit: number },
  ): Promise<Array<{ position: number; entry: LinkHistoryEntry }>> {
    const limit = Math.floor(page.limit);
    if (!(limit >= 1)) return [];
    const after = Math.max(0, Math.floor(page.after));
    const [documents, link] = await Promise.all([
      onMongo('link history', () =>
        this.linkHistory
          .find({ '_id.link': id, '_id.position': { $gt: after } })
          .sort({ '_id.link': 1, '_id.position': 1 })
          .limit(limit)
          .toArray(),
      ),
      onMongo('link lookup', () =>
        this.links.findOne({ _id: id }, { projection: { lastChange: 1 } }),
      ),
    ]);
    const last = link?.lastChange;
    if (
      last &&
      last._id.position > after &&
      !documents.some((d) => d._id.position === last._id.position)
    ) {
      documents.push(last);
    }
    return documents
      .sort((a, b) => a._id.position - b._id.position)
      .slice(0, limit)
      .map(({ _id, ...entry }) => ({ position: _id.position, entry }));
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
