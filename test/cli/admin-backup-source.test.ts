import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { runAdmin } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { mountSupport, mountTmpfs, type SmallFilesystem } from '../support/small-filesystem';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

const dirs = tempDirs('backup-source');
const mounts: SmallFilesystem[] = [];
let build: TempBuild;

beforeAll(async () => {
  build = await compileToTemp();
});

afterAll(async () => {
  for (const mount of mounts) mount.unmount();
  await build?.remove();
  await dirs.removeAll();
});

/** A store in `dataDir` holding one organization, made by the admin CLI as an operator would. */
async function storeWithOrganization(dataDir: string): Promise<void> {
  await (await createLmdbStore({ dataDir })).close();
  const env = { DATA_DIR: dataDir };
  const run = await runAdmin(
    build.dir,
    env,
    'org',
    'create',
    '--id',
    'kept',
    '--domain',
    'kept.link',
  );
  expect(run).toMatchObject({ code: 0, stderr: '' });
}

async function expectCopyHoldsOrganization(target: string): Promise<void> {
  const copy = await createLmdbStore({ dataDir: target, readOnly: true });
  try {
    await expect(copy.identities.findOrganizationById('kept')).resolves.toMatchObject({
      id: 'kept',
    });
  } finally {
    await copy.close();
  }
}

describe('admin backup reads its source and writes nothing to it', () => {
  it('leaves the bytes of the source data file as they were', async () => {
    const dataDir = join(await dirs.make(), 'data');
    await storeWithOrganization(dataDir);
    const before = await readFile(join(dataDir, 'data.mdb'));
    const target = join(await dirs.make(), 'copy');
    const run = await runAdmin(build.dir, { DATA_DIR: dataDir }, 'backup', target);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`written to ${target}`);
    await expect(readFile(join(dataDir, 'data.mdb'))).resolves.toEqual(before);
    await expectCopyHoldsOrganization(target);
  });

  const mounting = mountSupport();
  if (!mounting.available) {
    process.stderr.write(`\nbackup of a read-only source SKIPPED: ${mounting.reason}\n`);
    it.skip(`backup of a read-only source skipped: ${mounting.reason}`, () => undefined);
    return;
  }

  it('copies a store on a read-only file system (a snapshot, a mounted backup)', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'source'), { sizeKb: 4096 });
    mounts.push(mount);
    const dataDir = join(mount.dir, 'data');
    await storeWithOrganization(dataDir);
    execFileSync('mount', ['-o', 'remount,ro', mount.dir]);
    const target = join(await dirs.make(), 'copy');
    const run = await runAdmin(build.dir, { DATA_DIR: dataDir }, 'backup', target);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    await expectCopyHoldsOrganization(target);
  });
});
