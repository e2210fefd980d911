import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, silentLogger } from '../../core';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { lockSeedFile } from '../../core/provisioning/seed-file-lock';
import { createRuntime, loadConfig } from '../../core/runtime';
import { adminRefused, adminSucceeds, shownOnce } from '../support/admin-cli';
import { formatVersionIn } from '../support/raw-lmdb';
import { adminBesideServer, createWithAlias } from '../support/admin-beside-server';

jest.setTimeout(120_000);

const { dirs, buildDir, startServer } = adminBesideServer('admin-lmdb');

/** `npm run admin -- <args>` as the compiled CLI, with only the environment given: its output. */
const admin = (env: Record<string, string>, ...args: string[]) =>
  adminSucceeds(buildDir(), env, ...args);

/** The same, refused with exit status 2: what it said on standard error. */
const adminFails = async (env: Record<string, string>, ...args: string[]) =>
  (await adminRefused(buildDir(), env, ...args)).stderr;

/** An organization, its group "1", a member and a token; `target`: `--seed-file PATH` or none. */
async function provision(
  env: Record<string, string>,
  id: string,
  domain: string,
  ...target: string[]
) {
  const organizationKey = shownOnce(
    await admin(env, 'org', 'create', '--id', id, '--domain', domain, ...target),
  );
  await admin(env, 'group', 'create', '--org', id, '--api-id', '1', ...target);
  await admin(env, 'user', 'create', '--id', `${id}-user`, '--org', id, ...target);
  const token = shownOnce(await admin(env, 'token', 'create', '--user', `${id}-user`, ...target));
  return { organizationKey, token };
}

