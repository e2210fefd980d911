import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCore,
  createMemoryStore,
  generateOrganizationKey,
  generateToken,
  hashSecret,
  loadSeedFile,
  provisionDemo,
  Provisioner,
  ProvisioningError,
  systemClock,
  type Seed,
} from '../../../core';
import { createTestCore } from '../../support/core-fixture';
import { failureOf } from '../../support/failures';

/** Everything the memory identity store holds, Maps and Sets included, as one JSON text. */
function dumpIdentityStore(identities: object): string {
  return JSON.stringify(identities, (_key, value: unknown) => {
    if (value instanceof Map) return [...(value as Map<unknown, unknown>).entries()];
    if (value instanceof Set) return [...(value as Set<unknown>)];
    return value;
  });
}

const ORG_SECRET = 'acme-organization-secret-from-the-seed';
const TOKEN = 'alice-token-from-the-seed';
const OLD_ORG_SECRET = 'old-organization-secret-1234';

const seed: Seed = {
  organizations: [
    {
      id: 'acme',
      name: 'Acme',
      secret_key: ORG_SECRET,
      domain: 'Acme.Link',
      scheme: 'https',
      active: true,
      groups: [{ api_id: '1', name: 'Default' }, { api_id: 7 }],
    },
    {
      id: 'old',
      secret_key: OLD_ORG_SECRET,
      domain: 'old.link:8443',
      scheme: 'http',
      active: false,
    },
  ],
  users: [{ id: 'alice', name: 'Alice', tokens: [TOKEN], organizations: ['acme', 'old'] }],
};

describe('provisioning: the seed file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shortlink-seed-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('applies a seed file whose credentials the core then accepts', async () => {
    const file = join(dir, 'seed.json');
    await writeFile(file, JSON.stringify(seed));
    const store = createMemoryStore();
    expect(await loadSeedFile(new Provisioner(store, systemClock), file)).toEqual({
      organizations: 2,
      users: 1,
    });
    const caller = createCore({ store }).createCaller({ authorization: `Bearer ${TOKEN}` });
    const link = await caller.links.create({
      organization_key: ORG_SECRET,
      url_group_id: 7,
      url: 'https://example.com/',
      alias: 'seeded',
    });
    expect(link.short_url).toBe('https://acme.link/seeded');
    const inactive = await failureOf(
      caller.links.create({
        organization_key: OLD_ORG_SECRET,
        url_group_id: '1',
        url: 'https://e.com',
      }),
    );
    expect(inactive.reason).toBe('ORGANIZATION_INACTIVE');
  });

  it('is idempotent: applying it twice leaves the same state', async () => {
    const file = join(dir, 'twice.json');
    await writeFile(file, JSON.stringify(seed));
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await loadSeedFile(provisioner, file);
    const once = store.identities.snapshot();
    await loadSeedFile(provisioner, file);
    expect(store.identities.snapshot()).toEqual(once);
    expect(once.organizations).toHaveLength(2);
    expect(once.groups).toHaveLength(2);
    expect(once.tokens).toHaveLength(1);
    expect(once.memberships).toHaveLength(2);
  });

  it('stores the seed secrets only as SHA-256 hashes', async () => {
    const store = createMemoryStore();
    const file = join(dir, 'hashes.json');
    await writeFile(file, JSON.stringify(seed));
    await loadSeedFile(new Provisioner(store, systemClock), file);
    const dump = dumpIdentityStore(store.identities);
    for (const secret of [ORG_SECRET, TOKEN, OLD_ORG_SECRET]) {
      expect(dump).not.toContain(secret);
      expect(dump).toContain(hashSecret(secret));
    }
  });

  it('refuses a file that is missing, not JSON or not a seed, with a clear error', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    await expect(loadSeedFile(provisioner, join(dir, 'absent.json'))).rejects.toThrow(
      /cannot read seed file/,
    );
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"organizations": [');
    await expect(loadSeedFile(provisioner, broken)).rejects.toThrow(/is not valid JSON/);
    const wrong = join(dir, 'wrong.json');
    await writeFile(wrong, JSON.stringify({ organizations: [{ id: 'x', domain: 'x.link' }] }));
    await expect(loadSeedFile(provisioner, wrong)).rejects.toBeInstanceOf(ProvisioningError);
  });
});

