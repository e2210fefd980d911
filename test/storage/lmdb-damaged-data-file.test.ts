import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createLmdbStore } from '../../core/adapters/lmdb/lmdb-store';
import { runServiceUntilExit } from '../support/child-service';
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

  it('still opens a whole store', async () => {
    const whole = await createLmdbStore({ dataDir: await dataDirHolding(data) });
    await expect(whole.identities.listAll()).resolves.toMatchObject({
      organizations: expect.arrayContaining([expect.objectContaining({ id: 'org19' })]),
    });
    await whole.close();
  });
});

describe('a DATA_DIR whose data.mdb is empty, or a FIFO', () => {
  const EMPTY =
    'holds an empty data.mdb (0 bytes), not a store: restore it from a backup, or delete it to start a new, empty store';
  const FIFO =
    'holds a data.mdb that is a FIFO, not a regular file: move it away, and restore data.mdb from a backup';

  /** A DATA_DIR whose data.mdb is a FIFO nobody writes to (opening it to read would wait for ever). */
  async function dataDirWithFifo(): Promise<string> {
    const dir = join(await dirs.make(), 'data');
    await mkdir(dir, { mode: 0o700 });
    await promisify(execFile)('mkfifo', ['-m', '600', join(dir, 'data.mdb')]);
    return dir;
  }

  it('stops the service with a line naming each and exit code 1, making no new store or demo', async () => {
    for (const [dataDir, reason] of [
      [await dataDirHolding(Buffer.alloc(0)), EMPTY],
      [await dataDirWithFifo(), FIFO],
    ] as const) {
      const { code, output } = await runServiceUntilExit(build.dir, { DATA_DIR: dataDir });
      expect(output).toContain(`shortlink failed to start: DATA_DIR ${dataDir} ${reason}`);
      expect(output).not.toContain('demo');
      expect(code).toBe(1);
    }
  });

  it('makes the admin CLI fail with the same message', async () => {
    for (const [dataDir, reason] of [
      [await dataDirHolding(Buffer.alloc(0)), EMPTY],
      [await dataDirWithFifo(), FIFO],
    ] as const) {
      const { code, signal, stderr } = await adminList(dataDir);
      expect(signal).toBeNull();
      expect(code).toBe(1);
      expect(stderr).toContain(`DATA_DIR ${dataDir} ${reason}`);
    }
  });

  it('leaves an empty data.mdb as it was, and refuses it to read only as well', async () => {
    const dataDir = await dataDirHolding(Buffer.alloc(0));
    await expect(createLmdbStore({ dataDir })).rejects.toThrow(`DATA_DIR ${dataDir} ${EMPTY}`);
    await expect(createLmdbStore({ dataDir, readOnly: true })).rejects.toThrow(EMPTY);
    expect((await stat(join(dataDir, 'data.mdb'))).size).toBe(0);
  });

  it('waits a moment for an empty data.mdb that another process is making into a store', async () => {
    // LMDB creates data.mdb and then writes its first pages: a process starting beside it on the
    // same new directory may find it empty for that moment.
    const dataDir = await dataDirHolding(Buffer.alloc(0));
    const written = sleep(100).then(() => writeFile(join(dataDir, 'data.mdb'), data));
    const store = await createLmdbStore({ dataDir });
    await written;
    await expect(store.identities.findOrganizationById('org3')).resolves.toMatchObject({
      id: 'org3',
    });
    await store.close();
  });
});
