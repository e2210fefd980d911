import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLmdbStore } from '../../core/adapters/lmdb/lmdb-store';
import { runServiceUntilExit } from '../reliability/support/child-service';
import { ROOT, compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { tempDirs } from '../support/temp-dirs';
import { organization } from './fixtures';

jest.setTimeout(120_000);

const dirs = tempDirs('damaged');
let build: TempBuild;
let data: Buffer;

beforeAll(async () => {
  build = await compileToTemp();
  // A real store with a few commits, to cut short.
  const dir = await dirs.make();
  const store = await createLmdbStore({ dataDir: dir });
  for (let i = 0; i < 20; i += 1) {
    await store.identities.saveOrganization(
      organization({ id: `org${i}`, domain: `org${i}.link`, keyHash: String(i).padStart(64, 'a') }),
    );
  }
  await store.close();
  data = await readFile(join(dir, 'data.mdb'));
});
afterAll(async () => {
  await build.remove();
  await dirs.removeAll();
});

/** A DATA_DIR whose data.mdb holds `content`. */
async function dataDirHolding(content: Buffer): Promise<string> {
  const dir = join(await dirs.make(), 'data');
  await mkdir(dir, { mode: 0o700 });
  await writeFile(join(dir, 'data.mdb'), content);
  return dir;
}

/** `org list` of the built admin CLI on `dataDir`: its exit code (or signal) and output. */
async function adminList(dataDir: string) {
  const result = await promisify(execFile)(
    process.execPath,
    [join(build.dir, 'core/cli/admin.js'), 'org', 'list'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_PATH: join(ROOT, 'node_modules'),
        DATA_DIR: dataDir,
      },
    },
  ).then(
    () => ({ code: 0, signal: null as string | null, stderr: '' }),
    (error: { code: number | null; signal: string | null; stderr: string }) => error,
  );
  return { code: result.code, signal: result.signal, stderr: result.stderr };
}

describe('a DATA_DIR whose data.mdb is damaged', () => {
  const cases: [string, () => Buffer][] = [
    ['cut short (a copy interrupted)', () => data.subarray(0, Math.floor(data.length / 2) + 100)],
    ['not LMDB data at all', () => Buffer.alloc(100_000, 0x5a)],
  ];

  it.each(cases)(
    'stops the service with a line naming it and exit code 1 when %s, instead of a SIGBUS',
    async (_, content) => {
      const dataDir = await dataDirHolding(content());
      const { code, output } = await runServiceUntilExit(build.dir, { DATA_DIR: dataDir });
      expect(output).toContain(
        `shortlink failed to start: DATA_DIR ${dataDir} holds a data.mdb that LMDB cannot open (`,
      );
      expect(code).toBe(1);
    },
  );

  it.each(cases)('makes the admin CLI fail with a message when %s', async (_, content) => {
    const dataDir = await dataDirHolding(content());
    const { code, signal, stderr } = await adminList(dataDir);
    expect(signal).toBeNull();
    expect(code).toBe(1);
    expect(stderr).toContain(`DATA_DIR ${dataDir} holds a data.mdb that LMDB cannot open (`);
  });

  it('still opens a whole store, and an empty data.mdb as a new one', async () => {
    const whole = await createLmdbStore({ dataDir: await dataDirHolding(data) });
    await expect(whole.identities.listAll()).resolves.toMatchObject({
      organizations: expect.arrayContaining([expect.objectContaining({ id: 'org19' })]),
    });
    await whole.close();
    const empty = await createLmdbStore({ dataDir: await dataDirHolding(Buffer.alloc(0)) });
    await empty.close();
  });
});
