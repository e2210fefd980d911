import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createMemoryStore,
  loadSeedFile,
  Provisioner,
  ProvisioningError,
  systemClock,
} from '../../../core';
import { startInProcessService } from '../../support/in-process-service';

const LONG_KEY = 'acme-organization-secret-0123456789';
const LONG_TOKEN = 'alice-personal-token-0123456789';

describe('provisioning refuses weak or conflicting definitions', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shortlink-provisioning-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const seedFile = async (name: string, content: unknown) => {
    const file = join(dir, name);
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const load = (file: string) =>
    loadSeedFile(new Provisioner(createMemoryStore(), systemClock), file);
  /** What starting the real service with this seed file says. */
  const startWith = async (file: string): Promise<string> => {
    const outcome = await startInProcessService({ SHORTLINK_SEED_FILE: file }).then(
      async (service) => {
        await service.shutdown();
        return 'started';
      },
      (error: unknown) => (error as Error).message,
    );
    return outcome;
  };
  const org = (id: string, domain: string, secret_key = `${id}-${LONG_KEY}`) => ({
    id,
    domain,
    secret_key,
  });

  it.each([
    [
      'organizations.0.secret_key',
      { organizations: [org('acme', 'acme.link', 'short-org-secret')] },
    ],
    [
      'users.0.tokens.1',
      {
        organizations: [org('acme', 'acme.link')],
        users: [{ id: 'alice', tokens: [LONG_TOKEN, 'short-user-token'], organizations: ['acme'] }],
      },
    ],
  ])(
    'refuses a chosen secret under 24 characters, naming %s but not the secret',
    async (field, seed) => {
      const file = await seedFile(`short-${field}.json`, seed);
      const message = await startWith(file);
      expect(message).toContain(`${field}: must have at least 24 characters`);
      expect(message).not.toMatch(/short-(org-secret|user-token)/);
      await expect(load(file)).rejects.toBeInstanceOf(ProvisioningError);
    },
  );

  it('accepts a chosen secret of exactly 24 characters', async () => {
    const file = await seedFile('exact.json', {
      organizations: [org('acme', 'acme.link', 'x'.repeat(24))],
      users: [{ id: 'alice', tokens: ['y'.repeat(24)], organizations: ['acme'] }],
    });
    await expect(load(file)).resolves.toEqual({ organizations: 1, users: 1 });
  });

  it.each([
    [
      'a bare word',
      '{\n  "organizations": [\n    { "id": "acme", "secret_key": slorg_leaked_secret_value }\n  ]\n}',
      3,
      35,
    ],
    [
      'a missing comma',
      '{"users": [{"id": "alice" "tokens": ["slpat_leaked_secret_value"]}]}',
      1,
      27,
    ],
    ['an unclosed string', '{"users": [{"tokens": ["slpat_leaked_secret_value', 1, 24],
    ['a trailing comma', '{"organizations": [],}', 1, 22],
  ])(
    'reports %s by line and column, never repeating the text',
    async (_what, text, line, column) => {
      const file = await seedFile('broken.json', text);
      const message = await startWith(file);
      expect(message).toContain(`is not valid JSON: `);
      expect(message).toContain(`at line ${line}, column ${column}`);
      expect(message).not.toMatch(/leaked|slorg_|slpat_/);
    },
  );

  it.each([
    ['acme.link', 'ACME.Link'],
    ['acme.link', 'acme.link.'],
    ['acme.link:8443', 'Acme.Link.:8443'],
    ['bücher.link', 'xn--bcher-kva.link'],
    ['BÜCHER.link.', 'xn--bcher-kva.LINK'],
  ])('refuses a second organization on %s written as %s', async (first, second) => {
    const file = await seedFile('shared-domain.json', {
      organizations: [org('acme', first), org('beta', second)],
    });
    const message = await startWith(file);
    expect(message).toMatch(
      /organization "beta": the link domain ".+" already belongs to another organization/,
    );
  });

  it('lets an organization keep or change its own domain, and frees the old one', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    await provisioner.saveOrganization({ id: 'acme', domain: 'ACME.link.' });
    await provisioner.saveOrganization({ id: 'acme', domain: 'acme.example' });
    await expect(
      provisioner.saveOrganization({ id: 'beta', domain: 'acme.link' }),
    ).resolves.toBeDefined();
    await expect(
      provisioner.saveOrganization({ id: 'gamma', domain: 'Acme.Example' }),
    ).rejects.toThrow(ProvisioningError);
  });

  it('lets exactly one of two concurrent organizations have a domain (the store decides)', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((id) => provisioner.saveOrganization({ id, domain: 'race.link' })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect(outcome.reason).toBeInstanceOf(ProvisioningError);
    }
  });
});

