import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { runAdmin } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
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
