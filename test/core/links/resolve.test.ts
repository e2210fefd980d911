import { createTestCore } from '../../support/core-fixture';
import { expectFailure, failureOf } from '../../support/failures';

describe('links.resolve', () => {
  it('finds a link by domain and alias, without credentials', async () => {
    const f = await createTestCore();
    const created = await f
      .caller()
      .links.create(f.body({ alias: 'Promo', redirect_type: 307 }) as never);
    const found = await f.core
      .createCaller()
      .links.resolve({ domain: 'acme.link', alias: 'Promo' });
    expect(found).toMatchObject(created);
  });

  it('compares the domain case-insensitively and the alias exactly', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'Promo' }) as never);
    const resolver = f.core.createCaller();
    expect((await resolver.links.resolve({ domain: 'ACME.Link', alias: 'Promo' })).alias).toBe(
      'Promo',
    );
    for (const alias of ['promo', 'PROMO', 'Promo ']) {
      const error = await failureOf(resolver.links.resolve({ domain: 'acme.link', alias }));
      expect(error.reason).toBe('NOT_FOUND');
    }
  });

  it('reads the domain as a Host: a trailing dot and the default port of its scheme are the same domain', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'dot' }) as never);
    await f
      .caller()
      .links.create(f.body({ alias: 'plain', organization_key: f.otherOrganizationKey }) as never);
    const resolver = f.core.createCaller();
    const resolves = async (domain: string, alias: string) =>
      resolver.links.resolve({ domain, alias }).then(
        (link) => link.alias,
        (error: { code?: number }) => error.code,
      );
    // acme.link is an https domain, beta.link an http one.
    expect(await resolves('acme.link.', 'dot')).toBe('dot');
    expect(await resolves('ACME.LINK.:443', 'dot')).toBe('dot');
    expect(await resolves('acme.link:443', 'dot')).toBe('dot');
    expect(await resolves('beta.link:80', 'plain')).toBe('plain');
    expect(await resolves('beta.link.', 'plain')).toBe('plain');
    // Another port, or the other scheme's default port, is another host.
    expect(await resolves('acme.link:80', 'dot')).toBe(24);
    expect(await resolves('acme.link:8443', 'dot')).toBe(24);
    expect(await resolves('beta.link:443', 'plain')).toBe(24);
    expect(await resolves('acme.link..', 'dot')).toBe(24);
  });

  it('follows a link of the longest domain provisioning accepts: a 253-character name and a port', async () => {
    const f = await createTestCore();
    const name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(name).toHaveLength(253);
    const { organization, secretKey } = await f.provisioner.saveOrganization({
      id: 'longest',
      domain: `${name}:65535`,
    });
    await f.provisioner.saveGroup({ organizationId: organization.id, apiId: '1' });
    await f.provisioner.addMember('alice', organization.id);
    const created = await f
      .caller()
      .links.create(f.body({ alias: 'far', organization_key: secretKey }) as never);
    expect(created.short_url).toBe(`https://${name}:65535/far`);
    const resolver = f.core.createCaller();
    // As a client sends it in Host: with the port, and with the name's trailing dot too.
    for (const domain of [`${name}:65535`, `${name.toUpperCase()}.:65535`]) {
      await expect(resolver.links.resolve({ domain, alias: 'far' })).resolves.toMatchObject(
        created,
      );
    }
    // One character longer than any such Host is still just not found.
    const error = await failureOf(
      resolver.links.resolve({ domain: `${name}.:065535`, alias: 'far' }),
    );
    expect(error.reason).toBe('NOT_FOUND');
  });

  it('reads a dot after the port as no Host: not the domain with that port', async () => {
    const f = await createTestCore();
    const { organization, secretKey } = await f.provisioner.saveOrganization({
      id: 'ported',
      domain: 'ported.link:8443',
    });
    await f.provisioner.saveGroup({ organizationId: organization.id, apiId: '1' });
    await f.provisioner.addMember('alice', organization.id);
    await f.caller().links.create(f.body({ alias: 'here', organization_key: secretKey }) as never);
    const resolver = f.core.createCaller();
    await expect(
      resolver.links.resolve({ domain: 'ported.link.:8443', alias: 'here' }),
    ).resolves.toMatchObject({ alias: 'here' });
    for (const domain of ['ported.link:8443.', '[::1]:8443.']) {
      const error = await failureOf(resolver.links.resolve({ domain, alias: 'here' }));
      expect(error.reason).toBe('NOT_FOUND');
    }
  });

  it('answers an unknown alias, an unknown domain or a bad input with code 24', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'here' }) as never);
    const resolver = f.core.createCaller();
    for (const input of [
      { domain: 'acme.link', alias: 'nothere' },
      { domain: 'beta.link', alias: 'here' },
      { domain: '', alias: 'here' },
      { domain: 'acme.link', alias: '' },
      { domain: 'acme.link', alias: 'x'.repeat(65) },
      null,
      { domain: 5, alias: 'here' },
    ]) {
      await expectFailure(resolver.links.resolve(input as never), 'NOT_FOUND', [
        'No short link with this alias.',
      ]);
    }
  });
});
