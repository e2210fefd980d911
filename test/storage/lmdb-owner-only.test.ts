import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createLmdbStore, DataDirError } from '../../core/adapters/lmdb';
import { BackupTargetError } from '../../core/adapters/lmdb/backup-target';
import { runBackup } from '../../core/cli/backup';
import { openAdminReader, openAdminTarget } from '../../core/cli/admin-store';
import { loadConfig } from '../../core/runtime';
import { claimDataDir } from '../../core/runtime/data-dir-claim';
import { silentLogger } from '../../core';
import { runServiceUntilExit } from '../support/child-service';
import { runAdmin } from '../support/admin-cli';
import { dependenciesFor, NOBODY, nodeUnreachableBy } from '../support/another-user';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { tempDirs } from '../support/temp-dirs';
import { insertNew, newLink } from './fixtures';

jest.setTimeout(120_000);

const dirs = tempDirs('owner-only');
afterAll(() => dirs.removeAll());
afterEach(() => jest.restoreAllMocks());

const runsAsRoot = process.geteuid?.() === 0;

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** A data directory holding a store with one link, closed. */
async function storeDir(): Promise<string> {
  const dir = join(await dirs.make(), 'data');
  const store = await createLmdbStore({ dataDir: dir });
  await insertNew(store.links, newLink({ alias: 'kept' }));
  await store.close();
  return dir;
}

/**
 * Makes `path` another user's, as far as this process can tell: given to `nobody` when the test
 * runs as root (as it does here and in CI); otherwise this process is made to see itself as
 * another user, since only root can give a file away. Answers the uid the path then has.
 */
async function ownedByAnother(path: string): Promise<number> {
  if (runsAsRoot) {
    await chown(path, NOBODY, NOBODY);
    return NOBODY;
  }
  const { uid } = await stat(path);
  jest.spyOn(process, 'geteuid').mockReturnValue(uid + 1);
  return uid;
}

/** The built admin CLI run as the user `uid` (root only): its exit status and standard error. */
function runAdminAs(uid: number, buildDir: string, env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(buildDir, 'core', 'cli', 'admin.js'), ...args],
      {
        uid,
        gid: uid,
        cwd: '/',
        env: { PATH: process.env.PATH ?? '', ...env },
      },
      (error, _stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
      },
    );
  });
}

