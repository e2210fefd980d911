import { runAdminCommand } from '../../../core/cli/admin';
import { applySeed, Provisioner, ProvisioningError, systemClock, type Store } from '../../../core';
import { newLink } from '../../storage/fixtures';
import { embeddedStores } from '../../support/embedded-stores';

const X_KEY = 'slorg_x-organization-secret-key-0123';
const Y_KEY = 'slorg_y-organization-secret-key-0123';

/** Organization x on `domain` (https) and `count` links of it under `storedUnder` (default: it). */
async function xWithLinks(store: Store, domain: string, count: number, storedUnder = domain) {
  const provisioner = new Provisioner(store, systemClock);
  await provisioner.saveOrganization({ id: 'x', domain, secretKey: X_KEY });
  for (let i = 0; i < count; i += 1) {
    await store.links.insert(
      newLink({ domain: storedUnder, alias: `promo${i}`, organizationId: 'x' }),
    );
  }
  return provisioner;
}

/** A seed file's content: x on `xDomain`, and y on `yDomain` when given. */
const seedOf = (xDomain: string, yDomain?: string) => ({
  organizations: [
    { id: 'x', secret_key: X_KEY, domain: xDomain },
    ...(yDomain ? [{ id: 'y', secret_key: Y_KEY, domain: yDomain }] : []),
  ],
});

describe.each(embeddedStores('domain-with-links'))(
  'provisioning keeps a link domain that holds links with its organization (%s)',
  (_name, open) => {
    it('refuses to move an organization off a domain holding its links, saying how many', async () => {
      const store = await open();
      const provisioner = await xWithLinks(store, 'd1.link', 3);
      const moved = provisioner.saveOrganization({ id: 'x', domain: 'd2.link' });
      await expect(moved).rejects.toBeInstanceOf(ProvisioningError);
      await expect(moved).rejects.toThrow(
        'organization "x" cannot move to link domain "d2.link": link domain "d1.link" holds 3 links; it stays with organization "x" (nothing was changed)',
      );
      await expect(store.identities.findOrganizationById('x')).resolves.toMatchObject({
        domain: 'd1.link',
      });
      // The same domain written otherwise (case, trailing dot, the default port) is no move.
      await expect(
        provisioner.saveOrganization({ id: 'x', domain: 'D1.Link.:443', name: 'X' }),
      ).resolves.toMatchObject({ organization: { domain: 'd1.link', name: 'X' } });
    });

    it('refuses a seed file that moves x off d1.link and gives d1.link to y, writing nothing', async () => {
      const store = await open();
      const provisioner = await xWithLinks(store, 'd1.link', 1);
      await expect(
        applySeed(provisioner, seedOf('d2.link', 'd1.link'), 'seed.json'),
      ).rejects.toThrow('link domain "d1.link" holds 1 link; it stays with organization "x"');
      // The rehearsal refused it: y was not saved either, though it comes after x in the file.
      await expect(store.identities.findOrganizationById('y')).resolves.toBeNull();
      await expect(store.identities.listLinkDomains()).resolves.toEqual(['d1.link']);
    });

    it('counts links an older version stored under the domain with its default port', async () => {
      const store = await open();
      // Stored as `d1.link:443` before provisioning dropped https's default port; a follow of
      // d1.link still reads them there (link-host.ts).
      const provisioner = await xWithLinks(store, 'd1.link', 2, 'd1.link:443');
      await expect(provisioner.saveOrganization({ id: 'x', domain: 'd2.link' })).rejects.toThrow(
        'link domain "d1.link" holds 2 links',
      );
    });

    it("does not count another organization's own domain among those forms", async () => {
      const store = await open();
      const provisioner = await xWithLinks(store, 'd1.link', 0);
      // `d1.link:443` is an http organization's own domain (443 is no default port for http):
      // its links answer under Host d1.link:443 for http, never under d1.link.
      await provisioner.saveOrganization({
        id: 'w',
        domain: 'd1.link:443',
        scheme: 'http',
        secretKey: Y_KEY,
      });
      await store.links.insert(
        newLink({ domain: 'd1.link:443', scheme: 'http', organizationId: 'w' }),
      );
      await expect(
        provisioner.saveOrganization({ id: 'x', domain: 'd2.link' }),
      ).resolves.toMatchObject({ organization: { domain: 'd2.link' } });
    });

    it('moves an organization whose domain holds no link, and lets another take that domain', async () => {
      const store = await open();
      const provisioner = await xWithLinks(store, 'd1.link', 0);
      await expect(
        applySeed(provisioner, seedOf('d2.link', 'd1.link'), 'seed.json'),
      ).resolves.toMatchObject({ organizations: 2 });
      await expect(store.identities.findOrganizationById('y')).resolves.toMatchObject({
        domain: 'd1.link',
      });
    });

    it('gives no organization a domain holding links no organization holds, `org create` included', async () => {
      const store = await open();
      // Left behind by an organization that moved before this rule (or whose create raced its
      // move): links under a domain nobody holds.
      await store.links.insert(newLink({ domain: 'old.link', organizationId: 'gone' }));
      const provisioner = new Provisioner(store, systemClock);
      const refusal = runAdminCommand(provisioner, 'org create', { id: 'y', domain: 'OLD.Link.' });
      await expect(refusal).rejects.toBeInstanceOf(ProvisioningError);
      await expect(refusal).rejects.toThrow(
        'organization "y" cannot take link domain "old.link": it holds 1 link left by the organization that held it before',
      );
      await expect(store.identities.findOrganizationById('y')).resolves.toBeNull();
      await expect(
        provisioner.saveOrganization({ id: 'y', domain: 'old.link', secretKey: Y_KEY }),
      ).rejects.toThrow('cannot take link domain "old.link"');
    });
  },
);
