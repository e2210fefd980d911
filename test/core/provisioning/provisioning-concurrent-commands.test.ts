import { hashSecret, Provisioner, ProvisioningError, systemClock, type Store } from '../../../core';
import { settleAll } from '../../storage/fixtures';
import { embeddedStores } from '../../support/embedded-stores';

/**
 * The admin CLI's create and change commands run at the same moment (two people, two scripts):
 * each is one atomic write of the store, so no command's result is lost and none is half-applied.
 */
const CONCURRENCY = 10;

const stores = embeddedStores('provisioning-concurrent');

describe.each(stores)('on the %s store', (_name, makeStore) => {
  let provisioner: Provisioner;
  let store: Store;
  beforeEach(async () => {
    store = await makeStore();
    provisioner = new Provisioner(store, systemClock);
    await provisioner.createOrganization({ id: 'acme', domain: 'acme.link' });
  });

  it('of four concurrent `org create` of one id one wins; the others get no key', async () => {
    const results = await Promise.allSettled(
      [0, 1, 2, 3].map((i) =>
        provisioner.createOrganization({ id: 'race', domain: `race${i}.link` }),
      ),
    );
    const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(created).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') {
        expect(result.reason).toBeInstanceOf(ProvisioningError);
        expect(String(result.reason)).toContain('organization "race" already exists');
      }
    }
    const [winner] = created;
    const stored = await store.identities.findOrganizationById('race');
    expect(stored).toEqual(winner?.organization);
    expect(stored?.keyHash).toBe(hashSecret(winner?.secretKey ?? ''));
    expect(await store.identities.listLinkDomains()).toEqual(
      expect.arrayContaining([winner?.organization.domain]),
    );
    expect(await store.identities.listLinkDomains()).toHaveLength(2);
  });

  it(`of ${CONCURRENCY} concurrent \`group create\` for one new group, one succeeds`, async () => {
    const names = Array.from({ length: CONCURRENCY }, (_, i) => `name-${i}`);
    const results = await settleAll(
      names.map((name) => provisioner.createGroup({ organizationId: 'acme', apiId: '1', name })),
    );
    const winners = names.filter((_, i) => results[i]?.ok);
    expect(winners).toHaveLength(1);
    for (const result of results.filter((r) => !r.ok)) {
      expect(result.ok ? null : result.error).toBeInstanceOf(ProvisioningError);
      expect(result.ok ? '' : String(result.error)).toContain(
        'group "1" already exists in organization "acme"',
      );
    }
    // The name stored is the one the successful command printed, not a later loser's.
    await expect(store.identities.findGroup('acme', '1')).resolves.toMatchObject({
      name: winners[0],
    });
  });

  it(`of ${CONCURRENCY} concurrent \`user create\` for one new user, one succeeds`, async () => {
    const names = Array.from({ length: CONCURRENCY }, (_, i) => `name-${i}`);
    const results = await settleAll(
      names.map((name) => provisioner.createUser({ id: 'alice', name, organizations: ['acme'] })),
    );
    const winners = names.filter((_, i) => results[i]?.ok);
    expect(winners).toHaveLength(1);
    for (const result of results.filter((r) => !r.ok)) {
      expect(String(result.ok ? '' : result.error)).toContain('user "alice" already exists');
    }
    await expect(store.identities.findUserById('alice')).resolves.toEqual({
      id: 'alice',
      name: winners[0],
    });
    await expect(store.identities.isMember('alice', 'acme')).resolves.toBe(true);
  });

  it('a refused `user create` adds no membership to the existing user', async () => {
    await provisioner.createOrganization({ id: 'beta', domain: 'beta.link' });
    await provisioner.createUser({ id: 'alice', organizations: ['acme'] });
    await expect(provisioner.createUser({ id: 'alice', organizations: ['beta'] })).rejects.toThrow(
      'user "alice" already exists',
    );
    await expect(store.identities.isMember('alice', 'beta')).resolves.toBe(false);
  });

  it('`org rotate-key` beside `org deactivate`: the organization ends deactivated with the new key', async () => {
    const [rotated, deactivated] = await Promise.all([
      provisioner.rotateOrganizationKey('acme'),
      provisioner.setOrganizationActive('acme', false),
    ]);
    const stored = await store.identities.findOrganizationById('acme');
    expect(stored).toMatchObject({ active: false, keyHash: hashSecret(rotated.secretKey) });
    // The key printed by the rotation is the one the store knows.
    await expect(
      store.identities.findOrganizationByKeyHash(hashSecret(rotated.secretKey)),
    ).resolves.toEqual(stored);
    expect(deactivated.active).toBe(false);
  });

  it.each(['read-only', 'shop is closed', 'MDB_NOTFOUND', 'no space'])(
    'a repeated create of the id %p is refused as existing, not as a store failure',
    async (id) => {
      await provisioner.createOrganization({ id, domain: 'words.link' });
      await expect(
        provisioner.createOrganization({ id, domain: 'other.link' }),
      ).rejects.toMatchObject({
        name: 'ProvisioningError',
        message: `organization "${id}" already exists; it is left as it is (its key and link domain unchanged)`,
      });
      await provisioner.createGroup({ organizationId: id, apiId: id });
      await expect(
        provisioner.createGroup({ organizationId: id, apiId: id }),
      ).rejects.toMatchObject({
        name: 'ProvisioningError',
        message: `group "${id}" already exists in organization "${id}"`,
      });
      await provisioner.createUser({ id });
      await expect(provisioner.createUser({ id })).rejects.toMatchObject({
        name: 'ProvisioningError',
        message: `user "${id}" already exists`,
      });
    },
  );

  it('a change of an unknown organization is refused as before', async () => {
    await expect(provisioner.rotateOrganizationKey('ghost')).rejects.toThrow(
      'no organization "ghost"',
    );
    await expect(provisioner.setOrganizationActive('ghost', false)).rejects.toThrow(
      'no organization "ghost"',
    );
  });
});
