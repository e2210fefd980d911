import { runAdminCommand } from '../../core/cli/admin';
import {
  createCore,
  createMemoryStore,
  hashSecret,
  Provisioner,
  ProvisioningError,
  systemClock,
} from '../../core';
import { applySeed } from '../../core/provisioning/seed-file';
import { seedFromSnapshot } from '../../core/provisioning/seed-export';

const secretOf = (lines: string[]) => {
  const line = lines.find((l) => l.includes('(shown once): '));
  return line?.split('(shown once): ')[1] ?? '';
};

async function provisionThroughCli() {
  const store = createMemoryStore();
  const provisioner = new Provisioner(store, systemClock);
  const orgLines = await runAdminCommand(provisioner, 'org create', {
    id: 'acme',
    domain: 'Acme.Link',
    name: 'Acme',
  });
  await runAdminCommand(provisioner, 'group create', { org: 'acme', 'api-id': '7' });
  await runAdminCommand(provisioner, 'user create', { id: 'alice', org: ['acme'] });
  const tokenLines = await runAdminCommand(provisioner, 'token create', { user: 'alice' });
  return { store, orgKey: secretOf(orgLines), token: secretOf(tokenLines) };
}

describe('admin CLI commands', () => {
  it('prints each new secret once, with the scanner-friendly prefixes', async () => {
    const { orgKey, token } = await provisionThroughCli();
    expect(orgKey).toMatch(/^slorg_[0-9A-Za-z]{40}$/);
    expect(token).toMatch(/^slpat_[0-9A-Za-z]{40}$/);
  });

  it('provisions credentials that the core accepts', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const link = await createCore({ store })
      .createCaller({ authorization: `Bearer ${token}` })
      .links.create({ organization_key: orgKey, url_group_id: 7, url: 'https://example.com/x' });
    expect(link.short_url).toBe(`https://acme.link/${link.alias}`);
  });

  it('stores only hashes, and a seed written from the store carries no secret', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const seedText = JSON.stringify(seedFromSnapshot(store.identities.snapshot()));
    expect(seedText).not.toContain(orgKey);
    expect(seedText).not.toContain(token);
    expect(seedText).toContain(hashSecret(orgKey));
    expect(seedText).toContain(hashSecret(token));
  });

  it('round-trips through a hash-only seed file into a fresh store', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const fresh = createMemoryStore();
    await applySeed(
      new Provisioner(fresh, systemClock),
      seedFromSnapshot(store.identities.snapshot()),
    );
    const link = await createCore({ store: fresh })
      .createCaller({ authorization: `Bearer ${token}` })
      .links.create({ organization_key: orgKey, url_group_id: '7', url: 'https://example.com/y' });
    expect(link.domain).toBe('acme.link');
  });

  it('deactivates an organization so the core refuses it with code 13', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    await runAdminCommand(new Provisioner(store, systemClock), 'org deactivate', {
      id: 'acme',
    });
    await expect(
      createCore({ store })
        .createCaller({ authorization: `Bearer ${token}` })
        .links.create({
          organization_key: orgKey,
          url_group_id: '7',
          url: 'https://example.com/z',
        }),
    ).rejects.toMatchObject({ reason: 'ORGANIZATION_INACTIVE' });
  });

  it('rotates an organization key: the old one is code 12, the new one works, a seed carries its hash', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const before = await store.identities.findOrganizationById('acme');
    const lines = await runAdminCommand(new Provisioner(store, systemClock), 'org rotate-key', {
      id: 'acme',
    });
    const newKey = secretOf(lines);
    expect(newKey).toMatch(/^slorg_[0-9A-Za-z]{40}$/);
    const caller = createCore({ store }).createCaller({ authorization: `Bearer ${token}` });
    await expect(
      caller.links.create({ organization_key: orgKey, url_group_id: '7', url: 'https://e.com/' }),
    ).rejects.toMatchObject({ reason: 'ORGANIZATION_KEY_INVALID' });
    await expect(
      caller.links.create({ organization_key: newKey, url_group_id: '7', url: 'https://e.com/' }),
    ).resolves.toMatchObject({ domain: 'acme.link' });
    // Nothing but the key changed.
    expect(await store.identities.findOrganizationById('acme')).toEqual({
      ...before,
      keyHash: hashSecret(newKey),
    });
    const seedText = JSON.stringify(seedFromSnapshot(store.identities.snapshot()));
    expect(seedText).toContain(hashSecret(newKey));
    expect(seedText).not.toContain(hashSecret(orgKey));
  });

  it('refuses unknown commands, missing options and unknown references clearly', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    await expect(runAdminCommand(provisioner, 'org explode', {})).rejects.toThrow(
      /unknown command/,
    );
    await expect(runAdminCommand(provisioner, 'org create', { id: 'x' })).rejects.toThrow(
      /--domain is required/,
    );
    await expect(
      runAdminCommand(provisioner, 'org create', { id: 'x', domain: 'http://x.y/path' }),
    ).rejects.toThrow(/invalid link domain/);
    await expect(runAdminCommand(provisioner, 'token create', { user: 'nobody' })).rejects.toThrow(
      /no user "nobody"/,
    );
  });
});