describe('the Provisioner refuses what plain JavaScript can pass around the types', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a scheme other than http(s)', { scheme: 'javascript' }, 'scheme must be "http" or "https"'],
    ['an active flag that is no boolean', { active: 'false' }, 'active must be true or false'],
    ['an id that is no string', { id: 5 }, 'organization id must be a string'],
    ['a link domain that is no string', { domain: 5 }, 'invalid link domain "5"'],
  ])('refuses an organization with %s, writing nothing', async (_, override, message) => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    const input = { id: 'acme', domain: 'acme.link', ...override };
    const saved = provisioner.saveOrganization(input);
    await expect(saved).rejects.toBeInstanceOf(ProvisioningError);
    await expect(saved).rejects.toThrow(message);
    await expect(provisioner.createOrganization(input as never)).rejects.toBeInstanceOf(
      ProvisioningError,
    );
    expect(await store.identities.listLinkDomains()).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a chosen key shorter than 24 characters', { secretKey: 'short-key' }, 'at least 24'],
    ['an empty chosen key', { secretKey: '' }, 'at least 24'],
    ['a chosen key that is no string', { secretKey: 12345 }, 'at least 24'],
    ['a key hash that is no SHA-256', { secretKeyHash: 'abc' }, '64 lower-case hex digits'],
    ['a key hash that is no string', { secretKeyHash: 7 }, '64 lower-case hex digits'],
  ])('refuses an organization with %s, never naming it', async (_, override, message) => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    const saved = provisioner.saveOrganization({ id: 'acme', domain: 'acme.link', ...override });
    await expect(saved).rejects.toBeInstanceOf(ProvisioningError);
    await expect(saved).rejects.toThrow(message);
    await expect(saved).rejects.toThrow('organization "acme"');
    const secret = String(override.secretKey ?? override.secretKeyHash);
    if (secret.length > 2) await expect(saved).rejects.not.toThrow(secret);
    expect(await store.identities.listLinkDomains()).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a chosen token shorter than 24 characters', { token: 'short-token' }, 'at least 24'],
    ['a chosen token that is no string', { token: 42 }, 'at least 24'],
    ['a token hash that is no SHA-256', { tokenHash: 'A'.repeat(64) }, '64 lower-case hex'],
  ])('refuses a token given as %s, storing none', async (_, given, message) => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await provisioner.saveUser({ id: 'alice' });
    const issued = provisioner.issueToken('alice', given);
    await expect(issued).rejects.toBeInstanceOf(ProvisioningError);
    await expect(issued).rejects.toThrow(message);
    expect(store.identities.snapshot().tokens).toEqual([]);
  });

  it('refuses to set an active flag that is no boolean, leaving the organization as it was', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    await expect(provisioner.setOrganizationActive('acme', 'false' as never)).rejects.toThrow(
      'active must be true or false',
    );
    expect(await store.identities.findOrganizationById('acme')).toMatchObject({ active: true });
  });

  it('refuses a user whose organizations are not a list of ids, writing nothing', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await provisioner.saveOrganization({ id: 'a', domain: 'a.link' });
    for (const organizations of ['a', [5], { 0: 'a' }]) {
      await expect(provisioner.saveUser({ id: 'alice', organizations } as never)).rejects.toThrow(
        'organizations must be a list of ids',
      );
    }
    expect(await store.identities.findUserById('alice')).toBeNull();
  });
});
