import { applySeed, Provisioner, systemClock, type Seed, type Store } from '../../../core';
import { embeddedStores } from '../../support/embedded-stores';

const KEY_A = 'slorg_alpha-organization-secret-key';
const KEY_B = 'slorg_bravo-organization-secret-key';
const KEY_C = 'slorg_charlie-organization-key-0001';
const TOKEN_1 = 'slpat_first-user-token-0000000000';
const TOKEN_2 = 'slpat_second-user-token-000000000';

const stores = embeddedStores('seed-rehearsed');
let makeStore: () => Promise<Store>;

/** A store holding organization "held" on held.link (key KEY_C) and user "holder" with TOKEN_2. */
async function storeWithHolder() {
  const store = await makeStore();
  const provisioner = new Provisioner(store, systemClock);
  await applySeed(provisioner, {
    organizations: [{ id: 'held', domain: 'held.link', secret_key: KEY_C }],
    users: [{ id: 'holder', tokens: [TOKEN_2], organizations: ['held'] }],
  });
  return { store, provisioner };
}

/** A first organization and user that are fine, then `late` entries of which one is refused. */
function seedEndingWith(late: Pick<Seed, 'organizations' | 'users'>): Seed {
  return {
    organizations: [
      { id: 'alpha', domain: 'alpha.link', secret_key: KEY_A, groups: [{ api_id: '1' }] },
      ...(late.organizations ?? []),
    ],
    users: [{ id: 'first', tokens: [TOKEN_1], organizations: ['alpha'] }, ...(late.users ?? [])],
  };
}

describe.each(stores)('on the %s store', (_name, make) => {
  beforeEach(() => {
    makeStore = make;
  });

  describe('a seed refused for a late entry writes nothing, not the entries before it', () => {
    it.each<[string, Pick<Seed, 'organizations' | 'users'>, RegExp]>([
      [
        'a link domain held by a stored organization',
        { organizations: [{ id: 'bravo', domain: 'HELD.link.', secret_key: KEY_B }] },
        /^seed\.json is refused: organizations\.1: organization "bravo": the link domain "held\.link" already belongs to another organization$/,
      ],
      [
        'a secret key held by a stored organization',
        { organizations: [{ id: 'bravo', domain: 'bravo.link', secret_key: KEY_C }] },
        /^seed\.json is refused: organizations\.1: organization "bravo": its secret key is already in use$/,
      ],
      [
        'a token held by a stored user',
        { users: [{ id: 'second', tokens: [TOKEN_2] }] },
        /^seed\.json is refused: users\.1: a token of user "second" is already in use by another user$/,
      ],
      [
        'a user of an organization that exists nowhere',
        { users: [{ id: 'second', organizations: ['nowhere'] }] },
        /^seed\.json is refused: users\.1: no organization "nowhere"$/,
      ],
      [
        'a link domain given twice in the file',
        { organizations: [{ id: 'bravo', domain: 'alpha.link', secret_key: KEY_B }] },
        /^seed\.json is refused: organizations\.1: organization "bravo": the link domain "alpha\.link" already belongs to another organization$/,
      ],
    ])('%s', async (_case, late, refusal) => {
      const { store, provisioner } = await storeWithHolder();
      await expect(applySeed(provisioner, seedEndingWith(late), 'seed.json')).rejects.toThrow(
        refusal,
      );
      const identities = store.identities;
      await expect(identities.findOrganizationById('alpha')).resolves.toBeNull();
      await expect(identities.findOrganizationById('bravo')).resolves.toBeNull();
      await expect(identities.findGroup('alpha', '1')).resolves.toBeNull();
      await expect(identities.findUserById('first')).resolves.toBeNull();
      await expect(identities.findUserById('second')).resolves.toBeNull();
      await expect(identities.listLinkDomains()).resolves.toEqual(['held.link']);
      // What the store held before is as it was.
      await expect(identities.findOrganizationById('held')).resolves.toMatchObject({
        domain: 'held.link',
      });
      await expect(identities.isMember('holder', 'held')).resolves.toBe(true);
    });
  });

  describe('the rehearsal follows the order of the file, as the apply does', () => {
    it('lets one organization take a link domain and a key another gives up earlier in the file', async () => {
      const { store, provisioner } = await storeWithHolder();
      const seed: Seed = {
        organizations: [
          { id: 'held', domain: 'moved.link', secret_key: KEY_A },
          { id: 'bravo', domain: 'held.link', secret_key: KEY_C },
        ],
        users: [{ id: 'holder', tokens: [TOKEN_2], organizations: ['bravo'] }],
      };
      await expect(applySeed(provisioner, seed, 'seed.json')).resolves.toEqual({
        organizations: 2,
        users: 1,
      });
      await expect(store.identities.findOrganizationById('bravo')).resolves.toMatchObject({
        domain: 'held.link',
      });
      await expect(store.identities.isMember('holder', 'bravo')).resolves.toBe(true);
      expect((await store.identities.listLinkDomains()).sort()).toEqual([
        'held.link',
        'moved.link',
      ]);
    });

    it('refuses the same two organizations in the other order, and writes nothing', async () => {
      const { store, provisioner } = await storeWithHolder();
      const seed: Seed = {
        organizations: [
          { id: 'bravo', domain: 'held.link', secret_key: KEY_B },
          { id: 'held', domain: 'moved.link', secret_key: KEY_A },
        ],
      };
      await expect(applySeed(provisioner, seed, 'seed.json')).rejects.toThrow(
        /organization "bravo": the link domain "held.link" already belongs/,
      );
      await expect(store.identities.findOrganizationById('held')).resolves.toMatchObject({
        domain: 'held.link',
      });
      await expect(store.identities.listLinkDomains()).resolves.toEqual(['held.link']);
    });

    it('applies a seed that holds what the store holds (a restart) without a refusal', async () => {
      const { store, provisioner } = await storeWithHolder();
      await applySeed(provisioner, {
        organizations: [{ id: 'held', domain: 'held.link', secret_key: KEY_C }],
        users: [{ id: 'holder', tokens: [TOKEN_2], organizations: ['held'] }],
      });
      await expect(store.identities.listLinkDomains()).resolves.toEqual(['held.link']);
    });
  });
});
