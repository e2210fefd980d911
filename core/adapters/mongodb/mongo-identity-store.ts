import type { Collection, Db } from 'mongodb';
import {
  GroupExistsError,
  LinkDomainTakenError,
  OrganizationExistsError,
  OrganizationKeyTakenError,
  TokenTakenError,
  UserExistsError,
} from '../../errors/shortlink-error';
import type * as ports from '../../ports/identity-store';
import { isDuplicateKeyOn, onMongo, upsertRacing } from './backend-errors';
import {
  COLLECTIONS,
  type GroupDocument,
  type MembershipDocument,
  type OrganizationDocument,
  type TokenDocument,
  type UserDocument,
} from './documents';
import { ID_INDEX, INDEXES } from './indexes';

function toOrganization(document: OrganizationDocument): ports.Organization {
  return {
    id: document._id,
    name: document.name,
    domain: document.domain,
    scheme: document.scheme,
    active: document.active,
    keyHash: document.keyHash,
  };
}

/** Users, tokens (hashes), organizations (key hashes), groups and memberships on MongoDB. */
export class MongoIdentityStore implements ports.IdentityStore {
  private readonly organizations: Collection<OrganizationDocument>;
  private readonly groups: Collection<GroupDocument>;
  private readonly users: Collection<UserDocument>;
  private readonly tokens: Collection<TokenDocument>;
  private readonly memberships: Collection<MembershipDocument>;

  constructor(db: Db) {
    this.organizations = db.collection(COLLECTIONS.organizations);
    this.groups = db.collection(COLLECTIONS.groups);
    this.users = db.collection(COLLECTIONS.users);
    this.tokens = db.collection(COLLECTIONS.tokens);
    this.memberships = db.collection(COLLECTIONS.memberships);
  }

  async findUserIdByTokenHash(tokenHash: string): Promise<string | null> {
    const token = await onMongo('token lookup', () => this.tokens.findOne({ tokenHash }));
    return token?.userId ?? null;
  }

  async findOrganizationByKeyHash(keyHash: string): Promise<ports.Organization | null> {
    const document = await onMongo('organization lookup', () =>
      this.organizations.findOne({ keyHash }),
    );
    return document ? toOrganization(document) : null;
  }

  async findOrganizationById(id: string): Promise<ports.Organization | null> {
    const document = await onMongo('organization lookup', () =>
      this.organizations.findOne({ _id: id }),
    );
    return document ? toOrganization(document) : null;
  }

  async isMember(userId: string, organizationId: string): Promise<boolean> {
    const found = await onMongo('membership lookup', () =>
      this.memberships.findOne({ userId, organizationId }, { projection: { _id: 1 } }),
    );
    return found !== null;
  }

  async findGroup(organizationId: string, apiId: string): Promise<ports.UrlGroup | null> {
    const document = await onMongo('group lookup', () =>
      this.groups.findOne({ organizationId, apiId }),
    );
    return document
      ? { organizationId: document.organizationId, apiId: document.apiId, name: document.name }
      : null;
  }

  async listLinkDomains(): Promise<string[]> {
    return onMongo('link domain listing', () => this.organizations.distinct('domain'));
  }

  async findUserById(id: string): Promise<ports.User | null> {
    const document = await onMongo('user lookup', () => this.users.findOne({ _id: id }));
    return document ? { id: document._id, name: document.name } : null;
  }

  /** One query per collection (a standalone server has no snapshot across them). */
  async listAll(): Promise<ports.IdentitySnapshot> {
    return onMongo('identity listing', async () => {
      const [organizations, groups, users, tokens, memberships] = await Promise.all([
        this.organizations.find({}).toArray(),
        this.groups.find({}).toArray(),
        this.users.find({}).toArray(),
        this.tokens.find({}).toArray(),
        this.memberships.find({}).toArray(),
      ]);
      return {
        organizations: organizations.map(toOrganization),
        groups: groups.map(({ organizationId, apiId, name }) => ({ organizationId, apiId, name })),
        users: users.map(({ _id, name }) => ({ id: _id, name })),
        tokens: tokens.map(({ tokenHash, userId, createdAt }) => ({
          tokenHash,
          userId,
          createdAt,
        })),
        memberships: memberships.map(({ userId, organizationId }) => ({ userId, organizationId })),
      };
    });
  }

  saveOrganization(organization: ports.Organization): Promise<void> {
    return this.writeOrganization(organization, false);
  }

  insertOrganization(organization: ports.Organization): Promise<void> {
    return this.writeOrganization(organization, true);
  }

