import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LIST = require('../node-differences.js') as { path: string; why: string }[];

/** What marks a test whose outcome depends on the Node version running it. */
const NODE_BRANCH = /process\.versions?\b|workersReusePort|reuse-port|another-user|node:http2/;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('test/node-differences.js (what .ci/run runs on the older Node)', () => {
  it('lists existing test files, each once, each with a reason', () => {
    const paths = LIST.map((entry) => entry.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const entry of LIST) {
      expect(existsSync(join(ROOT, entry.path))).toBe(true);
      expect(entry.path).toMatch(/^test\/.+\.test\.ts$/);
      expect(entry.why.length).toBeGreaterThan(5);
    }
  });

  it('holds every test file that branches on the Node version', () => {
    const listed = new Set(LIST.map((entry) => entry.path));
    const branching = testFiles(join(ROOT, 'test'))
      .filter((path) => path !== 'test/ci/node-differences.test.ts')
      .filter((path) => NODE_BRANCH.test(readFileSync(join(ROOT, path), 'utf8')));
    expect(branching.length).toBeGreaterThan(3);
    expect(branching.filter((path) => !listed.has(path))).toEqual([]);
  });

  it('is what .ci/run runs on the older Node', () => {
    const run = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(run).toMatch(/require\("\.\/test\/node-differences\.js"\)/);
    expect(run).toMatch(/--runTestsByPath/);
  });
});
