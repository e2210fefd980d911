import type { Collection, WithId } from 'mongodb';
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

function toRecord(document: WithId<LinkDocument>): LinkRecord {
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
  };
}

/**
 * Links on MongoDB: the unique (domain, alias) index decides who gets an alias. The id comes
 * from the batching counter first (a document cannot be inserted without its `_id`), so a taken
 * alias has used an id: ids are unique and increasing, not gapless.
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

  findById(_id: number): Promise<LinkRecord | null> {
    return Promise.reject(new Error('TODO(mongodb): findById'));
  }

  list(_query: LinkListQuery): Promise<LinkRecord[]> {
    return Promise.reject(new Error('TODO(mongodb): list'));
  }

  setDisabled(
    _id: number,
    _disabling: LinkDisabling | null,
  ): Promise<{ link: LinkRecord; changed: boolean } | null> {
    return Promise.reject(new Error('TODO(mongodb): setDisabled'));
  }
}
