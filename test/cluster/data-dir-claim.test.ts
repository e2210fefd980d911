import { createHash } from 'node:crypto';
import { stat, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { claimDataDir, type DataDirClaim } from '../../core/runtime/data-dir-claim';
import { ConfigError, createRuntime, loadConfig } from '../../core/runtime';
import { silentLogger } from '../../core/ports/logger';
import { tempDirs } from '../support/temp-dirs';

const dirs = tempDirs('data-dir-claim');
const held: DataDirClaim[] = [];

afterEach(async () => {
  for (const claim of held.splice(0)) await claim.release();
});
afterAll(() => dirs.removeAll());

async function claim(dataDir: string, scope: 'local' | 'shared'): Promise<DataDirClaim> {
  const made = await claimDataDir(dataDir, scope, silentLogger);
  held.push(made);
  return made;
}

// The claims of one process stand for several services here: each claim is counted on its own.
describe('a service claims the LMDB DATA_DIR it counts rate limits beside', () => {
  it('refuses a second service counting in memory, naming the directory and the holder', async () => {
    const dataDir = await dirs.make();
    await claim(dataDir, 'local');
    const second = claimDataDir(dataDir, 'local', silentLogger);
    await expect(second).rejects.toThrow(ConfigError);
    await expect(second).rejects.toThrow(
      `DATA_DIR ${dataDir} is already served by another shortlink service (pid ${process.pid})`,
    );
  });

  it('refuses a service counting in Redis beside one counting in memory, either way round', async () => {
    const first = await dirs.make();
    await claim(first, 'local');
    await expect(claimDataDir(first, 'shared', silentLogger)).rejects.toThrow(
      'that counts rate limits in its own memory, not in Redis',
    );
    const second = await dirs.make();
    await claim(second, 'shared');
    await expect(claimDataDir(second, 'local', silentLogger)).rejects.toThrow(
      `DATA_DIR ${second} is already served by another shortlink service`,
    );
  });

  it('lets services that all count in Redis share the directory', async () => {
    const dataDir = await dirs.make();
    await claim(dataDir, 'shared');
    await expect(claim(dataDir, 'shared')).resolves.toBeDefined();
  });

  it('knows the directory by any path to it', async () => {
    const dataDir = await dirs.make();
    const link = join(await dirs.make(), 'link');
    await symlink(dataDir, link);
    await claim(dataDir, 'local');
    await expect(claimDataDir(link, 'local', silentLogger)).rejects.toThrow(ConfigError);
  });

  it('lets the directory be claimed again once released, and leaves other directories alone', async () => {
    const dataDir = await dirs.make();
    const first = await claimDataDir(dataDir, 'local', silentLogger);
    await claim(await dirs.make(), 'local');
    await first.release();
    await expect(claim(dataDir, 'local')).resolves.toBeDefined();
  });

  it('takes back its claim when it refuses, so the holder can still be joined correctly', async () => {
    const dataDir = await dirs.make();
    const holder = await claimDataDir(dataDir, 'shared', silentLogger);
    await claim(dataDir, 'local').catch(() => undefined);
    await claim(dataDir, 'local').catch(() => undefined);
    await holder.release();
    // Had a refused claim stayed, this one would be refused too.
    await expect(claim(dataDir, 'local')).resolves.toBeDefined();
  });

  it('counts a holder that has its pid (another pid namespace) as another service', async () => {
    const dataDir = await dirs.make();
    const { dev, ino } = await stat(dataDir);
    const id = createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 24);
    // A service in another container, numbered with this process's pid.
    const foreign = createServer();
    await new Promise<void>((resolve) =>
      foreign.listen({ path: `\0shortlink-data-dir.${id}.local.${process.pid}-1` }, resolve),
    );
    try {
      await expect(claimDataDir(dataDir, 'local', silentLogger)).rejects.toThrow(ConfigError);
      await expect(claimDataDir(dataDir, 'shared', silentLogger)).rejects.toThrow(
        'that counts rate limits in its own memory',
      );
    } finally {
      await new Promise((resolve) => foreign.close(resolve));
    }
  });

  it('is released by a runtime whose store fails to close', async () => {
    const dataDir = await dirs.make();
    const config = loadConfig({ DATA_DIR: dataDir, METRICS_PORT: '0' });
    const runtime = await createRuntime(config, silentLogger);
    const store = runtime.core.deps.store;
    const close = store.close.bind(store);
    store.close = async () => {
      await close();
      throw new Error('the store failed to close');
    };
    await expect(runtime.close()).rejects.toThrow('the store failed to close');
    // Had the failure stopped the closing, the claim would still be held.
    await expect(claim(dataDir, 'local')).resolves.toBeDefined();
  });
});
