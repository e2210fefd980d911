import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, hashSecret, type ErrorReason } from '../../core';
import { createLmdbStore } from '../../core/adapters/lmdb';
import {
  adminSucceeds,
  runAdmin,
  runAdminWithInput,
  shownOnce,
  type AdminRun,
} from '../support/admin-cli';
import { adminBesideServer, createWithAlias } from '../support/admin-beside-server';

jest.setTimeout(120_000);

const { dirs, buildDir, startServer } = adminBesideServer('admin-revocation');

const admin = (env: Record<string, string>, ...args: string[]) =>
  adminSucceeds(buildDir(), env, ...args);

const revoke = (env: Record<string, string>, input: string, ...args: string[]) =>
  runAdminWithInput(buildDir(), env, input, 'token', 'revoke', ...args);

/** Exit status 2, nothing on standard output; the reason on standard error. */
function refused(run: AdminRun): string {
  expect(run).toMatchObject({ code: 2, stdout: '' });
  return run.stderr;
}

/**
 * An organization, group "1", a member user and two tokens of it, through the CLI; `target`:
 * `--seed-file PATH`, or none (the store).
 */
async function provision(env: Record<string, string>, ...target: string[]) {
  const organizationKey = shownOnce(
    await admin(env, 'org', 'create', '--id', 'acme', '--domain', 'acme.link', ...target),
  );
  await admin(env, 'group', 'create', '--org', 'acme', '--api-id', '1', ...target);
  await admin(env, 'user', 'create', '--id', 'alice', '--org', 'acme', ...target);
  const token = shownOnce(await admin(env, 'token', 'create', '--user', 'alice', ...target));
  const second = shownOnce(await admin(env, 'token', 'create', '--user', 'alice', ...target));
  return { organizationKey, token, second };
}

/** What the LMDB store in `dataDir` answers for each token: its user or null. */
async function usersOf(dataDir: string, ...tokens: string[]): Promise<Array<string | null>> {
  const store = await createLmdbStore({ dataDir });
  try {
    return await Promise.all(
      tokens.map((token) => store.identities.findUserIdByTokenHash(hashSecret(token))),
    );
  } finally {
    await store.close();
  }
}

/**
 * The code of a create, asked again every 200 ms until it is `reason`'s (the cache TTL) or 10 s.
 */
async function codeOnceSettled(
  port: number,
  token: string,
  organizationKey: string,
  reason: ErrorReason,
): Promise<unknown> {
  const code = ErrorCode[reason];
  let answer = await createWithAlias(port, token, organizationKey, `late-${code}-0`);
  for (let i = 1; i < 50 && JSON.parse(answer.text).code !== code; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer = await createWithAlias(port, token, organizationKey, `late-${code}-${i}`);
  }
  return JSON.parse(answer.text).code;
}

describe('admin CLI: token revoke', () => {
  it('revokes a token read from standard input in a running server’s LMDB store: code 11', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const service = await startServer(dataDir);
    const env = { DATA_DIR: dataDir };
    const { organizationKey, token, second } = await provision(env);
    const port = service.httpPort;
    expect((await createWithAlias(port, token, organizationKey, 'before')).status).toBe(200);

    const run = await revoke(env, `${token}\n`);
    expect(run).toMatchObject({ code: 0, stdout: 'revoked a token of user alice\n', stderr: '' });
    // Within IDENTITY_CACHE_TTL_SECONDS (1 s here) the server answers 11 for it.
    await expect(codeOnceSettled(port, token, organizationKey, 'TOKEN_UNKNOWN')).resolves.toBe(
      ErrorCode.TOKEN_UNKNOWN,
    );
    const refusedCreate = await createWithAlias(port, token, organizationKey, 'after');
    expect(refusedCreate.status).toBe(401);
    expect(JSON.parse(refusedCreate.text)).toMatchObject({ code: ErrorCode.TOKEN_UNKNOWN });
    // The user's other token still works; --user --all revokes it too.
    expect((await createWithAlias(port, second, organizationKey, 'second')).status).toBe(200);
    expect(await admin(env, 'token', 'revoke', '--user', 'alice', '--all')).toBe(
      'revoked 1 token of user alice\n',
    );
    await expect(codeOnceSettled(port, second, organizationKey, 'TOKEN_UNKNOWN')).resolves.toBe(
      ErrorCode.TOKEN_UNKNOWN,
    );
    service.child.kill('SIGTERM');
    await service.exited;
  });

  it('refuses with exit status 2 and writes nothing: unknown token, empty input, bad options', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const env = { DATA_DIR: dataDir };
    const { token, second } = await provision(env);
    const unknown = `slpat_${'x'.repeat(40)}`;
    expect(refused(await revoke(env, `${unknown}\n`))).toContain(
      'no such token: it is unknown or revoked already; nothing was changed',
    );
    expect(refused(await revoke(env, ''))).toContain('no token on standard input');
    expect(refused(await revoke(env, '\n  \n'))).toContain('no token on standard input');
    expect(refused(await revoke(env, `${token}\n${second}\n`))).toContain('more than one word');
    expect(refused(await revoke(env, 'x'.repeat(5000)))).toContain('more than 4096 bytes');
    expect(refused(await revoke(env, '', '--user', 'nobody', '--all'))).toContain(
      'no user "nobody"',
    );
    // --user alone does not revoke everything: a typo gets the usage.
    for (const args of [['--user', 'alice'], ['--all'], [token]]) {
      const stderr = refused(await revoke(env, token, ...args));
      expect(stderr).toContain('usage: npm run admin');
      expect(stderr).toMatch(/--user needs --all|--all needs --user|takes no argument/);
      expect(stderr).not.toContain(token);
    }
    await expect(usersOf(dataDir, token, second)).resolves.toEqual(['alice', 'alice']);
  });

  it('never repeats the token it read, revoked or refused', async () => {
    const env = { DATA_DIR: join(await dirs.make(), 'data') };
    const { token } = await provision(env);
    const done = await revoke(env, token);
    const again = await revoke(env, token);
    expect(done.code).toBe(0);
    expect(refused(again)).toContain('revoked already');
    for (const run of [done, again]) expect(run.stdout + run.stderr).not.toContain(token);
  });

  it('creates no store in a DATA_DIR that holds none (a mistyped DATA_DIR)', async () => {
    const missing = join(await dirs.make(), 'dat');
    expect(refused(await revoke({ DATA_DIR: missing }, `slpat_${'y'.repeat(40)}`))).toContain(
      `(DATA_DIR ${missing} holds no store yet; nothing was created)`,
    );
    expect(refused(await revoke({ DATA_DIR: missing }, '', '--user', 'a', '--all'))).toContain(
      'no user "a"',
    );
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses a seed file named by --seed-file, leaving it as it was', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    const env = { DATA_DIR: ':memory:' };
    const { token } = await provision(env, '--seed-file', seedFile);
    const before = await readFile(seedFile, 'utf8');
    expect(before).toContain(hashSecret(token));
    for (const args of [
      ['--seed-file', seedFile],
      ['--user', 'alice', '--all', '--seed-file', seedFile],
    ]) {
      const stderr = refused(await revoke(env, token, ...args));
      expect(stderr).toContain('token revoke works on the store, not on a seed file');
      expect(stderr).toContain('applied as an upsert at every start');
      expect(stderr).not.toContain(token);
    }
    expect(await readFile(seedFile, 'utf8')).toBe(before);
  });
});

