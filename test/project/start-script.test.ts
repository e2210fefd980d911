import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../support/eventually';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = promisify(execFile);
const dirs = tempDirs('start-script');
/** prestart's script: compiles only when a source is newer than the last build. */
const BUILD_IF_STALE = join('gateway-http', 'build-if-stale.mjs');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

afterAll(() => dirs.removeAll());

/**
 * A project with the repository's own tsconfig files and `prestart`, `prebuild` and `build`
 * scripts, a source file in each compiled folder, and the repository's node_modules (TypeScript):
 * what `npm start` compiles before it starts, on a tree small enough to build in seconds.
 */
async function project(): Promise<string> {
  const dir = await dirs.make();
  const { prestart, prebuild, build } = scripts;
  const manifest = {
    name: 'start-script-probe',
    private: true,
    scripts: { prestart, prebuild, build, start: 'node -e 0' },
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest));
  for (const file of ['tsconfig.json', 'tsconfig.build.json']) {
    await copyFile(join(ROOT, file), join(dir, file));
  }
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const folder of ['core', 'gateway-http', 'gateway-grpc']) {
    await mkdir(join(dir, folder));
    await writeFile(join(dir, folder, 'part.ts'), `export const part = '${folder}';\n`);
  }
  await copyFile(join(ROOT, BUILD_IF_STALE), join(dir, BUILD_IF_STALE));
  await writeFile(join(dir, 'gateway-http', 'main.ts'), `export const main = 'entry point';\n`);
  return dir;
}

/** Every file under dist/ with its modification time. */
function builtFiles(dir: string): Map<string, number> {
  const files = new Map<string, number>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(dir, path), statSync(path).mtimeMs);
    }
  };
  walk(join(dir, 'dist'));
  return files;
}

const npmRun = (dir: string, script: string) =>
  run(NPM, ['run', script, '--silent'], {
    cwd: dir,
    timeout: 90_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

describe('npm start', () => {
  it('leaves an up-to-date build as it is, so a server running from dist/ keeps its code', async () => {
    const dir = await project();
    await npmRun(dir, 'build');
    const built = builtFiles(dir);
    expect([...built.keys()]).toContain(join('dist', 'core', 'part.js'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // `npm start` runs prestart first; the old one ran `npm run build`, whose prebuild deletes
    // dist/ (and with it the code a running server's restarted workers load).
    await npmRun(dir, 'prestart');
    expect(builtFiles(dir)).toEqual(built);
  });

  it('runs no compiler on an unchanged build, and compiles once a source changes', async () => {
    const dir = await project();
    await npmRun(dir, 'build');
    const built = builtFiles(dir);
    // Without TypeScript reachable, a start that ran the compiler would fail.
    await rm(join(dir, 'node_modules'));
    await npmRun(dir, 'prestart');
    expect(builtFiles(dir)).toEqual(built);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(join(dir, 'gateway-grpc', 'part.ts'), `export const part = 'edited';\n`);
    await expect(npmRun(dir, 'prestart')).rejects.toThrow();
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await npmRun(dir, 'prestart');
    expect(readFileSync(join(dir, 'dist', 'gateway-grpc', 'part.js'), 'utf8')).toContain(
      "'edited'",
    );
  });

  it('compiles again only what changed', async () => {
    const dir = await project();
    await npmRun(dir, 'build');
    const built = builtFiles(dir);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(join(dir, 'core', 'part.ts'), `export const part = 'changed';\n`);
    await npmRun(dir, 'prestart');
    const rebuilt = builtFiles(dir);
    expect(readFileSync(join(dir, 'dist', 'core', 'part.js'), 'utf8')).toContain("'changed'");
    const rewritten = [...rebuilt].filter(([file, time]) => built.get(file) !== time);
    expect(rewritten.map(([file]) => file).sort()).toEqual(
      [
        join('dist', '.tsbuildinfo'),
        join('dist', 'core', 'part.d.ts'),
        join('dist', 'core', 'part.js'),
        join('dist', 'core', 'part.js.map'),
      ].sort(),
    );
  });

  it('builds afresh when the entry point is gone, though the build info is still there', async () => {
    const dir = await project();
    await npmRun(dir, 'build');
    // The build info alone would tell an incremental build that nothing is left to do.
    await rm(join(dir, 'dist', 'gateway-http'), { recursive: true });
    await npmRun(dir, 'prestart');
    expect(existsSync(join(dir, 'dist', 'gateway-http', 'main.js'))).toBe(true);
    expect(existsSync(join(dir, 'dist', 'gateway-http', 'part.js'))).toBe(true);
  });
});

/** A stand-in for the server: notes its pid, and on SIGTERM notes the signal and exits. */
const PROBE_SERVER = `
const { writeFileSync } = require('node:fs');
writeFileSync('pid', String(process.pid));
process.on('SIGTERM', () => { writeFileSync('signal', 'SIGTERM'); process.exit(0); });
setInterval(() => undefined, 1000);
`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start, stopped by a signal to npm', () => {
  it("hands the signal to the server: npm's shell runs it in its own place (exec)", async () => {
    const dir = await dirs.make();
    const manifest = {
      name: 'start-signal-probe',
      private: true,
      scripts: { start: scripts.start },
    };
    await writeFile(join(dir, 'package.json'), JSON.stringify(manifest));
    await mkdir(join(dir, 'dist', 'gateway-http'), { recursive: true });
    await writeFile(join(dir, 'dist', 'gateway-http', 'main.js'), PROBE_SERVER);
    const npm = spawn(NPM, ['start', '--silent'], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    let server: number | undefined;
    const read = (file: string) => readFile(join(dir, file), 'utf8').catch(() => '');
    try {
      await eventually(async () => (await read('pid')) !== '', 'the server to start');
      server = Number(await read('pid'));
      // What a supervisor or a script does: signal the pid it started, npm's.
      npm.kill('SIGTERM');
      await eventually(
        async () => (await read('signal')) === 'SIGTERM',
        'the server to get SIGTERM',
      );
      await eventually(() => !isAlive(server as number), 'the server to exit');
    } finally {
      npm.kill('SIGKILL');
      if (server !== undefined && isAlive(server)) process.kill(server, 'SIGKILL');
    }
  });
});
