import { mkdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { createCore, createMemoryStore, hashSecret, Provisioner, systemClock } from '../../core';
import { loadSeedFile } from '../../core/provisioning/seed-file';
import {
  lockSeedFile,
  SEED_FILE_LOCK_STALE_MS,
  SEED_FILE_LOCK_WAIT_MS,
  SeedFileLockError,
} from '../../core/provisioning/seed-file-lock';
import { runAdmin, shownOnce } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

const PARALLEL_COMMANDS = 8;
const dirs = tempDirs('seed-lock');
let build: TempBuild;

beforeAll(async () => {
  build = await compileToTemp();
});

afterAll(async () => {
  await build?.remove();
  await dirs.removeAll();
});

describe('admin commands writing one seed file at the same time', () => {
  it('keeps every printed token: each is in the file and authenticates', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    const env = { DATA_DIR: ':memory:' };
    const onSeedFile = (...args: string[]) =>
      runAdmin(build.dir, env, ...args, '--seed-file', seedFile);
    const org = await onSeedFile('org', 'create', '--id', 'acme', '--domain', 'acme.link');
    expect(org.code).toBe(0);
    await onSeedFile('group', 'create', '--org', 'acme', '--api-id', '1');
    await onSeedFile('user', 'create', '--id', 'alice', '--org', 'acme');

    const runs = await Promise.all(
      Array.from({ length: PARALLEL_COMMANDS }, () =>
        onSeedFile('token', 'create', '--user', 'alice'),
      ),
    );
    for (const run of runs) expect(run).toMatchObject({ code: 0, stderr: '' });
    const tokens = runs.map((run) => shownOnce(run.stdout));
    expect(new Set(tokens).size).toBe(PARALLEL_COMMANDS);

    const seed = JSON.parse(await readFile(seedFile, 'utf8')) as {
      users: Array<{ id: string; token_sha256s: string[] }>;
    };
    const saved = seed.users.find((user) => user.id === 'alice')?.token_sha256s ?? [];
    expect(saved.sort()).toEqual(tokens.map(hashSecret).sort());

    const store = createMemoryStore();
    await loadSeedFile(new Provisioner(store, systemClock), seedFile);
    const core = createCore({ store });
    for (const [i, token] of tokens.entries()) {
      const link = await core.createCaller({ authorization: `Bearer ${token}` }).links.create({
        organization_key: shownOnce(org.stdout),
        url_group_id: '1',
        url: `https://example.com/${i}`,
      });
      expect(link.domain).toBe('acme.link');
    }
  });

  it('gives up on a lock another command keeps, within a bounded time, exit status 1', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    const held = await lockSeedFile(seedFile);
    try {
      const started = Date.now();
      await expect(lockSeedFile(seedFile, 200)).rejects.toThrow(SeedFileLockError);
      expect(Date.now() - started).toBeLessThan(2_000);

      const env = { DATA_DIR: ':memory:' };
      const run = await runAdmin(
        build.dir,
        env,
        ...['user', 'create', '--id', 'bob', '--seed-file', seedFile],
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`the seed file ${seedFile} is held by another admin command`);
      expect(Date.now() - started).toBeLessThan(SEED_FILE_LOCK_WAIT_MS + 10_000);
    } finally {
      await held.release();
    }
  });

  it('takes over the lock of a command that died holding it', async () => {
    const seedFile = join(await dirs.make(), 'seed.json');
    await mkdir(`${seedFile}.lock`);
    const then = new Date(Date.now() - 2 * SEED_FILE_LOCK_STALE_MS);
    await utimes(`${seedFile}.lock`, then, then);
    const env = { DATA_DIR: ':memory:' };
    const run = await runAdmin(
      build.dir,
      env,
      ...['user', 'create', '--id', 'bob', '--seed-file', seedFile],
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    await expect(readFile(seedFile, 'utf8')).resolves.toContain('"bob"');
  });
});
