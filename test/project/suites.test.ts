import { execFileSync } from 'node:child_process';
import { ROOT } from '../support/compile-to-temp';

interface Project {
  displayName: string;
  roots: string[];
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { projects } = require('../../jest.config.js') as { projects: Project[] };

/** The suite folder of a test file: `test/<folder>/...`. */
const folderOf = (file: string) => file.split('/')[1] ?? '';

describe('the test suites (jest projects)', () => {
  it('puts every test file in exactly one suite, so none is silently left out of npm test', () => {
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'test'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(40);
    const suitesOf = (file: string) =>
      projects
        .filter((project) => project.roots.includes(`<rootDir>/test/${folderOf(file)}`))
        .map((project) => project.displayName);
    const misplaced = files
      .map((file) => [file, suitesOf(file)] as const)
      .filter(([, suites]) => suites.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('has an npm script per suite', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { scripts } = require('../../package.json') as { scripts: Record<string, string> };
    for (const { displayName } of projects) {
      expect(scripts[`test:${displayName}`]).toBe(`jest --selectProjects ${displayName}`);
    }
  });
});
