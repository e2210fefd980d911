import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** .ci/run's run_suite, as written there. */
function runSuiteFunction(): string {
  const script = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
  const match = /^run_suite\(\) \{\n[\s\S]*?\n\}\n/m.exec(script);
  if (!match) throw new Error('.ci/run has no run_suite function');
  return match[0];
}

/**
 * run_suite with npm and npx standing for programs that write jest's JSON report: both scopes
 * ("differences" on the older Node, "all" on Node 24) read their counts from it, and the totals
 * add up, under `set -u` as .ci/run runs.
 */
describe('.ci/run totals', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'ci-run-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  function stub(name: string, report: object, status: number): void {
    const file = path.join(directory, 'bin', name);
    writeFileSync(
      file,
      `#!/bin/bash\n[ "$1" = ci ] && exit 0\necho '${JSON.stringify(report)}' > .test-results.json\nexit ${status}\n`,
    );
    chmodSync(file, 0o755);
  }

  it('reads each run from its report and sums both', () => {
    execFileSync('mkdir', ['-p', path.join(directory, 'bin'), path.join(directory, 'test')]);
    writeFileSync(
      path.join(directory, 'test', 'node-differences.js'),
      "module.exports = [{ path: 'test/a.test.ts', why: 'x' }];\n",
    );
    stub(
      'npm',
      {
        numPassedTests: 5,
        numFailedTests: 0,
        numFailedTestSuites: 0,
        numPendingTests: 1,
        numTodoTests: 0,
        testResults: [],
      },
      0,
    );
    stub(
      'npx',
      {
        numPassedTests: 3,
        numFailedTests: 1,
        numFailedTestSuites: 1,
        numPendingTests: 0,
        numTodoTests: 0,
        testResults: [{ assertionResults: [{ status: 'failed' }] }],
      },
      1,
    );
    const script = `set -uo pipefail
total_passed=0; total_failed=0; total_skipped=0
${runSuiteFunction()}
run_suite differences
run_suite all
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"`;
    const output = execFileSync('bash', ['-c', script], {
      cwd: directory,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.join(directory, 'bin')}:${process.env.PATH ?? ''}` },
    });
    const lines = output.trim().split('\n');
    expect(lines.filter((line) => /^ci: Node v\d+.*: \d+ passed/.test(line))).toHaveLength(2);
    expect(lines.at(-1)).toBe('8 passed, 1 failed, 1 skipped');
  });
});
