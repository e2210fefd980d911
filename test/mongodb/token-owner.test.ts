import { TokenTakenError } from '../../core';
import { MongoIdentityStore } from '../../core/adapters/mongodb/mongo-identity-store';
import { scriptedDb } from '../support/scripted-mongo-db';

/**
 * A token hash keeps its first user on MongoDB: one upsert that writes only a new hash and returns
 * the stored document. Checked with a fake Db that records the driver call and answers with the
 * document a server would hold; the real server run is test/storage's contract suite.
 */

/** A Db whose findOneAndUpdate answers the token as held by `holder`. */
function fakeDb(holder: string) {
  const { db, calls } = scriptedDb(() =>
    Promise.resolve({ _id: 'x', tokenHash: 'h', userId: holder, createdAt: new Date(0) }),
  );
  return { db, calls };
}

const token = { tokenHash: 'h'.repeat(64), userId: 'alice', createdAt: new Date(1) };

describe('MongoDB: a token keeps its first user', () => {
  it('saves with one upsert that sets the user only on insert and returns the stored document', async () => {
    const { db, calls } = fakeDb('alice');
    await new MongoIdentityStore(db).saveToken(token);
    expect(calls.map((call) => [`${call.collection}.${call.method}`, ...call.args])).toEqual([
      [
        'tokens.findOneAndUpdate',
        { tokenHash: token.tokenHash },
        // The hash is the new document's `_id` too: a deletion event then names the token.
        { $setOnInsert: { _id: token.tokenHash, userId: 'alice', createdAt: token.createdAt } },
        { upsert: true, returnDocument: 'after' },
      ],
    ]);
  });

  it('rejects with TokenTakenError when the stored document names another user', async () => {
    const { db, calls } = fakeDb('mallory');
    await expect(new MongoIdentityStore(db).saveToken(token)).rejects.toBeInstanceOf(
      TokenTakenError,
    );
    expect(calls).toHaveLength(1);
  });
});