describe('admin CLI on the LMDB store (DATA_DIR)', () => {
  it('provisions into DATA_DIR while the server runs; the server accepts the new credentials', async () => {
    const dataDir = join(await dirs.make(), 'data');
    // The CLI is another process: the server sees its changes within IDENTITY_CACHE_TTL_SECONDS.
    const service = await startServer(dataDir);
    const env = { DATA_DIR: dataDir };
    const beta = await provision(env, 'beta', 'beta.link');
    expect(beta.token).toMatch(/^slpat_/);
    const answer = await createWithAlias(
      service.httpPort,
      beta.token,
      beta.organizationKey,
      'from-cli',
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ data: { domain: 'beta.link' } });

    // Deactivation through the CLI is seen by the running server within the cache TTL (code 13).
    await admin(env, 'org', 'deactivate', '--id', 'beta');
    let refused = await createWithAlias(
      service.httpPort,
      beta.token,
      beta.organizationKey,
      'late-0',
    );
    for (
      let i = 1;
      i < 50 && JSON.parse(refused.text).code !== ErrorCode.ORGANIZATION_INACTIVE;
      i += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      refused = await createWithAlias(
        service.httpPort,
        beta.token,
        beta.organizationKey,
        `late-${i}`,
      );
    }
    expect(JSON.parse(refused.text)).toMatchObject({ code: ErrorCode.ORGANIZATION_INACTIVE });

    // A backup taken while the server runs opens as a store holding the link.
    const target = join(await dirs.make(), 'copy');
    expect(await admin(env, 'backup', target)).toContain(`written to ${target}`);
    service.child.kill('SIGTERM');
    await service.exited;
    const copy = await createLmdbStore({ dataDir: target });
    try {
      await expect(copy.links.findByAlias('beta.link', 'from-cli')).resolves.toMatchObject({
        url: 'https://example.com/from-cli',
      });
      await expect(copy.identities.findOrganizationById('demo')).resolves.not.toBeNull();
    } finally {
      await copy.close();
    }
  });

  it('refuses a backup of a directory holding no store, and of the in-memory store', async () => {
    const empty = join(await dirs.make(), 'none');
    expect(await adminFails({ DATA_DIR: empty }, 'backup', join(empty, 'copy'))).toContain(
      'holds no LMDB store',
    );
    expect(await adminFails({ DATA_DIR: ':memory:' }, 'backup', empty)).toContain(
      'holds nothing to back up',
    );
    expect(await adminFails({ DATA_DIR: ':memory:' }, 'user', 'create', '--id', 'x')).toContain(
      'keeps nothing',
    );
  });

  it('exits with status 2 and the usage for a command line it cannot run, 0 for --help', async () => {
    const env = { DATA_DIR: join(await dirs.make(), 'data') };
    expect(await adminFails(env)).toContain('no command given');
    expect(await adminFails(env, 'frobnicate')).toContain('unknown command "frobnicate"');
    expect(await adminFails(env, 'org', 'explode')).toContain('unknown command "org explode"');
    expect(
      await adminFails(env, 'org', 'create', 'extra', '--id', 'x', '--domain', 'x.link'),
    ).toContain('unexpected argument "extra"');
    expect(await adminFails(env, 'token', 'create', '--nope')).toContain("'--nope'");
    expect(await adminFails(env, 'backup')).toContain('backup needs a target directory');
    for (const output of [await adminFails(env, 'frobnicate'), await admin(env, '--help')]) {
      expect(output).toContain('usage: npm run admin');
    }
  });

  it('refuses a link domain longer than a host name can be, leaving the store usable', async () => {
    const env = { DATA_DIR: join(await dirs.make(), 'data') };
    await admin(env, 'org', 'create', '--id', 'first', '--domain', 'first.link');
    const tooLong = Array.from({ length: 40 }, () => 'a'.repeat(60)).join('.');
    expect(await adminFails(env, 'org', 'create', '--id', 'long', '--domain', tooLong)).toContain(
      'invalid link domain',
    );
    const longest = `${Array.from({ length: 4 }, () => 'b'.repeat(62)).join('.')}.b`;
    expect(longest).toHaveLength(253);
    expect(await admin(env, 'org', 'create', '--id', 'longest', '--domain', longest)).toContain(
      `organization longest (link domain https://${longest})`,
    );
    // The store still opens: the refused organization left no record behind.
    expect(await admin(env, 'group', 'create', '--org', 'first', '--api-id', '1')).toContain(
      'group 1 in organization first',
    );
  });

  it('refuses an id longer than 255 characters, writing nothing; 255 work, memberships included', async () => {
    const env = { DATA_DIR: join(await dirs.make(), 'data') };
    // Three bytes of UTF-8 each: the longest keys an id can make.
    const longest = (c: string) => c.repeat(255);
    const tooLong = (c: string) => c.repeat(256);
    await admin(env, 'org', 'create', '--id', longest('あ'), '--domain', 'longest.link');
    for (const args of [
      ['org', 'create', '--id', tooLong('o'), '--domain', 'too-long.link'],
      ['group', 'create', '--org', longest('あ'), '--api-id', tooLong('g')],
      ['user', 'create', '--id', tooLong('u'), '--org', longest('あ')],
    ]) {
      expect(await adminFails(env, ...args)).toContain('id must have at most 255 characters');
    }
    await admin(env, 'group', 'create', '--org', longest('あ'), '--api-id', longest('い'));
    await admin(env, 'user', 'create', '--id', longest('う'), '--org', longest('あ'));
    expect(await admin(env, 'token', 'create', '--user', longest('う'))).toContain('(shown once)');
    // Nothing of the refused commands was written: not even a user without its memberships.
    const store = await createLmdbStore({ dataDir: env.DATA_DIR });
    try {
      await expect(store.identities.findUserById(tooLong('u'))).resolves.toBeNull();
      await expect(store.identities.findOrganizationById(tooLong('o'))).resolves.toBeNull();
      await expect(store.identities.isMember(longest('う'), longest('あ'))).resolves.toBe(true);
    } finally {
      await store.close();
    }
  });

  it('creates no store in a DATA_DIR holding none when the command fails (a mistyped DATA_DIR)', async () => {
    const base = await dirs.make();
    const missing = join(base, 'dat');
    const stderr = await adminFails({ DATA_DIR: missing }, 'token', 'create', '--user', 'alice');
    await adminFails({ DATA_DIR: missing }, 'user', 'create', '--id', 'bob', '--org', 'acme');
    expect(existsSync(missing)).toBe(false);
    expect(stderr).toContain(`no user "alice" (DATA_DIR ${missing} holds no store yet`);
    // A mistake of the command line is not blamed on the directory.
    const usage = await adminFails({ DATA_DIR: missing }, 'org', 'create', '--id', 'x');
    expect(usage).toContain('--domain is required');
    expect(usage).not.toContain('holds no store yet');
    expect(existsSync(missing)).toBe(false);
    await mkdir(join(base, 'empty'));
    await adminFails(
      { DATA_DIR: join(base, 'empty') },
      'group',
      'create',
      '--org',
      'acme',
      '--api-id',
      '1',
    );
    expect(await readdir(join(base, 'empty'))).toEqual([]);
    // A command that succeeds on an empty store still creates it.
    expect(
      await admin({ DATA_DIR: missing }, 'org', 'create', '--id', 'acme', '--domain', 'acme.link'),
    ).toContain('organization acme');
    expect(existsSync(join(missing, 'data.mdb'))).toBe(true);
  });

  it('says which folder is missing when the seed file cannot be written there', async () => {
    const missing = join(await dirs.make(), 'no-such-folder');
    const stderr = await adminFails(
      { DATA_DIR: ':memory:' },
      ...['org', 'create', '--id', 'x', '--domain', 'x.link'],
      ...['--seed-file', join(missing, 'seed.json')],
    );
    expect(stderr).toContain(`the seed file's folder ${missing} does not exist`);
    expect(stderr).not.toMatch(/ENOENT|seed\.json\.\d/);
  });

  it('leaves an older store’s format as it is: an older server may still run on it', async () => {
    const dataDir = join(await dirs.make(), 'data');
    await (await createLmdbStore({ dataDir })).close();
    await formatVersionIn(dataDir, 1);
    await admin({ DATA_DIR: dataDir }, 'org', 'create', '--id', 'older', '--domain', 'older.link');
    const copy = join(await dirs.make(), 'copy');
    await admin({ DATA_DIR: dataDir }, 'backup', copy);
    expect(await formatVersionIn(dataDir)).toBe(1);
    // A backup taken before an upgrade can go back with the older release.
    expect(await formatVersionIn(copy)).toBe(1);
  });

  it('writes a seed file that the server applies to LMDB at every start, without a demo', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    const creds = await provision(
      { DATA_DIR: ':memory:' },
      ...['gamma', 'gamma.link', '--seed-file', seedFile],
    );
    const config = loadConfig({
      DATA_DIR: join(await dirs.make(), 'data'),
      SHORTLINK_SEED_FILE: seedFile,
      LOG_LEVEL: 'silent',
    });
    for (const alias of ['first-start', 'second-start']) {
      const runtime = await createRuntime(config, silentLogger);
      try {
        expect(runtime.wantsDemo).toBe(false);
        const link = await runtime.core
          .createCaller({ authorization: `Bearer ${creds.token}` })
          .links.create({
            organization_key: creds.organizationKey,
            url_group_id: '1',
            url: 'https://example.com/seeded',
            alias,
          });
        expect(link.domain).toBe('gamma.link');
      } finally {
        await runtime.close();
      }
    }
  });
});