  private async writeOrganization(
    organization: ports.Organization,
    onlyNew: boolean,
  ): Promise<void> {
    const { id, ...fields } = organization;
    // Create only: an insert, which the unique `_id` refuses when the id exists.
    const write = (): Promise<unknown> =>
      onlyNew
        ? this.organizations.insertOne({ _id: id, ...fields })
        : upsertRacing(() => this.organizations.replaceOne({ _id: id }, fields, { upsert: true }));
    try {
      await onMongo('organization save', write);
    } catch (error) {
      if (onlyNew && isDuplicateKeyOn(error, ID_INDEX)) {
        throw new OrganizationExistsError(id, { cause: error });
      }
      if (isDuplicateKeyOn(error, INDEXES.organizationDomain)) {
        throw new LinkDomainTakenError(organization.domain, { cause: error });
      }
      if (isDuplicateKeyOn(error, INDEXES.organizationKeyHash)) {
        throw new OrganizationKeyTakenError(id, { cause: error });
      }
      throw error;
    }
  }

  /**
   * One findOneAndUpdate that sets only the changed fields, so a concurrent change of another
   * field is kept; the unique key-hash index refuses a key another organization holds.
   */
  async updateOrganization(
    id: string,
    change: ports.OrganizationChange,
  ): Promise<ports.Organization | null> {
    try {
      const document = await onMongo('organization update', () =>
        this.organizations.findOneAndUpdate(
          { _id: id },
          { $set: change },
          { returnDocument: 'after' },
        ),
      );
      return document ? toOrganization(document) : null;
    } catch (error) {
      if (isDuplicateKeyOn(error, INDEXES.organizationKeyHash)) {
        throw new OrganizationKeyTakenError(id, { cause: error });
      }
      throw error;
    }
  }

  /**
   * An insert, which the unique (organizationId, apiId) index refuses when the group exists (and
   * so does the unique `_id`, the same pair, for a group written by this version).
   */
  async insertGroup(group: ports.UrlGroup): Promise<void> {
    const { organizationId, apiId, name } = group;
    try {
      await onMongo('group save', () =>
        this.groups.insertOne({ _id: { organizationId, apiId }, organizationId, apiId, name }),
      );
    } catch (error) {
      if (isDuplicateKeyOn(error, INDEXES.groupApiId) || isDuplicateKeyOn(error, ID_INDEX)) {
        throw new GroupExistsError(organizationId, apiId, { cause: error });
      }
      throw error;
    }
  }

  /** An insert, which the unique `_id` refuses when the user exists. */
  async insertUser(user: ports.User): Promise<void> {
    try {
      await onMongo('user save', () => this.users.insertOne({ _id: user.id, name: user.name }));
    } catch (error) {
      if (isDuplicateKeyOn(error, ID_INDEX)) throw new UserExistsError(user.id, { cause: error });
      throw error;
    }
  }

  async saveGroup(group: ports.UrlGroup): Promise<void> {
    const { organizationId, apiId, name } = group;
    await onMongo('group save', () =>
      upsertRacing(() =>
        this.groups.updateOne(
          { organizationId, apiId },
          { $set: { name }, $setOnInsert: { _id: { organizationId, apiId } } },
          { upsert: true },
        ),
      ),
    );
  }

  async saveUser(user: ports.User): Promise<void> {
    await onMongo('user save', () =>
      upsertRacing(() =>
        this.users.replaceOne({ _id: user.id }, { name: user.name }, { upsert: true }),
      ),
    );
  }

  /**
   * A token hash, once saved, keeps its user: one upsert that writes only when the hash is new
   * and returns the stored document, whose user tells whether another user holds it.
   */
  async saveToken(token: ports.TokenRecord): Promise<void> {
    const stored = await onMongo('token save', () =>
      upsertRacing(() =>
        this.tokens.findOneAndUpdate(
          { tokenHash: token.tokenHash },
          {
            $setOnInsert: {
              _id: token.tokenHash,
              userId: token.userId,
              createdAt: token.createdAt,
            },
          },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
    );
    if (stored && stored.userId !== token.userId) throw new TokenTakenError(token.userId);
  }

  /** One findOneAndDelete: the document it answers is the one it removed. */
  async removeToken(tokenHash: string): Promise<string | null> {
    const removed = await onMongo('token removal', () =>
      this.tokens.findOneAndDelete({ tokenHash }),
    );
    return removed?.userId ?? null;
  }

  /**
   * One deleteMany, atomic per token (MongoDB has no atomic multi-document write outside a
   * transaction, and a standalone server has none): a token saved for the user while it runs may
   * stay, as it would had it been saved a moment later.
   */
  async removeTokensOfUser(userId: string): Promise<number> {
    const result = await onMongo('token removal', () => this.tokens.deleteMany({ userId }));
    return result.deletedCount;
  }

  async saveMembership(userId: string, organizationId: string): Promise<void> {
    await onMongo('membership save', () =>
      upsertRacing(() =>
        this.memberships.updateOne(
          { userId, organizationId },
          { $setOnInsert: { _id: { userId, organizationId }, userId, organizationId } },
          { upsert: true },
        ),
      ),
    );
  }
}
