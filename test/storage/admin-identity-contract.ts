import {
  GroupExistsError,
  OrganizationKeyTakenError,
  UserExistsError,
  type Store,
} from '../../core';
import { organization, settleAll } from './fixtures';

const CONCURRENCY = 25;

/**
 * The identity operations of the admin CLI's commands: the writes of its create and change
 * commands, each one atomic write in every store (a create of a group or user only when new, a
 * change of some of an organization's fields that keeps a concurrent change of the others), and
 * the listing its list commands read. Part of the storage contract (store-contract.ts), run
 * against each adapter.
 */
export function describeAdminIdentityContract(getStore: () => Store): void {
  describe('groups and users created only when new', () => {
    it('inserts a group once; an existing one is left as it is', async () => {
      const { identities } = getStore();
      await identities.insertGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
      await expect(
        identities.insertGroup({ organizationId: 'acme', apiId: '1', name: 'Other' }),
      ).rejects.toBeInstanceOf(GroupExistsError);
      // The same api id in another organization is another group.
      await identities.insertGroup({ organizationId: 'beta', apiId: '1', name: 'Beta' });
      await expect(identities.findGroup('acme', '1')).resolves.toEqual({
        organizationId: 'acme',
        apiId: '1',
        name: 'Default',
      });
      await expect(identities.findGroup('beta', '1')).resolves.toMatchObject({ name: 'Beta' });
    });

    it('inserts a user once; an existing one is left as it is', async () => {
      const { identities } = getStore();
      await identities.insertUser({ id: 'alice', name: 'Alice' });
      await expect(identities.insertUser({ id: 'alice', name: 'Mallory' })).rejects.toBeInstanceOf(
        UserExistsError,
      );
      await expect(identities.findUserById('alice')).resolves.toEqual({
        id: 'alice',
        name: 'Alice',
      });
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent creates of one group win`, async () => {
      const { identities } = getStore();
      const names = Array.from({ length: CONCURRENCY }, (_, i) => `name-${i}`);
      const results = await settleAll(
        names.map((name) => identities.insertGroup({ organizationId: 'acme', apiId: '1', name })),
      );
      const winners = names.filter((_, i) => results[i]?.ok);
      expect(winners).toHaveLength(1);
      for (const result of results) {
        if (!result.ok) expect(result.error).toBeInstanceOf(GroupExistsError);
      }
      await expect(identities.findGroup('acme', '1')).resolves.toMatchObject({
        name: winners[0],
      });
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent creates of one user win`, async () => {
      const { identities } = getStore();
      const names = Array.from({ length: CONCURRENCY }, (_, i) => `name-${i}`);
      const results = await settleAll(
        names.map((name) => identities.insertUser({ id: 'alice', name })),
      );
      const winners = names.filter((_, i) => results[i]?.ok);
      expect(winners).toHaveLength(1);
      for (const result of results) {
        if (!result.ok) expect(result.error).toBeInstanceOf(UserExistsError);
      }
      await expect(identities.findUserById('alice')).resolves.toEqual({
        id: 'alice',
        name: winners[0],
      });
    });
  });

  describe('every record listed', () => {
    it('lists every organization, group, user, token hash and membership, as stored', async () => {
      const { identities } = getStore();
      await expect(identities.listAll()).resolves.toEqual({
        organizations: [],
        groups: [],
        users: [],
        tokens: [],
        memberships: [],
      });
      const beta = organization({ id: 'beta', domain: 'beta.link', keyHash: 'b'.repeat(64) });
      const createdAt = new Date('2026-01-02T03:04:05.006Z');
      await identities.saveOrganization(organization());
      await identities.saveOrganization(beta);
      await identities.insertGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
      await identities.insertUser({ id: 'alice', name: 'Alice' });
      await identities.saveMembership('alice', 'acme');
      await identities.saveMembership('alice', 'beta');
      await identities.saveToken({ tokenHash: 'c'.repeat(64), userId: 'alice', createdAt });
      const all = await identities.listAll();
      const byId = <T extends { id: string }>(records: T[]) =>
        [...records].sort((a, b) => a.id.localeCompare(b.id));
      expect(byId(all.organizations)).toEqual([organization(), beta]);
      expect(all.groups).toEqual([{ organizationId: 'acme', apiId: '1', name: 'Default' }]);
      expect(all.users).toEqual([{ id: 'alice', name: 'Alice' }]);
      expect(all.tokens).toEqual([{ tokenHash: 'c'.repeat(64), userId: 'alice', createdAt }]);
      expect(
        [...all.memberships].sort((a, b) => a.organizationId.localeCompare(b.organizationId)),
      ).toEqual([
        { userId: 'alice', organizationId: 'acme' },
        { userId: 'alice', organizationId: 'beta' },
      ]);
    });
  });

  describe('an organization changed in place', () => {
    it('changes only the given fields, moving the key-hash index with the key', async () => {
      const { identities } = getStore();
      await identities.saveOrganization(organization());
      const changed = await identities.updateOrganization('acme', { keyHash: 'b'.repeat(64) });
      expect(changed).toEqual(organization({ keyHash: 'b'.repeat(64) }));
      await expect(identities.findOrganizationById('acme')).resolves.toEqual(changed);
      await expect(identities.findOrganizationByKeyHash('b'.repeat(64))).resolves.toEqual(changed);
      await expect(identities.findOrganizationByKeyHash('a'.repeat(64))).resolves.toBeNull();
      await expect(identities.updateOrganization('acme', { active: false })).resolves.toEqual(
        organization({ keyHash: 'b'.repeat(64), active: false }),
      );
      expect(await identities.listLinkDomains()).toEqual(['acme.link']);
    });

    it('answers null for an unknown id and writes nothing', async () => {
      const { identities } = getStore();
      await expect(
        identities.updateOrganization('ghost', { keyHash: 'c'.repeat(64) }),
      ).resolves.toBeNull();
      await expect(identities.findOrganizationById('ghost')).resolves.toBeNull();
      await expect(identities.findOrganizationByKeyHash('c'.repeat(64))).resolves.toBeNull();
    });

    it("refuses another organization's key hash and changes nothing", async () => {
      const { identities } = getStore();
      await identities.saveOrganization(organization());
      const beta = organization({ id: 'beta', domain: 'beta.link', keyHash: 'b'.repeat(64) });
      await identities.saveOrganization(beta);
      await expect(
        identities.updateOrganization('acme', { keyHash: 'b'.repeat(64), active: false }),
      ).rejects.toBeInstanceOf(OrganizationKeyTakenError);
      await expect(identities.findOrganizationById('acme')).resolves.toEqual(organization());
      await expect(identities.findOrganizationByKeyHash('b'.repeat(64))).resolves.toEqual(beta);
      await expect(identities.findOrganizationByKeyHash('a'.repeat(64))).resolves.toEqual(
        organization(),
      );
    });

    it('keeps both of two concurrent changes of different fields (a rotation and a deactivation)', async () => {
      const { identities } = getStore();
      await identities.saveOrganization(organization());
      for (let round = 0; round < CONCURRENCY; round += 1) {
        const keyHash = round.toString(16).padStart(64, '0');
        await identities.updateOrganization('acme', { active: true });
        await Promise.all([
          identities.updateOrganization('acme', { keyHash }),
          identities.updateOrganization('acme', { active: false }),
        ]);
        const stored = await identities.findOrganizationById('acme');
        expect(stored).toEqual(organization({ keyHash, active: false }));
        await expect(identities.findOrganizationByKeyHash(keyHash)).resolves.toEqual(stored);
      }
    });
  });
}
