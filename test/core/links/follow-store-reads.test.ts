import {
  createCore,
  createMemoryStore,
  Provisioner,
  systemClock,
  withCaches,
  type Core,
  type Store,
} from '../../../core';
import { newLink } from '../../storage/fixtures';
import { countingStore, type CountingStore } from '../../support/counting-store';

/**
 * What following costs the store, counted through a wrapper over the store's ports (what a
 * networked store sees as round trips). Before the link domain directory, an unknown alias asked
 * on `Host: acme.link` read the store three times (acme.link, acme.link:443, acme.link:80).
 */
async function setUp(options: { caches?: boolean } = {}) {
  const backend: CountingStore = countingStore(createMemoryStore());
  const store: Store = options.caches
    ? withCaches(backend, { linkCacheSize: 100, identityTtlSeconds: 10 })
    : backend;
  const provisioner = new Provisioner(store, systemClock);
  await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
  await provisioner.saveOrganization({ id: 'beta', domain: 'beta.link', scheme: 'http' });
  await provisioner.saveOrganization({ id: 'ported', domain: 'ported.link:8443' });
  await backend.links.insert(newLink({ alias: 'here' }));
  const core: Core = createCore({ store });
  const resolve = (domain: string, alias: string) =>
    core
      .createCaller()
      .links.resolve({ domain, alias })
      .then(
        (link) => link.alias,
        (error: { code?: number }) => error.code,
      );
  // The directory's first load (the domains organizations hold and links are stored under),
  // made once when the core is made: the tally starts after it.
  expect(await resolve('acme.link', 'here')).toBe('here');
  backend.tally.reset();
  return { backend, core, resolve };
}

describe('store reads per follow', () => {
  it.each([
    'acme.link',
    'ACME.link.',
    'acme.link:443',
    'beta.link',
    'beta.link:80',
    'ported.link:8443',
    'unknown.example',
    'unknown.example:443',
  ])('an unknown alias on %s costs one read of the store, and nothing else', async (host) => {
    const { backend, resolve } = await setUp();
    expect(await resolve(host, 'nothere')).toBe(24);
    expect(backend.tally.of('links.findByAlias')).toBe(1);
    expect(backend.tally.total()).toBe(1);
  });

  it('a Host that is no Host, or an alias no link can have, costs no read', async () => {
    const { backend, resolve } = await setUp();
    expect(await resolve('acme.link:443.', 'here')).toBe(24);
    expect(await resolve('acme.link', 'x'.repeat(65))).toBe(24);
    expect(await resolve('acme.link', 'no/slash')).toBe(24);
    expect(backend.tally.total()).toBe(0);
  });

  it('a link found costs one read of it (and its organization), whatever form the Host takes', async () => {
    const { backend, resolve } = await setUp();
    for (const host of ['acme.link', 'Acme.Link.', 'acme.link:443']) {
      backend.tally.reset();
      expect(await resolve(host, 'here')).toBe('here');
      expect(backend.tally.of('links.findByAlias')).toBe(1);
      expect(backend.tally.of('identities.findOrganizationById')).toBe(1);
      expect(backend.tally.total()).toBe(2);
    }
  });

  it('with the caches, a link followed again costs nothing; an unknown alias still one read', async () => {
    const { backend, resolve } = await setUp({ caches: true });
    expect(await resolve('acme.link', 'here')).toBe('here');
    expect(backend.tally.total()).toBe(0);
    expect(await resolve('acme.link', 'nothere')).toBe(24);
    expect(await resolve('acme.link', 'nothere')).toBe(24);
    expect(backend.tally.of('links.findByAlias')).toBe(2);
    expect(backend.tally.total()).toBe(2);
  });

  it('an internationalised Host is read as its punycode: one read', async () => {
    const { backend } = await setUp();
    const store = backend as Store;
    const provisioner = new Provisioner(store, systemClock);
    await provisioner.saveOrganization({ id: 'books', domain: 'bücher.link' });
    await store.links.insert(
      newLink({ domain: 'xn--bcher-kva.link', alias: 'here', organizationId: 'books' }),
    );
    const core = createCore({ store });
    await core.createCaller().links.resolve({ domain: 'BÜCHER.link', alias: 'here' });
    backend.tally.reset();
    const found = await core
      .createCaller()
      .links.resolve({ domain: 'Bücher.link.', alias: 'here' });
    expect(found.domain).toBe('xn--bcher-kva.link');
    expect(backend.tally.of('links.findByAlias')).toBe(1);
  });
});

describe('domains stored with their default port by an older version', () => {
  /**
   * `legacy.link:443` as provisioning stored it before it dropped the default port; the seed file
   * applied at a later start re-saved the organization as `legacy.link`, its older links staying
   * under `legacy.link:443`.
   */
  async function legacyStore(options: { newLinksToo: boolean }) {
    const backend = countingStore(createMemoryStore());
    const provisioner = new Provisioner(backend, systemClock);
    await provisioner.saveOrganization({ id: 'legacy', domain: 'legacy.link' });
    const link = (domain: string, alias: string) =>
      backend.links.insert(newLink({ domain, alias, organizationId: 'legacy' }));
    await link('legacy.link:443', 'old');
    if (options.newLinksToo) await link('legacy.link', 'new');
    const core = createCore({ store: backend });
    const resolve = (domain: string, alias: string) =>
      core
        .createCaller()
        .links.resolve({ domain, alias })
        .then(
          (found) => found.alias,
          (error: { code?: number }) => error.code,
        );
    expect(await resolve('legacy.link', 'old')).toBe('old');
    backend.tally.reset();
    return { backend, resolve };
  }

  it('finds the older links where only they are under the ported form, reading the organization’s own form first', async () => {
    const { backend, resolve } = await legacyStore({ newLinksToo: false });
    // The directory knows `legacy.link` from the organization (its reloads read organizations,
    // not links, so a link made there elsewhere is found): two reads for a link not yet cached.
    expect(await resolve('legacy.link', 'nothere')).toBe(24);
    expect(backend.tally.of('links.findByAlias')).toBe(2);
  });

  it('reads both forms, and only those, where links are stored under both', async () => {
    const { backend, resolve } = await legacyStore({ newLinksToo: true });
    expect(await resolve('legacy.link', 'old')).toBe('old');
    expect(await resolve('legacy.link', 'new')).toBe('new');
    backend.tally.reset();
    expect(await resolve('legacy.link', 'nothere')).toBe(24);
    expect(backend.tally.of('links.findByAlias')).toBe(2);
  });
});
