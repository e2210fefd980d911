import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = promisify(execFile);
const dirs = tempDirs('admin-script');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

afterAll(() => dirs.removeAll());

/** A CLI that prints which build it is and its arguments. */
const fakeCli = (build: string) =>
  `console.log(${JSON.stringify(build)}, process.argv.slice(2).join(' '));\n`;

/**
 * A project with the repository's own `admin` and `prebuild` scripts, whose `build` writes a
 * stand-in CLI instead of compiling: what `npm run admin` runs, and whether it rebuilt.
 */
async function project(withBuild: boolean): Promise<string> {
  const dir = await dirs.make();
  const cli = join('dist', 'core', 'cli', 'admin.js');
  const manifest = {
    name: 'admin-script-probe',
    private: true,
    scripts: { admin: scripts.admin, prebuild: scripts.prebuild, build: 'node build.js' },
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest));
  await writeFile(
    join(dir, 'build.js'),
    `const fs = require('node:fs');
fs.mkdirSync(${JSON.stringify(join('dist', 'core', 'cli'))}, { recursive: true });
fs.writeFileSync(${JSON.stringify(cli)}, ${JSON.stringify(fakeCli('fresh build'))});
`,
  );
  if (withBuild) {
    await mkdir(join(dir, 'dist', 'core', 'cli'), { recursive: true });
    await writeFile(join(dir, cli), fakeCli('existing build'));
  }
  return dir;
}

async function admin(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(NPM, ['run', 'admin', '--silent', '--', ...args], {
    cwd: dir,
    timeout: 30_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return stdout.trim();
}

describe('npm run admin', () => {
  it('runs the existing build and never rebuilds it under a running server', async () => {
    const dir = await project(true);
    // The old script ran `npm run build` first, whose prebuild deletes dist/ (and with it the
    // code a running server's restarted workers load).
    expect(await admin(dir, 'backup', '/tmp/copy')).toBe('existing build backup /tmp/copy');
    expect(readFileSync(join(dir, 'dist', 'core', 'cli', 'admin.js'), 'utf8')).toBe(
      fakeCli('existing build'),
    );
  });

  it('builds first when there is no build yet', async () => {
    const dir = await project(false);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    expect(await admin(dir, 'token', 'create')).toBe('fresh build token create');
  });
});
