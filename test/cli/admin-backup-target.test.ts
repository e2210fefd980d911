import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { runAdmin } from '../support/admin-cli';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';
import { openRawDatabases } from '../support/raw-lmdb';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

const dirs = tempDirs('backup-target');
let build: TempBuild;
let env: Record<string, string>;

beforeAll(async () => {
  build = await compileToTemp();
  const dataDir = join(await dirs.make(), 'data');
  await (await createLmdbStore({ dataDir })).close();
  env = { DATA_DIR: dataDir };
});

afterAll(async () => {
  await build?.remove();
  await dirs.removeAll();
});

describe('admin backup refuses a target the person can correct, with exit status 2 and the true reason', () => {
  it('a folder that holds something', async () => {
    const target = await dirs.make();
    await writeFile(join(target, 'kept.txt'), 'not a backup');
    const run = await runAdmin(build.dir, env, 'backup', target);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the backup target ${target} exists and is not empty`);
  });

  it('a folder inside the data directory', async () => {
    const target = join(env.DATA_DIR as string, 'backups', 'today');
    const run = await runAdmin(build.dir, env, 'backup', target);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `the backup target ${target} is inside the data directory ${env.DATA_DIR as string}`,
    );
    expect(existsSync(join(env.DATA_DIR as string, 'backups'))).toBe(false);
  });

  it('a folder inside the data directory whose name begins with two dots, or reached by a symlink', async () => {
    const dataDir = env.DATA_DIR as string;
    const dotted = join(dataDir, '..backup');
    const run = await runAdmin(build.dir, env, 'backup', dotted);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`is inside the data directory ${dataDir}`);
    const link = join(await dirs.make(), 'to-data');
    await symlink(dataDir, link);
    const throughLink = await runAdmin(build.dir, env, 'backup', join(link, 'today'));
    expect(throughLink.code).toBe(2);
    expect(throughLink.stderr).toContain(`is inside the data directory ${dataDir}`);
    expect(existsSync(dotted)).toBe(false);
    expect(existsSync(join(dataDir, 'today'))).toBe(false);
  });

  it('a folder an interrupted backup left, named in the refusal', async () => {
    const target = await dirs.make();
    await mkdir(join(target, '.backup-in-progress'));
    const run = await runAdmin(build.dir, env, 'backup', target);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `the backup target ${target} holds .backup-in-progress, left by a backup that did not finish: delete that folder and try again`,
    );
  });

  it('a path through a file', async () => {
    const file = join(await dirs.make(), 'afile');
    await writeFile(file, 'a file');
    const run = await runAdmin(build.dir, env, 'backup', join(file, 'sub'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file} is a file, not a folder`);
    expect(run.stderr).not.toContain('not empty');
  });

  it('a file', async () => {
    const file = join(await dirs.make(), 'afile');
    await writeFile(file, 'a file');
    const run = await runAdmin(build.dir, env, 'backup', file);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file} is a file, not a folder`);
    expect(run.stderr).not.toContain('not empty');
  });

  it('a folder that cannot be created', async () => {
    if (!existsSync('/proc/self')) return; // not Linux: no procfs to try
    const target = '/proc/no-such-process/copy';
    const run = await runAdmin(build.dir, env, 'backup', target);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the backup target ${target} cannot be created: ENOENT`);
  });

  it('still writes into a missing or empty folder', async () => {
    const empty = join(await dirs.make(), 'empty');
    await mkdir(empty);
    for (const target of [empty, join(await dirs.make(), 'missing', 'copy')]) {
      const run = await runAdmin(build.dir, env, 'backup', target);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`written to ${target}`);
    }
  });
});

describe('admin backup interrupted', () => {
  it('never leaves a partial data.mdb in the target, which would pass for a backup', async () => {
    // A store big enough that its copy takes a while (about 128 MB).
    const dataDir = join(await dirs.make(), 'big');
    await (await createLmdbStore({ dataDir })).close();
    const { root, dbs } = openRawDatabases(dataDir);
    const filler = 'x'.repeat(8000);
    for (let batch = 0; batch < 8; batch += 1) {
      await root.transaction(() => {
        for (let i = 0; i < 2000; i += 1) void dbs.meta.put(`filler-${batch}-${i}`, filler + i);
      });
    }
    await root.close();

    const target = join(await dirs.make(), 'copy');
    const child = spawn(
      process.execPath,
      [join(build.dir, 'core', 'cli', 'admin.js'), 'backup', target],
      {
        env: {
          PATH: process.env.PATH ?? '',
          NODE_PATH: join(ROOT, 'node_modules'),
          DATA_DIR: dataDir,
        },
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Killed as soon as the copy has begun, wherever it writes it.
    const begun = () =>
      existsSync(join(target, 'data.mdb')) ||
      existsSync(join(target, '.backup-in-progress', 'data.mdb'));
    for (let waited = 0; !begun() && waited < 30_000; waited += 2) await sleep(2);
    child.kill('SIGKILL');
    await exited;

    expect(existsSync(join(target, 'data.mdb'))).toBe(false);
    // It was cut short: what it copied stayed in the folder that says so.
    expect(existsSync(join(target, '.backup-in-progress', 'data.mdb'))).toBe(true);
  });
});