describe('admin CLI listings (org list, user list)', () => {
  const jsonLines = (output: string): unknown[] =>
    output
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as unknown);

  it('lists what DATA_DIR holds, one JSON object per line, with no secret or hash', async () => {
    const env = { DATA_DIR: join(await dirs.make(), 'data') };
    const beta = await provision(env, 'beta', 'beta.link');
    await provision(env, 'alpha', 'alpha.link');
    await admin(env, 'group', 'create', '--org', 'beta', '--api-id', '0', '--name', 'Zero');
    await admin(env, 'member', 'add', '--user', 'beta-user', '--org', 'alpha');
    await admin(env, 'token', 'create', '--user', 'beta-user');
    await admin(env, 'org', 'deactivate', '--id', 'alpha');

    const organizations = await admin(env, 'org', 'list');
    expect(jsonLines(organizations)).toEqual([
      {
        id: 'alpha',
        name: 'alpha',
        linkDomain: 'https://alpha.link',
        active: false,
        groups: [{ apiId: '1', name: '1' }],
      },
      {
        id: 'beta',
        name: 'beta',
        linkDomain: 'https://beta.link',
        active: true,
        groups: [
          { apiId: '0', name: 'Zero' },
          { apiId: '1', name: '1' },
        ],
      },
    ]);
    const users = await admin(env, 'user', 'list');
    expect(jsonLines(users)).toEqual([
      { id: 'alpha-user', name: 'alpha-user', organizations: ['alpha'], tokens: 1 },
      { id: 'beta-user', name: 'beta-user', organizations: ['alpha', 'beta'], tokens: 2 },
    ]);
    for (const output of [organizations, users]) {
      expect(output).not.toContain(beta.organizationKey);
      expect(output).not.toContain(beta.token);
      expect(output).not.toMatch(/[0-9a-f]{64}/);
    }
  });

  it('writes nothing to the store it lists, and prints nothing when it holds no one', async () => {
    const dataDir = join(await dirs.make(), 'data');
    await (await createLmdbStore({ dataDir })).close();
    const dataFile = join(dataDir, 'data.mdb');
    const before = await readFile(dataFile);
    for (const command of [
      ['org', 'list'],
      ['user', 'list'],
    ]) {
      await expect(admin({ DATA_DIR: dataDir }, ...command)).resolves.toBe('');
    }
    await expect(readFile(dataFile)).resolves.toEqual(before);
  });

  it('creates nothing on a DATA_DIR that holds no store, and says so (exit 2)', async () => {
    const dataDir = join(await dirs.make(), 'mistyped');
    for (const command of [
      ['org', 'list'],
      ['user', 'list'],
    ]) {
      const stderr = await adminFails({ DATA_DIR: dataDir }, ...command);
      expect(stderr).toContain(`DATA_DIR ${dataDir} holds no store: nothing to list`);
      expect(existsSync(dataDir)).toBe(false);
    }
  });

  it('reads a seed file without rewriting it; a missing one is refused', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    await provision({ DATA_DIR: ':memory:' }, 'gamma', 'gamma.link', '--seed-file', seedFile);
    const before = await readFile(seedFile, 'utf8');
    const modified = (await stat(seedFile)).mtimeMs;
    const listed = await admin({ DATA_DIR: ':memory:' }, 'org', 'list', '--seed-file', seedFile);
    expect(jsonLines(listed)).toMatchObject([{ id: 'gamma', linkDomain: 'https://gamma.link' }]);
    expect(listed).not.toContain('seed file');
    await expect(readFile(seedFile, 'utf8')).resolves.toBe(before);
    expect((await stat(seedFile)).mtimeMs).toBe(modified);
    // It reads without the seed file's lock: another command holding it does not hold it up.
    const lock = await lockSeedFile(seedFile);
    try {
      await expect(
        admin({ DATA_DIR: ':memory:' }, 'user', 'list', '--seed-file', seedFile),
      ).resolves.toContain('"id":"gamma-user"');
    } finally {
      await lock.release();
    }
    const missing = join(await dirs.make(), 'none.json');
    const stderr = await adminFails(
      { DATA_DIR: ':memory:' },
      'user',
      'list',
      '--seed-file',
      missing,
    );
    expect(stderr).toContain(`the seed file ${missing} does not exist: nothing to list`);
    expect(existsSync(missing)).toBe(false);
  });

  it('takes no option but --seed-file', async () => {
    const env = { DATA_DIR: join(await dirs.make(), 'data') };
    await expect(adminFails(env, 'org', 'list', '--id', 'acme')).resolves.toContain(
      '"org list" takes no --id',
    );
  });
});
