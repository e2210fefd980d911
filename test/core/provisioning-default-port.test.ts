import { createCore, createMemoryStore, Provisioner, systemClock } from '../../core';

/**
 * A link domain written with its scheme's default port (`acme.link:443` for https) was stored
 * with the port, so every short URL carried it (`https://acme.link:443/x`), and following one
 * found nothing: a browser sends `Host: acme.link` for it, which names no link of that domain.
 */
describe('a link domain given with its scheme default port', () => {
  it.each([
    ['acme.link:443', 'https', 'acme.link'],
    ['ACME.link.:0443', 'https', 'acme.link'],
    ['beta.link:80', 'http', 'beta.link'],
    ['gamma.link:80', 'https', 'gamma.link:80'],
    ['delta.link:443', 'http', 'delta.link:443'],
    ['localhost:8080', 'http', 'localhost:8080'],
  ] as const)(
    '%s (%s) is the domain %s, and its links are found',
    async (given, scheme, domain) => {
      const store = createMemoryStore();
      const provisioner = new Provisioner(store.identities, systemClock);
      const saved = await provisioner.saveOrganization({ id: 'acme', domain: given, scheme });
      expect(saved.organization.domain).toBe(domain);
      await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
      await provisioner.saveUser({ id: 'svc', organizations: ['acme'] });
      const { token } = await provisioner.issueToken('svc');
      const core = createCore({ store });
      const link = await core.createCaller({ authorization: `Bearer ${token}` }).links.create({
        organization_key: saved.secretKey as string,
        url_group_id: '1',
        url: 'https://example.com/',
        alias: 'x',
      });
      expect(link.short_url).toBe(`${scheme}://${domain}/x`);
      // What a client sends as Host for the short URL.
      const host = new URL(link.short_url).host;
      await expect(
        core.createCaller().links.resolve({ domain: host, alias: 'x' }),
      ).resolves.toEqual(link);
    },
  );

  it('cannot give a second organization the same domain through the default port', async () => {
    const provisioner = new Provisioner(createMemoryStore().identities, systemClock);
    await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    const refusal = provisioner.saveOrganization({ id: 'evil', domain: 'acme.link:443' });
    await expect(refusal).rejects.toThrow('already belongs to another organization');
  });
});
