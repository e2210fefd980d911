import type { Collection, WithId } from 'mongodb';
import type { InsertOutcome, LinkRecord, LinkStore } from '../../ports/link-store';
import { asBackendError, isDuplicateKeyOn, onMongo } from './backend-errors';
import type { LinkDocument } from './documents';
import { INDEXES } from './indexes';

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

/** Links on MongoDB: the unique (domain, alias) index decides who gets an alias. */
export class MongoLinkStore implements LinkStore {
  constructor(private readonly links: Collection<LinkDocument>) {}

  async insert(link: LinkRecord): Promise<InsertOutcome> {
    const { id, ...fields } = link;
    try {
      await this.links.insertOne({ _id: id, ...fields });
      return 'inserted';
    } catch (error) {
      if (isDuplicateKeyOn(error, INDEXES.linkAlias)) return 'alias_taken';
      throw asBackendError(error, 'link insert');
    }
  }

  async findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    const document = await onMongo('link lookup', () => this.links.findOne({ domain, alias }));
    return document ? toRecord(document) : null;
  }
}
