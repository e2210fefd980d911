import { silentLogger } from '../../core';
import { mongoStoreOn } from '../../core/adapters/mongodb';
import { LinkDomainDirectory } from '../../core/links/link-domain-directory';
import { domainCandidates } from '../../core/links/link-host';
import { FakeMongo } from '../support/fake-mongo-db';

/**
 * Following's link domain directory on the MongoDB store, counted at the driver's level
 * (FakeMongo): its reloads read the organizations' domains (`organizations.distinct`, one small
 * unsharded collection), never `links.distinct`, which goes to every shard and is capped at
 * 16 MB; that one is read once, for the older forms only links hold.
 */
const PERIOD_MS = 10_000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the link domain directory on MongoDB', () => {
  it('reads links.distinct once, then organizations.distinct each period', async () => {
    const mongo = new FakeMongo();
    mongo.documents('links').push({ _id: 1, domain: 'old.link:443', alias: 'a' });
    mongo.documents('organizations').push({ _id: 'acme', domain: 'acme.link' });
    const store = mongoStoreOn(mongo.client(), mongo.db(), false);
    let now = 0;
    const directory = new LinkDomainDirectory(store, {
      refreshMs: PERIOD_MS,
      logger: silentLogger,
      now: () => now,
    });
    const first = await directory.domainsToRead(domainCandidates('old.link')!);
    expect(first.map((candidate) => candidate.domain)).toEqual(['old.link:443']);
    expect(mongo.since(0)).toEqual({ 'organizations.distinct': 1, 'links.distinct': 1 });

    const mark = mongo.calls.length;
    mongo.documents('organizations').push({ _id: 'beta', domain: 'beta.link' });
    for (let period = 1; period <= 6; period += 1) {
      now = period * PERIOD_MS;
      directory.knownNow([]);
      await settle();
    }
    expect(mongo.since(mark)).toEqual({ 'organizations.distinct': 6 });
    const beta = directory.knownNow(domainCandidates('beta.link:443')!);
    expect(beta.map((candidate) => candidate.domain)).toEqual(['beta.link']);
  });
});
