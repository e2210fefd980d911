import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { ROOT } from './compile-to-temp';

/** The user `nobody`: "another user" for a test running as root. */
export const NOBODY = 65534;

/** Whether `script` (node -e) exits 0 when run as the user `uid` with the same Node. */
function succeedsAs(uid: number, script: string, ...args: string[]): boolean {
  const run = spawnSync(process.execPath, ['-e', script, ...args], { uid, gid: uid, cwd: '/' });
  return run.status === 0;
}

/**
 * Why the user `uid` cannot run this Node, or undefined when it can: a Node installed under a
 * private home (nvm in /root) is out of another user's reach, and only a different install helps.
 */
export function nodeUnreachableBy(uid: number): string | undefined {
  return succeedsAs(uid, '')
    ? undefined
    : `uid ${uid} cannot run ${process.execPath}: install Node where every user may run it`;
}

const NODE_MODULES = join(ROOT, 'node_modules');

/** The package `name` as node would find it from the package in `from`. */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** The top-level folders of node_modules holding the service's runtime dependencies, transitively. */
function runtimePackages(): string[] {
  const top = realpathSync(NODE_MODULES);
  const seen = new Set<string>();
  const visit = (dir: string) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const name of Object.keys({
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
    })) {
      const found = resolvePackage(name, dir);
      if (found === undefined || seen.has(found)) continue; // an optional one not installed
      seen.add(found);
      visit(found);
    }
  };
  visit(ROOT);
  // A nested package is copied with the package it is nested in.
  return [...seen]
    .map((path) => relative(top, path))
    .filter((path) => !path.startsWith('..') && !path.split(sep).includes('node_modules'));
}

/**
 * Gives the user `uid` the dependencies a build in `buildDir` (a compileToTemp build, readable by
 * that user) needs, and answers the environment to run it with. Usually that user can read the
 * project's node_modules and NODE_PATH points there; but a clone in a directory only its owner may
 * enter (/root/..., a `mktemp -d`) hides them, so then the runtime dependencies are copied into
 * `buildDir/node_modules`, where node finds them from the build's own files.
 */
export async function dependenciesFor(
  uid: number,
  buildDir: string,
): Promise<Record<string, string>> {
  const readable = "require('node:fs').readdirSync(process.argv[1])";
  if (succeedsAs(uid, readable, NODE_MODULES)) return { NODE_PATH: NODE_MODULES };
  const top = realpathSync(NODE_MODULES);
  for (const name of runtimePackages()) {
    await cp(join(top, name), join(buildDir, 'node_modules', name), { recursive: true });
  }
  return {};
}