describe('LMDB store: files only their owner may read or change', () => {
  it('makes data.mdb and lock.mdb 0600 in a 0700 directory', async () => {
    const dir = await storeDir();
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(join(dir, 'data.mdb'))).toBe(0o600);
    expect(await modeOf(join(dir, 'lock.mdb'))).toBe(0o600);
  });

  it('makes private the files an older release left readable (0644) when it opens them to write, not to read', async () => {
    const dir = await storeDir();
    for (const file of ['data.mdb', 'lock.mdb']) await chmod(join(dir, file), 0o644);
    const reader = await createLmdbStore({ dataDir: dir, readOnly: true });
    await expect(reader.links.findByAlias('acme.link', 'kept')).resolves.toMatchObject({ id: 1 });
    await reader.close();
    expect(await modeOf(join(dir, 'data.mdb'))).toBe(0o644);
    const writer = await createLmdbStore({ dataDir: dir });
    await writer.close();
    expect(await modeOf(join(dir, 'data.mdb'))).toBe(0o600);
    expect(await modeOf(join(dir, 'lock.mdb'))).toBe(0o600);
  });

  it('accepts a directory others may only read and enter (0750, 0755)', async () => {
    for (const mode of [0o750, 0o755]) {
      const dir = await storeDir();
      await chmod(dir, mode);
      await (await createLmdbStore({ dataDir: dir })).close();
      await (await createLmdbStore({ dataDir: dir, readOnly: true })).close();
      expect(await modeOf(dir)).toBe(mode);
    }
  });

  it.each([
    ['0770', 0o770, 'its group'],
    ['0707', 0o707, 'others'],
    ['0777', 0o777, 'its group and others'],
  ])(
    'refuses a DATA_DIR of mode %s, to write and to read, saying how to fix it',
    async (shown, mode, who) => {
      const empty = join(await dirs.make(), 'data');
      await mkdir(empty, { mode: 0o700 });
      await chmod(empty, mode);
      const expected = `DATA_DIR ${empty} is writable by ${who} (mode ${shown}), who could change the store under it: chmod 700 ${empty}`;
      await expect(createLmdbStore({ dataDir: empty })).rejects.toThrow(new DataDirError(expected));
      // Nothing was made in it.
      await expect(stat(join(empty, 'data.mdb'))).rejects.toThrow(/ENOENT/);

      const dir = await storeDir();
      await chmod(dir, mode);
      await expect(createLmdbStore({ dataDir: dir, readOnly: true })).rejects.toThrow(
        `DATA_DIR ${dir} is writable by ${who}`,
      );
    },
  );

  it('refuses a world-writable DATA_DIR with the sticky bit too (/tmp-like)', async () => {
    const dir = join(await dirs.make(), 'data');
    await mkdir(dir);
    await chmod(dir, 0o1777);
    await expect(createLmdbStore({ dataDir: dir })).rejects.toThrow(
      `DATA_DIR ${dir} is writable by its group and others (mode 01777)`,
    );
  });

  it.each(['data.mdb', 'lock.mdb'])(
    'refuses a %s writable by group or others, to write and to read',
    async (file) => {
      const dir = await storeDir();
      const path = join(dir, file);
      await chmod(path, 0o666);
      const expected = `DATA_DIR ${dir} holds a ${file} that is writable by its group and others (mode 0666), who could change the store under it: chmod 600 ${path}`;
      await expect(createLmdbStore({ dataDir: dir })).rejects.toThrow(new DataDirError(expected));
      await expect(createLmdbStore({ dataDir: dir, readOnly: true })).rejects.toThrow(expected);
      expect(await modeOf(path)).toBe(0o666);
    },
  );

  it('refuses a DATA_DIR another user owns, to write, to read and to claim it, saying how to fix it', async () => {
    const dir = await storeDir();
    const owner = await ownedByAnother(dir);
    const me = process.geteuid!();
    const expected = `DATA_DIR ${dir} is owned by another user (uid ${owner}), not by the user running this process (uid ${me}): run as that user, or make it this user's (chown -R ${me} ${dir})`;
    await expect(createLmdbStore({ dataDir: dir })).rejects.toThrow(new DataDirError(expected));
    await expect(createLmdbStore({ dataDir: dir, readOnly: true })).rejects.toThrow(expected);
    await expect(claimDataDir(dir, 'local', silentLogger)).rejects.toThrow(expected);
  });

  it('refuses a data.mdb another user owns in a directory of this user', async () => {
    const dir = await storeDir();
    const owner = await ownedByAnother(join(dir, 'data.mdb'));
    if (!runsAsRoot) {
      // The spy makes the directory another's too; only root can split them, so here the
      // directory's refusal comes first.
      await expect(createLmdbStore({ dataDir: dir })).rejects.toThrow(`DATA_DIR ${dir} is owned`);
      return;
    }
    await expect(createLmdbStore({ dataDir: dir })).rejects.toThrow(
      `DATA_DIR ${dir} holds a data.mdb that is owned by another user (uid ${owner})`,
    );
  });
});

describe('LMDB backups: only their owner may read or change them', () => {
  it('writes the copy 0600, into a new folder 0700', async () => {
    const source = await createLmdbStore({ dataDir: await storeDir() });
    const target = join(await dirs.make(), 'backups', 'today');
    try {
      await source.backup(target);
    } finally {
      await source.close();
    }
    expect(await modeOf(join(target, 'data.mdb'))).toBe(0o600);
    expect(await modeOf(target)).toBe(0o700);
    expect(await modeOf(join(target, '..'))).toBe(0o700);
  });

  it('writes the copy 0600 into an existing empty folder of mode 0755', async () => {
    const source = await createLmdbStore({ dataDir: await storeDir() });
    const target = join(await dirs.make(), 'open');
    await mkdir(target);
    await chmod(target, 0o755);
    try {
      await source.backup(target);
    } finally {
      await source.close();
    }
    expect(await modeOf(join(target, 'data.mdb'))).toBe(0o600);
  });

  it('refuses an empty target folder others may write, or another user owns', async () => {
    const source = await createLmdbStore({ dataDir: await storeDir() });
    try {
      const shared = join(await dirs.make(), 'shared');
      await mkdir(shared);
      await chmod(shared, 0o777);
      await expect(source.backup(shared)).rejects.toThrow(
        new BackupTargetError(
          `the backup target ${shared} is writable by its group and others (mode 0777), who could change the store under it: chmod 700 ${shared}`,
        ),
      );
      const theirs = join(await dirs.make(), 'theirs');
      await mkdir(theirs, { mode: 0o700 });
      const owner = await ownedByAnother(theirs);
      await expect(source.backup(theirs)).rejects.toThrow(
        `the backup target ${theirs} is owned by another user (uid ${owner})`,
      );
    } finally {
      jest.restoreAllMocks();
      await source.close();
    }
  });
});

