import { MongoServerError, type Db } from 'mongodb';
import {
  GroupExistsError,
  OrganizationKeyTakenError,
  Provisioner,
  ProvisioningError,
  systemClock,
  UserExistsError,
} from '../../core';
import { MongoIdentityStore } from '../../core/adapters/mongodb/mongo-identity-store';
import { organization } from '../storage/fixtures';
import { withNoLinks } from '../support/no-links';
import { scriptedDb } from '../support/scripted-mongo-db';

/**
 * The admin CLI's `group create`, `user create`, `org rotate-key` and `org deactivate` on MongoDB:
 * each one driver call that the server decides alone (an insert refused by a unique index, an
 * update of the changed fields), never a lookup and then a write; and what `org list` and
 * `user list` read. Checked with a fake Db that
 * records each call and answers as a server does; the real server run is test/storage's contract
 * suite, where MONGODB_URI reaches one.
 */
function duplicateKey(collection: string, index: string, keyValue: Record<string, unknown>) {
  return new MongoServerError({
    code: 11000,
    errmsg: `E11000 duplicate key error collection: shortlink.${collection} index: ${index} dup key: ${JSON.stringify(keyValue)}`,
    keyPattern: Object.fromEntries(Object.keys(keyValue).map((field) => [field, 1])),
    keyValue,
  });
}

describe('MongoDB: group and user created only when new', () => {
  it('inserts a group (never upserts); a duplicate on its unique index is GroupExistsError', async () => {
    const { db, calls } = scriptedDb(() =>
      Promise.reject(
        duplicateKey('groups', 'organization_api_id_unique', {
          organizationId: 'acme',
          apiId: '1',
        }),
      ),
    );
    const store = new MongoIdentityStore(db);
    const group = { organizationId: 'acme', apiId: '1', name: 'Default' };
    await expect(store.insertGroup(group)).rejects.toBeInstanceOf(GroupExistsError);
    // Its `_id` is its key, so a change stream's deletion event names it.
    expect(calls).toEqual([
      {
        collection: 'groups',
        method: 'insertOne',
        args: [{ _id: { organizationId: 'acme', apiId: '1' }, ...group }],
      },
    ]);
  });

  it('takes a duplicate of the `_id` (the same pair) for an existing group too', async () => {
    const { db } = scriptedDb(() =>
      Promise.reject(
        duplicateKey('groups', '_id_', { _id: { organizationId: 'acme', apiId: '1' } }),
      ),
    );
    await expect(
      new MongoIdentityStore(db).insertGroup({ organizationId: 'acme', apiId: '1', name: 'D' }),
    ).rejects.toBeInstanceOf(GroupExistsError);
  });

  it('inserts a user under its id; a duplicate _id is UserExistsError, and `user create` a clear refusal', async () => {
    const { db, calls } = scriptedDb((call) =>
      call.collection === 'organizations'
        ? Promise.resolve({ _id: 'acme', ...organization() })
        : Promise.reject(duplicateKey('users', '_id_', { _id: 'alice' })),
    );
    const store = new MongoIdentityStore(db);
    await expect(store.insertUser({ id: 'alice', name: 'Alice' })).rejects.toBeInstanceOf(
      UserExistsError,
    );
    expect(calls).toEqual([
      { collection: 'users', method: 'insertOne', args: [{ _id: 'alice', name: 'Alice' }] },
    ]);
    calls.length = 0;
    const refusal = new Provisioner(withNoLinks(store), systemClock).createUser({
      id: 'alice',
      organizations: ['acme'],
    });
    await expect(refusal).rejects.toBeInstanceOf(ProvisioningError);
    await expect(refusal).rejects.toThrow('user "alice" already exists');
    // The organization was read, the user inserted once, and no membership written.
    expect(calls.map((call) => `${call.collection}.${call.method}`)).toEqual([
      'organizations.findOne',
      'users.insertOne',
    ]);
  });
});

describe('MongoDB: an organization changed in place', () => {
  it('sets only the changed field, in one findOneAndUpdate answering the document after it', async () => {
    const { id, ...fields } = organization({ active: false });
    const { db, calls } = scriptedDb(() => Promise.resolve({ _id: id, ...fields }));
    const changed = await new MongoIdentityStore(db).updateOrganization('acme', { active: false });
    expect(changed).toEqual(organization({ active: false }));
    expect(calls).toEqual([
      {
        collection: 'organizations',
        method: 'findOneAndUpdate',
        args: [{ _id: 'acme' }, { $set: { active: false } }, { returnDocument: 'after' }],
      },
    ]);
  });

  it('answers null when no document has the id, and `org deactivate` refuses it', async () => {
    const { db } = scriptedDb(() => Promise.resolve(null));
    const store = new MongoIdentityStore(db);
    await expect(store.updateOrganization('ghost', { active: false })).resolves.toBeNull();
    await expect(
      new Provisioner(withNoLinks(store), systemClock).setOrganizationActive('ghost', false),
    ).rejects.toThrow('no organization "ghost"');
  });

  it('turns a duplicate on the key-hash index into OrganizationKeyTakenError', async () => {
    const { db } = scriptedDb(() =>
      Promise.reject(duplicateKey('organizations', 'key_hash_unique', { keyHash: 'b'.repeat(64) })),
    );
    await expect(
      new MongoIdentityStore(db).updateOrganization('acme', { keyHash: 'b'.repeat(64) }),
    ).rejects.toBeInstanceOf(OrganizationKeyTakenError);
  });
});

describe('MongoDB: every identity record listed', () => {
  it('reads each collection whole and answers the records without their MongoDB ids', async () => {
    const createdAt = new Date('2026-01-02T03:04:05.006Z');
    const { id, ...fields } = organization();
    const documents: Record<string, unknown[]> = {
      organizations: [{ _id: id, ...fields }],
      groups: [{ _id: 'g1', organizationId: 'acme', apiId: '1', name: 'Default' }],
      users: [{ _id: 'alice', name: 'Alice' }],
      tokens: [{ _id: 't1', tokenHash: 'c'.repeat(64), userId: 'alice', createdAt }],
      memberships: [{ _id: 'm1', userId: 'alice', organizationId: 'acme' }],
    };
    const finds: Array<[string, unknown[]]> = [];
    // As the driver's: find() answers a cursor at once, whose toArray() reads the documents.
    const db = {
      collection: (name: string) => ({
        find: (...args: unknown[]) => {
          finds.push([name, args]);
          return { toArray: () => Promise.resolve(documents[name] ?? []) };
        },
      }),
    } as unknown as Db;
    await expect(new MongoIdentityStore(db).listAll()).resolves.toEqual({
      organizations: [organization()],
      groups: [{ organizationId: 'acme', apiId: '1', name: 'Default' }],
      users: [{ id: 'alice', name: 'Alice' }],
      tokens: [{ tokenHash: 'c'.repeat(64), userId: 'alice', createdAt }],
      memberships: [{ userId: 'alice', organizationId: 'acme' }],
    });
    expect(finds).toEqual(
      ['organizations', 'groups', 'users', 'tokens', 'memberships'].map((name) => [name, [{}]]),
    );
  });
});
