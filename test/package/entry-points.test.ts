import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import packageJson from '../../package.json';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';

/** The drivers an embedder pays for only when they ask for the adapter that needs them. */
const DRIVERS = ['mongodb', 'ioredis', 'bottleneck', 'lmdb'];

/** The subpath behind each package export, as a built module path (`dist/...` without `dist/`). */
function exportTargets(): Map<string, string> {
  const targets = new Map<string, string>();
  for (const [subpath, target] of Object.entries(packageJson.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    targets.set(subpath, target.default.replace(/^\.\/dist\//, ''));
  }
  return targets;
}

let build: TempBuild;

beforeAll(async () => {
  build = await compileToTemp();
}, 120_000);
afterAll(() => build?.remove());

/** Requires one built module in a fresh process; answers the drivers that ended up loaded. */
async function driversLoadedBy(modulePath: string): Promise<string[]> {
  const script = `
    require(process.argv[1]);
    const loaded = new Set();
    for (const file of Object.keys(require.cache)) {
      const match = /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)[\\\\/]/.exec(file);
      if (match) loaded.add(match[1]);
    }
    process.stdout.write(JSON.stringify([...loaded]));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, modulePath], {
    env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
    timeout: 60_000,
  });
  const loaded = JSON.parse(stdout) as string[];
  return DRIVERS.filter((driver) => loaded.includes(driver));
}

describe('package entry points', () => {
  it('exports the main entry and one subpath per driver-bound part', () => {
    expect([...exportTargets().keys()].sort()).toEqual(
      ['.', './mongodb', './redis', './lmdb', './runtime'].sort(),
    );
  });

  it('loads no driver from the main entry (createCore and everything beside it)', async () => {
    const main = join(build.dir, exportTargets().get('.')!);
    expect(await driversLoadedBy(main)).toEqual([]);
  });

  it('loads each driver from its own subpath only', async () => {
    const targets = exportTargets();
    const at = (subpath: string) => join(build.dir, targets.get(subpath)!);
    // The checks above would pass for a broken detector too: the subpaths show that it sees them.
    expect(await driversLoadedBy(at('./mongodb'))).toEqual(['mongodb']);
    expect(await driversLoadedBy(at('./redis'))).toEqual(['ioredis']);
    expect(await driversLoadedBy(at('./lmdb'))).toEqual(['lmdb']);
    expect((await driversLoadedBy(at('./runtime'))).sort()).toEqual([...DRIVERS].sort());
  });
});