describe('create commands refuse what exists, and a refused command writes nothing', () => {
  it('keeps an organization whose id "org create" is given again: same key, same link domain', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    await expect(
      runAdminCommand(provisioner, 'org create', { id: 'acme', domain: 'other.link' }),
    ).rejects.toThrow(/organization "acme" already exists/);
    await expect(store.identities.findOrganizationById('acme')).resolves.toMatchObject({
      domain: 'acme.link',
      keyHash: hashSecret(orgKey),
    });
    // The domain is still acme's: nobody else can take it.
    await expect(
      runAdminCommand(provisioner, 'org create', { id: 'beta', domain: 'acme.link' }),
    ).rejects.toThrow(/already belongs to another organization/);
    const link = await createCore({ store })
      .createCaller({ authorization: `Bearer ${token}` })
      .links.create({ organization_key: orgKey, url_group_id: '7', url: 'https://example.com/k' });
    expect(link.domain).toBe('acme.link');
  });

  it('refuses a group or a user that exists', async () => {
    const { store } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    await expect(
      runAdminCommand(provisioner, 'group create', { org: 'acme', 'api-id': '7', name: 'New' }),
    ).rejects.toThrow(/group "7" already exists in organization "acme"/);
    await expect(store.identities.findGroup('acme', '7')).resolves.toMatchObject({ name: '7' });
    await expect(
      runAdminCommand(provisioner, 'user create', { id: 'alice', name: 'Other' }),
    ).rejects.toThrow(/user "alice" already exists/);
    await expect(store.identities.findUserById('alice')).resolves.toMatchObject({
      name: 'alice',
    });
  });

  it('creates no user when one of its organizations does not exist', async () => {
    const { store } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    await expect(
      runAdminCommand(provisioner, 'user create', { id: 'eve', org: ['acme', 'nope'] }),
    ).rejects.toThrow(/no organization "nope"/);
    await expect(store.identities.findUserById('eve')).resolves.toBeNull();
    await expect(store.identities.isMember('eve', 'acme')).resolves.toBe(false);
    await expect(runAdminCommand(provisioner, 'token create', { user: 'eve' })).rejects.toThrow(
      /no user "eve"/,
    );
  });

  it('leaves seed files as they were: applying one twice still changes nothing', async () => {
    const { store } = await provisionThroughCli();
    const seed = seedFromSnapshot(store.identities.snapshot());
    const again = createMemoryStore();
    const provisioner = new Provisioner(again, systemClock);
    await applySeed(provisioner, seed);
    await applySeed(provisioner, seed);
    expect(seedFromSnapshot(again.identities.snapshot())).toEqual(seed);
  });
});

describe('provisioning guards', () => {
  it('refuses a token that could never be sent as "Bearer <token>"', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await provisioner.saveUser({ id: 'u' });
    await expect(provisioner.issueToken('u', { token: 'has space' })).rejects.toThrow(
      /cannot be sent/,
    );
    await expect(
      provisioner.issueToken('u', { token: 'ok-token_1.2~3+4/5-long-enough=' }),
    ).resolves.toEqual({
      tokenHash: hashSecret('ok-token_1.2~3+4/5-long-enough='),
    });
  });

  it('refuses to give two organizations the same secret key, and allows re-saving one', async () => {
    const provisioner = new Provisioner(createMemoryStore(), systemClock);
    await provisioner.saveOrganization({
      id: 'a',
      domain: 'a.link',
      secretKey: 'same-key-of-two-organizations',
    });
    await expect(
      provisioner.saveOrganization({
        id: 'a',
        domain: 'a.link',
        secretKey: 'same-key-of-two-organizations',
      }),
    ).resolves.toBeDefined();
    await expect(
      provisioner.saveOrganization({
        id: 'b',
        domain: 'b.link',
        secretKey: 'same-key-of-two-organizations',
      }),
    ).rejects.toThrow(/already in use/);
  });
});

