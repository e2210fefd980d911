import { hashSecret, withCaches, type Organization } from '../../core';
import { insertNew, newLink, organization } from '../storage/fixtures';
import { storeWithFakeStreams, token } from './fake-change-streams';

/**
 * The MongoDB change-stream watchers wired to the caches as the MongoDB store wires them
 * (withCaches over a store offering watchLinkChanges and watchIdentityChanges), with the driver's
 * streams faked: an event as the server sends it (after the pipeline's projection) drops exactly
 * what it names. The data sits in a call-counting memory store standing for the database.
 */
async function setUp() {
  const { links, identities, backend } = storeWithFakeStreams();
  // TTLs far longer than the test: only the streams can make a change visible.
  const store = withCaches(backend, {
    linkCacheSize: 100,
    identityTtlSeconds: 600,
    propagationSeconds: 600,
  });
  // Each stream opens once the server's operation time is read.
  await Promise.all([links.openedCount(1), identities.openedCount(1)]);
  return { backend, store, linkStream: links.latest(), identityStream: identities.latest() };
}

describe('MongoDB change streams drop exactly what changed from the caches', () => {
  it('a links update drops that link and no other', async () => {
    const t = await setUp();
    const promo = await insertNew(t.backend.links, newLink({ alias: 'promo' }));
    await insertNew(t.backend.links, newLink({ alias: 'Promo' }));
    await insertNew(t.backend.links, newLink({ alias: 'promo', domain: 'other.link' }));
    const lookUpAll = () =>
      Promise.all([
        t.store.links.findByAlias('acme.link', 'promo'),
        t.store.links.findByAlias('acme.link', 'Promo'),
        t.store.links.findByAlias('other.link', 'promo'),
      ]);
    await lookUpAll();
    // Another process disables the link: the server's update event, its document looked up.
    const bob = { at: new Date(), by: 'user:bob', refuseHeld: true } as const;
    await t.backend.links.setDisabled(promo.id, { reason: 'spam', at: bob.at, by: bob.by }, bob);
    t.linkStream.emit('change', {
      _id: token(1),
      operationType: 'update',
      documentKey: { _id: promo.id },
      fullDocument: { domain: 'acme.link', alias: 'promo' },
    });
    t.backend.tally.reset();
    const [changed, sameAliasOtherCase, sameAliasOtherDomain] = await lookUpAll();
    expect(t.backend.tally.of('links.findByAlias')).toBe(1);
    expect(changed?.disabled?.reason).toBe('spam');
    expect(sameAliasOtherCase?.alias).toBe('Promo');
    expect(sameAliasOtherDomain?.domain).toBe('other.link');
    await t.store.close();
    expect(t.linkStream.closed).toBe(true);
  });

  it('an organization update drops that organization only (by id and by key hash)', async () => {
    const t = await setUp();
    const acme = organization();
    const globex: Organization = organization({
      id: 'globex',
      domain: 'globex.link',
      keyHash: 'c'.repeat(64),
    });
    await t.backend.identities.saveOrganization(acme);
    await t.backend.identities.saveOrganization(globex);
    const lookUpBoth = async () => {
      for (const { id, keyHash } of [acme, globex]) {
        await t.store.identities.findOrganizationById(id);
        await t.store.identities.findOrganizationByKeyHash(keyHash);
      }
    };
    await lookUpBoth();
    // Another process rotates acme's key and deactivates it.
    const newKeyHash = hashSecret('rotated-key');
    await t.backend.identities.updateOrganization('acme', { keyHash: newKeyHash, active: false });
    t.identityStream.emit('change', {
      _id: token(1),
      operationType: 'update',
      ns: { db: 'shortlink', coll: 'organizations' },
      documentKey: { _id: 'acme' },
      fullDocument: { keyHash: newKeyHash },
    });
    t.backend.tally.reset();
    await lookUpBoth();
    expect(t.backend.tally.of('identities.findOrganizationById')).toBe(1);
    expect(t.backend.tally.of('identities.findOrganizationByKeyHash')).toBe(1);
    // The former key hash is no longer answered from the cache; the new one is read.
    await expect(t.store.identities.findOrganizationByKeyHash(acme.keyHash)).resolves.toBeNull();
    await expect(t.store.identities.findOrganizationByKeyHash(newKeyHash)).resolves.toMatchObject({
      id: 'acme',
      active: false,
    });
    await expect(t.store.identities.findOrganizationById('globex')).resolves.toMatchObject({
      active: true,
    });
    await t.store.close();
    expect(t.identityStream.closed).toBe(true);
  });

  it('a token deleted elsewhere (a revocation) drops that token only', async () => {
    const t = await setUp();
    const [revoked, kept] = ['r', 'k'].map((c) => c.repeat(64));
    for (const tokenHash of [revoked!, kept!]) {
      await t.backend.identities.saveToken({ tokenHash, userId: 'alice', createdAt: new Date() });
      await t.store.identities.findUserIdByTokenHash(tokenHash);
    }
    await t.backend.identities.removeToken(revoked!);
    // What the server sends for a findOneAndDelete of a token this version wrote: its `_id`.
    t.identityStream.emit('change', {
      _id: token(1),
      operationType: 'delete',
      ns: { db: 'shortlink', coll: 'tokens' },
      documentKey: { _id: revoked },
    });
    t.backend.tally.reset();
    await expect(t.store.identities.findUserIdByTokenHash(revoked!)).resolves.toBeNull();
    await expect(t.store.identities.findUserIdByTokenHash(kept!)).resolves.toBe('alice');
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
    await t.store.close();
  });

  it('a membership or a group deleted by hand drops that one only', async () => {
    const t = await setUp();
    for (const organizationId of ['acme', 'globex']) {
      await t.backend.identities.saveMembership('alice', organizationId);
      await t.backend.identities.saveGroup({ organizationId, apiId: '1', name: 'Default' });
      await t.store.identities.isMember('alice', organizationId);
      await t.store.identities.findGroup(organizationId, '1');
    }
    for (const [coll, _id] of [
      ['memberships', { userId: 'alice', organizationId: 'acme' }],
      ['groups', { organizationId: 'acme', apiId: '1' }],
    ] as const) {
      t.identityStream.emit('change', {
        _id: token(coll.length),
        operationType: 'delete',
        ns: { db: 'shortlink', coll },
        documentKey: { _id },
      });
    }
    t.backend.tally.reset();
    for (const organizationId of ['acme', 'globex']) {
      await t.store.identities.isMember('alice', organizationId);
      await t.store.identities.findGroup(organizationId, '1');
    }
    expect(t.backend.tally.of('identities.isMember')).toBe(1);
    expect(t.backend.tally.of('identities.findGroup')).toBe(1);
    await t.store.close();
  });
});
