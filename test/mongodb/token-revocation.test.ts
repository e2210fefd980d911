import { MongoIdentityStore } from '../../core/adapters/mongodb/mongo-identity-store';
import { scriptedDb } from '../support/scripted-mongo-db';

/**
 * Revoking tokens on MongoDB: one findOneAndDelete for one token (the document it answers is the
 * one it removed), one deleteMany for a user's. Checked with a fake Db that records the driver
 * calls and answers as a server would; the real server run is test/storage's contract suite.
 */
function fakeDb(answers: { removed?: { userId: string } | null; deletedCount?: number }) {
  const { db, calls } = scriptedDb(({ method }) => {
    if (method === 'findOneAndDelete') {
      const removed = answers.removed;
      return Promise.resolve(
        removed ? { _id: 'x', tokenHash: 'h', createdAt: new Date(0), ...removed } : null,
      );
    }
    return Promise.resolve({ acknowledged: true, deletedCount: answers.deletedCount ?? 0 });
  });
  return {
    db,
    calls: () => calls.map((call) => [`${call.collection}.${call.method}`, ...call.args]),
  };
}

const HASH = 'f'.repeat(64);

describe('MongoDB: revoking tokens', () => {
  it('removes one token with one findOneAndDelete by hash and answers its user', async () => {
    const { db, calls } = fakeDb({ removed: { userId: 'alice' } });
    await expect(new MongoIdentityStore(db).removeToken(HASH)).resolves.toBe('alice');
    expect(calls()).toEqual([['tokens.findOneAndDelete', { tokenHash: HASH }]]);
  });

  it('answers null when no document had the hash', async () => {
    const { db, calls } = fakeDb({ removed: null });
    await expect(new MongoIdentityStore(db).removeToken(HASH)).resolves.toBeNull();
    expect(calls()).toHaveLength(1);
  });

  it("removes a user's tokens with one deleteMany by user and answers how many", async () => {
    const { db, calls } = fakeDb({ deletedCount: 3 });
    await expect(new MongoIdentityStore(db).removeTokensOfUser('alice')).resolves.toBe(3);
    expect(calls()).toEqual([['tokens.deleteMany', { userId: 'alice' }]]);
  });
});
