import { createCore, createMemoryStore, Provisioner, systemClock } from '../../../core';

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
      const provisioner = new Provisioner(store, systemClock);
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
      ).resolves.toMatchObject(link);
    },
  );

  it('cannot give a second organization the same domain through the default port', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    const refusal = provisioner.saveOrganization({ id: 'evil', domain: 'acme.link:443' });
    await expect(refusal).rejects.toThrow('already belongs to another organization');
  });

  it('still follows the links of a domain stored with its default port before this rule', async () => {
    const store = createMemoryStore();
    const legacy = (domain: string, scheme: 'http' | 'https', alias: string) =>
      store.links.insert({
        domain,
        alias,
        url: `https://example.com/${alias}`,
        redirectType: 301,
        scheme,
        organizationId: 'acme',
        groupApiId: '1',
        userId: 'svc',
        createdAt: new Date(0),
      });
    // Links are followed only while their organization is active.
    await store.identities.saveOrganization({
      id: 'acme',
      name: 'Acme',
      domain: 'acme.link',
      scheme: 'https',
      active: true,
      keyHash: 'a'.repeat(64),
    });
    await legacy('acme.link:443', 'https', 'secure');
    await legacy('beta.link:80', 'http', 'plain');
    await legacy('gamma.link:443', 'http', 'other-port');
    const resolver = createCore({ store }).createCaller();
    const found = (domain: string, alias: string) =>
      resolver.links.resolve({ domain, alias }).then(
        (link) => link.url,
        (error: { code?: number }) => error.code,
      );
    // A browser following https://acme.link:443/secure sends Host acme.link.
    expect(await found('acme.link', 'secure')).toBe('https://example.com/secure');
    expect(await found('acme.link.', 'secure')).toBe('https://example.com/secure');
    expect(await found('beta.link', 'plain')).toBe('https://example.com/plain');
    // Port 443 of an http domain is no default port: that link needs it in the Host.
    expect(await found('gamma.link', 'other-port')).toBe(24);
    expect(await found('gamma.link:443', 'other-port')).toBe('https://example.com/other-port');
  });
});
