// `npm start`'s build step: runs the compiler only when a source is newer than the last build
// (dist/.tsbuildinfo), so a restart of an unchanged build starts at once. tsc's own incremental
// check still reads and typechecks every file (seconds); comparing times does not.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const BUILD_INFO = 'dist/.tsbuildinfo';
const ENTRY = 'dist/gateway-http/main.js';
const SOURCE_DIRS = ['core', 'gateway-http', 'gateway-grpc'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The latest modification time (ms) of the sources the build reads. */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (/\.(ts|json)$/.test(path)) {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) visit(dir);
  for (const file of SOURCE_FILES)
    if (existsSync(file)) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
/** tsc on the build's settings; its errors are printed and stop the start with its status. */
function compile() {
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  } catch (error) {
    process.exit(typeof error.status === 'number' ? error.status : 1);
  }
}

if (!existsSync(ENTRY) || !existsSync(BUILD_INFO)) {
  // No build (or a partial one): a clean one, as `npm run build` makes.
  rmSync('dist', { recursive: true, force: true });
  compile();
} else if (newestSource() > statSync(BUILD_INFO).mtimeMs) {
  compile();
  // tsc leaves its build info as it was when nothing changed (a file touched, not edited): dated
  // now, so the next start does not compile again.
  const now = new Date();
  utimesSync(BUILD_INFO, now, now);
}
