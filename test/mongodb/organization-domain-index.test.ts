import { MongoServerError } from 'mongodb';
import {
  LinkDomainTakenError,
  OrganizationExistsError,
  Provisioner,
  ProvisioningError,
  systemClock,
} from '../../core';
import { ensureIndexes, INDEXES } from '../../core/adapters/mongodb/indexes';
import { MongoIdentityStore } from '../../core/adapters/mongodb/mongo-identity-store';
import { organization } from '../storage/fixtures';
import { withNoLinks } from '../support/no-links';
import { FakeMongo } from '../support/fake-mongo-db';
import { scriptedDb } from '../support/scripted-mongo-db';

/**
 * The unique key on organizations' link domains, checked with a fake Db that records the
 * driver calls and answers as a server does (a duplicate-key write error naming the index).
 * The real server run is test/storage's contract suite, where MONGODB_URI reaches one.
 */
function fakeDb(
  replaceOne: () => Promise<unknown>,
  insertOne: (document: unknown) => Promise<unknown> = () => Promise.resolve({}),
) {
  const { db } = scriptedDb(({ method, args }) => {
    if (method === 'replaceOne') return replaceOne();
    if (method === 'insertOne') return insertOne(args[0]);
    return Promise.resolve(null);
  });
  return { db };
}

/** The duplicate-key error a server gives for `field` = `value` on the organizations' `index`. */
const duplicateKey = (index: string, field: string, value: string) =>
  new MongoServerError({
    code: 11000,
    errmsg: `E11000 duplicate key error collection: shortlink.organizations index: ${index} dup key: { ${field}: "${value}" }`,
    keyPattern: { [field]: 1 },
    keyValue: { [field]: value },
  });
const duplicateDomain = () => duplicateKey('domain_unique', 'domain', 'acme.link');
const duplicateId = () => duplicateKey('_id_', '_id', 'acme');

describe('MongoDB: an organization created only when new', () => {
  const acme = organization();

  it('inserts (never upserts), so the unique _id decides between concurrent creates', async () => {
    const inserted: unknown[] = [];
    let replaced = 0;
    const { db } = fakeDb(
      () => {
        replaced += 1;
        return Promise.resolve({});
      },
      (document) => {
        inserted.push(document);
        return Promise.resolve({ insertedId: 'acme' });
      },
    );
    await new MongoIdentityStore(db).insertOrganization(acme);
    const { id, ...fields } = acme;
    expect(inserted).toEqual([{ _id: id, ...fields }]);
    expect(replaced).toBe(0);
  });

  it('turns a duplicate _id into OrganizationExistsError, and `org create` into a clear refusal', async () => {
    let inserts = 0;
    const { db } = fakeDb(
      () => Promise.reject(new Error('an upsert must not run')),
      () => {
        inserts += 1;
        return Promise.reject(duplicateId());
      },
    );
    const store = new MongoIdentityStore(db);
    await expect(store.insertOrganization(acme)).rejects.toBeInstanceOf(OrganizationExistsError);
    expect(inserts).toBe(1);
    const refusal = new Provisioner(withNoLinks(store), systemClock).createOrganization({
      id: 'acme',
      domain: 'other.link',
    });
    await expect(refusal).rejects.toBeInstanceOf(ProvisioningError);
    await expect(refusal).rejects.toThrow('organization "acme" already exists');
  });
});

describe('MongoDB: one organization per link domain', () => {
  it('creates a unique index on the organizations link domain', async () => {
    const mongo = new FakeMongo();
    await ensureIndexes(mongo.db());
    expect(mongo.indexes.get('organizations')).toContainEqual({
      name: 'domain_unique',
      key: { domain: 1 },
      unique: true,
    });
    expect(INDEXES.organizationDomain.unique).toBe(true);
  });

  it('turns a duplicate key on that index into LinkDomainTakenError, and provisioning into a clear refusal', async () => {
    let calls = 0;
    const { db } = fakeDb(() => {
      calls += 1;
      return Promise.reject(duplicateDomain());
    });
    const store = new MongoIdentityStore(db);
    const organization = {
      id: 'beta',
      name: 'Beta',
      domain: 'acme.link',
      scheme: 'https' as const,
      active: true,
      keyHash: 'b'.repeat(64),
    };
    await expect(store.saveOrganization(organization)).rejects.toBeInstanceOf(LinkDomainTakenError);
    // The upsert race retry ran once more, and the index still said no.
    expect(calls).toBe(2);
    const provisioner = new Provisioner(withNoLinks(store), systemClock);
    const refusal = provisioner.saveOrganization({ id: 'beta', domain: 'ACME.link.' });
    await expect(refusal).rejects.toBeInstanceOf(ProvisioningError);
    await expect(refusal).rejects.toThrow(
      'organization "beta": the link domain "acme.link" already belongs to another organization',
    );
  });
});
