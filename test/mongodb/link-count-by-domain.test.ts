import { MongoNetworkError } from 'mongodb';
import { BackendUnavailableError } from '../../core';
import { COLLECTIONS } from '../../core/adapters/mongodb/documents';
import { MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { scriptedDb, type DriverCall } from '../support/scripted-mongo-db';

/**
 * What MongoLinkStore.countByDomain sends, checked with a fake Db that records the driver calls
 * and answers as scripted. It is no MongoDB: the counting itself runs on a server in
 * test/storage's contract suite, where MONGODB_URI reaches one.
 */
function linkStoreOn(answer: (call: DriverCall) => Promise<unknown>) {
  const { db, calls } = scriptedDb(answer);
  const links = new MongoLinkStore(
    db.collection(COLLECTIONS.links),
    new MongoIdSequence(db.collection(COLLECTIONS.counters)),
    db.collection(COLLECTIONS.linkHistory),
  );
  return { links, calls };
}

describe('MongoDB: counting the links of a link domain', () => {
  it('sends one countDocuments on the domain, on the (domain, alias) index, with the limit', async () => {
    const { links, calls } = linkStoreOn(() => Promise.resolve(3));
    await expect(links.countByDomain('d1.link', 1000)).resolves.toBe(3);
    expect(calls).toEqual([
      {
        collection: 'links',
        method: 'countDocuments',
        args: [{ domain: 'd1.link' }, { hint: 'domain_alias_unique', limit: 1000 }],
      },
    ]);
  });

  it('sends no limit when none is asked (the server would read 0 as none too)', async () => {
    const { links, calls } = linkStoreOn(() => Promise.resolve(0));
    await expect(links.countByDomain('d1.link')).resolves.toBe(0);
    expect(calls.map((call) => call.args)).toEqual([
      [{ domain: 'd1.link' }, { hint: 'domain_alias_unique' }],
    ]);
  });

  it('answers an unreachable server as BackendUnavailableError', async () => {
    const { links } = linkStoreOn(() => Promise.reject(new MongoNetworkError('connection reset')));
    await expect(links.countByDomain('d1.link', 10)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });
});
