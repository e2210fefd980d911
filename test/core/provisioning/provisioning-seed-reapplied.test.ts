import { applySeed, createMemoryStore, Provisioner, systemClock, type Seed } from '../../../core';

const seed: Seed = {
  organizations: [
    {
      id: 'acme',
      domain: 'acme.link',
      secret_key: 'slorg_acme-organization-secret-key',
      groups: [{ api_id: '1' }],
    },
  ],
  users: [{ id: 'alice', organizations: ['acme'] }],
};

describe('a seed file applied again keeps what its left-out fields hold in the store', () => {
  it('does not reactivate an organization deactivated since, nor rename what was renamed', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await applySeed(provisioner, seed, 'seed.json');
    // What an operator changed with the CLI after the first start.
    await provisioner.setOrganizationActive('acme', false);
    await provisioner.saveOrganization({
      id: 'acme',
      name: 'Acme Corp',
      domain: 'acme.link',
      scheme: 'http',
      secretKey: 'slorg_acme-organization-secret-key',
      active: false,
    });
    await provisioner.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
    await provisioner.saveUser({ id: 'alice', name: 'Alice' });

    // The next start applies the same file, which names none of those fields.
    await applySeed(provisioner, seed, 'seed.json');
    await expect(store.identities.findOrganizationById('acme')).resolves.toMatchObject({
      active: false,
      name: 'Acme Corp',
      scheme: 'http',
    });
    await expect(store.identities.findGroup('acme', '1')).resolves.toMatchObject({
      name: 'Default',
    });
    await expect(store.identities.findUserById('alice')).resolves.toMatchObject({
      name: 'Alice',
    });
  });

  it('gives a new record the defaults, and a field the file does give wins', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await applySeed(provisioner, seed, 'seed.json');
    await expect(store.identities.findOrganizationById('acme')).resolves.toMatchObject({
      active: true,
      name: 'acme',
      scheme: 'https',
    });
    await expect(store.identities.findGroup('acme', '1')).resolves.toMatchObject({ name: '1' });
    await expect(store.identities.findUserById('alice')).resolves.toMatchObject({ name: 'alice' });

    await provisioner.setOrganizationActive('acme', false);
    const reactivating: Seed = {
      ...seed,
      organizations: (seed.organizations ?? []).map((org) => ({
        ...org,
        active: true,
        name: 'Acme',
      })),
    };
    await applySeed(provisioner, reactivating, 'seed.json');
    await expect(store.identities.findOrganizationById('acme')).resolves.toMatchObject({
      active: true,
      name: 'Acme',
    });
  });
});