describe('admin CLI: org rotate-key', () => {
  it('prints a new key once; in a running server the old key becomes code 12 and the new one works', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const rotating = await startServer(dataDir);
    try {
      const env = { DATA_DIR: dataDir };
      const { organizationKey, token } = await provision(env);
      const port = rotating.httpPort;
      expect((await createWithAlias(port, token, organizationKey, 'before-rotation')).status).toBe(
        200,
      );

      const output = await admin(env, 'org', 'rotate-key', '--id', 'acme');
      expect(output).toContain('organization acme: a new secret key');
      const newKey = shownOnce(output);
      // A seed file listing the organization would restore the old key: the output says what to set.
      expect(output).toContain('the old key no longer works');
      expect(output).toContain(`set its secret_key_sha256 there to ${hashSecret(newKey)}`);
      expect(newKey).toMatch(/^slorg_/);
      expect(newKey).not.toBe(organizationKey);

      expect(await codeOnceSettled(port, token, organizationKey, 'ORGANIZATION_KEY_INVALID')).toBe(
        ErrorCode.ORGANIZATION_KEY_INVALID,
      );
      const created = await createWithAlias(port, token, newKey, 'after-rotation');
      expect(created.status).toBe(200);
      expect(JSON.parse(created.text)).toMatchObject({ data: { domain: 'acme.link' } });
      // The key is printed once: the log holds neither key.
      expect(rotating.output()).not.toContain(newKey);
      expect(rotating.output()).not.toContain(organizationKey);
    } finally {
      rotating.child.kill('SIGTERM');
      await rotating.exited;
    }
  });

  it('on a seed file, writes the new key’s hash there and says the server takes it at its next start', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    const env = { DATA_DIR: ':memory:' };
    const oldKey = shownOnce(
      await admin(
        env,
        'org',
        'create',
        '--id',
        'acme',
        '--domain',
        'acme.link',
        '--seed-file',
        seedFile,
      ),
    );
    const output = await admin(env, 'org', 'rotate-key', '--id', 'acme', '--seed-file', seedFile);
    const newKey = shownOnce(output);
    expect(output).toContain(`the server takes the new key when it next applies ${seedFile}`);
    const seedText = await readFile(seedFile, 'utf8');
    expect(seedText).toContain(hashSecret(newKey));
    expect(seedText).not.toContain(hashSecret(oldKey));
    expect(seedText).not.toContain(newKey);
  });

  it('refuses an unknown organization with exit status 2, writing nothing', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const env = { DATA_DIR: dataDir };
    const { organizationKey } = await provision(env);
    const reason = refused(await runAdmin(buildDir(), env, 'org', 'rotate-key', '--id', 'nope'));
    expect(reason).toContain('nope');
    const store = await createLmdbStore({ dataDir });
    try {
      await expect(
        store.identities.findOrganizationByKeyHash(hashSecret(organizationKey)),
      ).resolves.toMatchObject({ id: 'acme' });
    } finally {
      await store.close();
    }
  });
});
