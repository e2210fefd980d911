import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  applySeed,
  createMemoryStore,
  hashSecret,
  Provisioner,
  ProvisioningError,
  systemClock,
  type Seed,
} from '../../../core';
import { openAdminTarget } from '../../../core/cli/admin-store';
import { loadConfig } from '../../../core/runtime';
import { tempDirs } from '../../support/temp-dirs';

const dirs = tempDirs('token-owner');
afterAll(() => dirs.removeAll());

const SHARED = 'slpat_one-token-written-for-two-users';

const organizations: Seed['organizations'] = [
  { id: 'acme', domain: 'acme.link', secret_key: 'slorg_acme-organization-secret-key' },
];

function newProvisioner() {
  const store = createMemoryStore();
  return { store, provisioner: new Provisioner(store, systemClock) };
}

describe('a token belongs to one user', () => {
  it('refuses a seed file giving one token to two users, writing nothing and not showing it', async () => {
    const { store, provisioner } = newProvisioner();
    const twice: Seed = {
      organizations,
      users: [
        { id: 'alice', tokens: [SHARED], organizations: ['acme'] },
        { id: 'bob', tokens: [SHARED] },
      ],
    };
    const refusal = await applySeed(provisioner, twice, 'seed.json').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ProvisioningError);
    expect((refusal as Error).message).toContain(
      'seed.json is invalid: users.1.tokens.0: the same token as user "alice" (users.0.tokens.0)',
    );
    expect((refusal as Error).message).not.toContain(SHARED);
    expect(store.identities.snapshot()).toMatchObject({ organizations: [], users: [], tokens: [] });
  });

  it('compares tokens given in clear with tokens given as hashes', async () => {
    const { provisioner } = newProvisioner();
    const mixed: Seed = {
      users: [
        { id: 'alice', token_sha256s: [hashSecret(SHARED)] },
        { id: 'bob', tokens: [SHARED] },
      ],
    };
    await expect(applySeed(provisioner, mixed)).rejects.toThrow(
      'users.1.tokens.0: the same token as user "alice" (users.0.token_sha256s.0)',
    );
  });

  it('still takes one token listed twice for the same user', async () => {
    const { store, provisioner } = newProvisioner();
    const repeated: Seed = {
      users: [{ id: 'alice', tokens: [SHARED], token_sha256s: [hashSecret(SHARED)] }],
    };
    await applySeed(provisioner, repeated);
    await expect(store.identities.findUserIdByTokenHash(hashSecret(SHARED))).resolves.toBe('alice');
  });

  it('refuses to issue a token that another user holds in the store; its holder keeps it', async () => {
    const { store, provisioner } = newProvisioner();
    await applySeed(provisioner, { users: [{ id: 'alice', tokens: [SHARED] }, { id: 'bob' }] });
    await expect(provisioner.issueToken('bob', { token: SHARED })).rejects.toThrow(
      'a token of user "bob" is already in use by another user',
    );
    await expect(provisioner.issueToken('bob', { tokenHash: hashSecret(SHARED) })).rejects.toThrow(
      ProvisioningError,
    );
    // A seed applied again at the next start: the holder's own token is no conflict.
    await expect(provisioner.issueToken('alice', { token: SHARED })).resolves.toBeDefined();
    // A seed file naming bob for a token alice holds in the store.
    await expect(
      applySeed(provisioner, { users: [{ id: 'bob', tokens: [SHARED] }] }),
    ).rejects.toThrow(/already in use by another user/);
    await expect(store.identities.findUserIdByTokenHash(hashSecret(SHARED))).resolves.toBe('alice');
  });

  it('refuses an admin command on a seed file that gives one token to two users', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    const text = JSON.stringify({
      users: [
        { id: 'alice', tokens: [SHARED] },
        { id: 'bob', tokens: [SHARED] },
      ],
    });
    await writeFile(seedFile, text);
    const config = loadConfig({ DATA_DIR: ':memory:', LOG_LEVEL: 'silent' });
    await expect(openAdminTarget(config, seedFile)).rejects.toThrow(ProvisioningError);
    await expect(openAdminTarget(config, seedFile)).rejects.toThrow(
      /the same token as user "alice"/,
    );
  });
});