describe('provisioning: secrets', () => {
  it('hashes with SHA-256 (hex)', () => {
    expect(hashSecret('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('gives tokens the slpat_ prefix and organization keys the slorg_ prefix, all distinct', () => {
    const tokens = new Set(Array.from({ length: 50 }, generateToken));
    const keys = new Set(Array.from({ length: 50 }, generateOrganizationKey));
    expect(tokens.size).toBe(50);
    expect(keys.size).toBe(50);
    for (const token of tokens) expect(token).toMatch(/^slpat_[0-9A-Za-z]{40}$/);
    for (const key of keys) expect(key).toMatch(/^slorg_[0-9A-Za-z]{40}$/);
  });

  it('returns each generated secret once and keeps only its hash', async () => {
    const f = await createTestCore();
    expect(f.token).toMatch(/^slpat_/);
    expect(f.organizationKey).toMatch(/^slorg_/);
    const dump = dumpIdentityStore(f.store.identities);
    for (const secret of [
      f.token,
      f.outsiderToken,
      f.organizationKey,
      f.otherOrganizationKey,
      f.inactiveOrganizationKey,
    ]) {
      expect(dump).not.toContain(secret);
      expect(dump).toContain(hashSecret(secret));
    }
    // Saving the organization again with a chosen key returns no secret.
    const again = await f.provisioner.saveOrganization({
      id: 'acme',
      domain: 'acme.link',
      secretKey: 'chosen-organization-key-0001',
    });
    expect(again.secretKey).toBeUndefined();
    const reissued = await f.provisioner.issueToken('alice', {
      token: 'chosen-token-of-alice-00001',
    });
    expect(reissued).toEqual({ tokenHash: hashSecret('chosen-token-of-alice-00001') });
  });

  it('refuses an invalid link domain and unknown references', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    for (const domain of [
      '',
      'https://x.link',
      'x.link/path',
      'user@x.link',
      'a b.link',
      'x..link',
      '.x.link',
      'x.link..',
      'x.link:0',
      'x.link:000',
    ]) {
      await expect(provisioner.saveOrganization({ id: 'x', domain })).rejects.toThrow(
        new ProvisioningError(
          `invalid link domain "${domain}": give a host name (no empty label, at most 253 characters) or an IP address, with a port from 1 to 65535 when not the default, and nothing else (no scheme, path or credentials)`,
        ),
      );
    }
    await expect(provisioner.saveGroup({ organizationId: 'nope', apiId: '1' })).rejects.toThrow(
      /no organization/,
    );
    await expect(provisioner.issueToken('nobody')).rejects.toThrow(/no user/);
  });
});

describe('provisioning: the demo', () => {
  it('creates an http organization on localhost:<port>, group "1" and a working token', async () => {
    const store = createMemoryStore();
    const demo = await provisionDemo(new Provisioner(store, systemClock), 8123);
    expect(demo.domain).toBe('localhost:8123');
    expect(demo.urlGroupId).toBe('1');
    expect(demo.token).toMatch(/^slpat_[0-9A-Za-z]{40}$/);
    expect(demo.organizationKey).toMatch(/^slorg_[0-9A-Za-z]{40}$/);

    const link = await createCore({ store })
      .createCaller({ authorization: `Bearer ${demo.token}` })
      .links.create({
        organization_key: demo.organizationKey,
        url_group_id: demo.urlGroupId,
        url: 'https://example.com/a/very/long/path',
      });
    expect(link.short_url).toBe(`http://localhost:8123/${link.alias}`);
    const dump = dumpIdentityStore(store.identities);
    expect(dump).not.toContain(demo.token);
    expect(dump).not.toContain(demo.organizationKey);
  });
});
