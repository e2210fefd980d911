import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEED_FILE_MODE, writeSeedFile } from '../../core/provisioning/seed-file-writer';

describe('seed files written by the admin CLI', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shortlink-seed-writer-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const seed = { organizations: [], users: [{ id: 'alice' }] };

  it('creates a new file with mode 0600', async () => {
    const file = join(dir, 'seed.json');
    await writeSeedFile(file, seed);
    expect((await stat(file)).mode & 0o777).toBe(SEED_FILE_MODE);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(seed);
  });

  it('narrows an existing world-readable file to 0600 on every write', async () => {
    const file = join(dir, 'seed.json');
    await writeFile(file, '{}');
    await chmod(file, 0o644);
    await writeSeedFile(file, seed);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('replaces the file by renaming a complete one over it, leaving nothing behind', async () => {
    const file = join(dir, 'seed.json');
    await writeFile(file, '{"old": true}');
    const before = await stat(file);
    await writeSeedFile(file, seed);
    // Written in place, the file would keep its inode; a rename brings a new one.
    expect((await stat(file)).ino).not.toBe(before.ino);
    expect(await readdir(dir)).toEqual(['seed.json']);
  });
});