describe('the admin CLI follows the same rules', () => {
  it('refuses to write to, list or back up a DATA_DIR another user owns', async () => {
    const dir = await storeDir();
    const owner = await ownedByAnother(dir);
    const config = loadConfig({ DATA_DIR: dir });
    const owned = `DATA_DIR ${dir} is owned by another user (uid ${owner})`;
    await expect(openAdminTarget(config, undefined)).rejects.toThrow(owned);
    await expect(openAdminReader(config, undefined)).rejects.toThrow(owned);
    await expect(runBackup(config, join(await dirs.make(), 'copy'))).rejects.toThrow(owned);
  });

  describe('as a command (the built CLI)', () => {
    let build: TempBuild;
    beforeAll(async () => {
      build = await compileToTemp();
    });
    afterAll(() => build.remove());

    it('exits 1 naming the fix, on a DATA_DIR others may write, for a write, a listing and a backup', async () => {
      const dir = await storeDir();
      await chmod(dir, 0o777);
      const expected = `DATA_DIR ${dir} is writable by its group and others (mode 0777), who could change the store under it: chmod 700 ${dir}`;
      for (const args of [
        ['org', 'create', '--id', 'beta', '--domain', 'beta.link'],
        ['org', 'list'],
        ['backup', join(await dirs.make(), 'copy')],
      ]) {
        const run = await runAdmin(build.dir, { DATA_DIR: dir }, ...args);
        expect({ args, code: run.code }).toEqual({ args, code: 1 });
        expect(run.stderr).toContain(expected);
      }
    });

    // Only root can run a command as another user; as root (here, and in CI) it runs as nobody.
    const nobodyCannotRunNode = runsAsRoot ? nodeUnreachableBy(NOBODY) : undefined;
    if (nobodyCannotRunNode !== undefined)
      process.stderr.write(`\nskipped the admin CLI run as nobody: ${nobodyCannotRunNode}\n`);
    (nobodyCannotRunNode === undefined ? it : it.skip)(
      'names the owner, not a missing store, when run by another user who cannot look inside',
      async () => {
        if (!runsAsRoot) return;
        const parent = await dirs.make();
        await chmod(parent, 0o755);
        const dir = join(parent, 'data');
        await (await createLmdbStore({ dataDir: dir })).close();
        await chmod(build.dir, 0o755);
        // A clone in a private directory (/root/..., mktemp -d) hides its node_modules from nobody.
        const dependencies = await dependenciesFor(NOBODY, build.dir);
        for (const args of [
          ['org', 'list'],
          ['backup', join(parent, 'copy')],
          ['org', 'create', '--id', 'beta', '--domain', 'beta.link'],
        ]) {
          const run = await runAdminAs(
            NOBODY,
            build.dir,
            { ...dependencies, DATA_DIR: dir },
            ...args,
          );
          expect({ args, code: run.code }).toEqual({ args, code: 1 });
          expect(run.stderr).toContain(
            `DATA_DIR ${dir} is owned by another user (uid 0), not by the user running this process (uid ${NOBODY})`,
          );
        }
      },
    );

    it('exits 2 on a backup target others may write, writing nothing there', async () => {
      const target = join(await dirs.make(), 'shared');
      await mkdir(target);
      await chmod(target, 0o777);
      const run = await runAdmin(build.dir, { DATA_DIR: await storeDir() }, 'backup', target);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`the backup target ${target} is writable by`);
      await expect(stat(join(target, 'data.mdb'))).rejects.toThrow(/ENOENT/);
    });

    it('stops the service before it listens, with the fix in its one line and exit code 1', async () => {
      const dir = await storeDir();
      await chmod(dir, 0o757);
      const { code, output } = await runServiceUntilExit(build.dir, { DATA_DIR: dir });
      expect(output).toContain(
        `shortlink failed to start: DATA_DIR ${dir} is writable by others (mode 0757), who could change the store under it: chmod 700 ${dir}`,
      );
      expect(code).toBe(1);
      if (!runsAsRoot) return;
      await chmod(dir, 0o700);
      await chown(dir, NOBODY, NOBODY);
      const theirs = await runServiceUntilExit(build.dir, { DATA_DIR: dir });
      expect(theirs.output).toContain(
        `shortlink failed to start: DATA_DIR ${dir} is owned by another user (uid ${NOBODY})`,
      );
      expect(theirs.code).toBe(1);
    });
  });
});