describe('token revoke', () => {
  const create = (store: ReturnType<typeof createMemoryStore>, token: string, orgKey: string) =>
    createCore({ store })
      .createCaller({ authorization: `Bearer ${token}` })
      .links.create({ organization_key: orgKey, url_group_id: '7', url: 'https://example.com/r' });

  it('revokes the one token read from standard input (newline trimmed): code 11 afterwards', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    const other = secretOf(await runAdminCommand(provisioner, 'token create', { user: 'alice' }));
    const lines = await runAdminCommand(provisioner, 'token revoke', {}, `${token}\n`);
    expect(lines).toEqual(['revoked a token of user alice']);
    expect(lines.join('\n')).not.toContain(token);
    await expect(create(store, token, orgKey)).rejects.toMatchObject({ reason: 'TOKEN_UNKNOWN' });
    await expect(store.identities.findUserIdByTokenHash(hashSecret(token))).resolves.toBeNull();
    // The user's other token still works.
    await expect(create(store, other, orgKey)).resolves.toBeDefined();
  });

  it('refuses an unknown (or already revoked) token, an empty input and two words, changing nothing', async () => {
    const { store, token } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    const before = JSON.stringify(store.identities.snapshot());
    const unknown = `slpat_${'x'.repeat(40)}`;
    for (const [input, message] of [
      [unknown, /no such token: it is unknown or revoked already; nothing was changed/],
      ['', /no token on standard input/],
      [' \n\t\n', /no token on standard input/],
      [`${token}\n${unknown}\n`, /more than one word/],
    ] as const) {
      const failure = runAdminCommand(provisioner, 'token revoke', {}, input);
      await expect(failure).rejects.toBeInstanceOf(ProvisioningError);
      await expect(failure).rejects.toThrow(message);
      await failure.catch((error: Error) => expect(error.message).not.toContain(token));
    }
    expect(JSON.stringify(store.identities.snapshot())).toBe(before);
    await runAdminCommand(provisioner, 'token revoke', {}, token);
    await expect(runAdminCommand(provisioner, 'token revoke', {}, token)).rejects.toThrow(
      /revoked already/,
    );
  });

  it('revokes every token of a user with --user and --all, and says how many', async () => {
    const { store, orgKey, token } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    const second = secretOf(await runAdminCommand(provisioner, 'token create', { user: 'alice' }));
    await runAdminCommand(provisioner, 'user create', { id: 'bob', org: ['acme'] });
    const bobs = secretOf(await runAdminCommand(provisioner, 'token create', { user: 'bob' }));
    await expect(
      runAdminCommand(provisioner, 'token revoke', { user: 'alice', all: true }),
    ).resolves.toEqual(['revoked 2 tokens of user alice']);
    for (const revoked of [token, second]) {
      await expect(create(store, revoked, orgKey)).rejects.toMatchObject({
        reason: 'TOKEN_UNKNOWN',
      });
    }
    await expect(create(store, bobs, orgKey)).resolves.toBeDefined();
    await expect(
      runAdminCommand(provisioner, 'token revoke', { user: 'alice', all: true }),
    ).resolves.toEqual(['revoked 0 tokens of user alice']);
    await expect(
      runAdminCommand(provisioner, 'token revoke', { user: 'bob', all: true }),
    ).resolves.toEqual(['revoked 1 token of user bob']);
  });

  it('refuses an unknown user, --user without --all and --all without --user, changing nothing', async () => {
    const { store } = await provisionThroughCli();
    const provisioner = new Provisioner(store, systemClock);
    const before = JSON.stringify(store.identities.snapshot());
    await expect(
      runAdminCommand(provisioner, 'token revoke', { user: 'nobody', all: true }),
    ).rejects.toThrow(/no user "nobody"/);
    await expect(runAdminCommand(provisioner, 'token revoke', { user: 'alice' })).rejects.toThrow(
      /--user needs --all[\s\S]*usage: npm run admin/,
    );
    await expect(runAdminCommand(provisioner, 'token revoke', { all: true })).rejects.toThrow(
      /--all needs --user[\s\S]*usage: npm run admin/,
    );
    expect(JSON.stringify(store.identities.snapshot())).toBe(before);
  });
});
