import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocExample {
  /** The Markdown file, relative to the repository root, and the line its code starts on. */
  where: string;
  code: string;
}

const TS_BLOCK = /^```ts\n([\s\S]*?)^```$/gm;
const IMPORTS_THE_PACKAGE = /from '(shortlink|shortlink\/[a-z-]+)'/;

/**
 * Every TypeScript block of the repository's Markdown that imports the package by its name
 * (`from 'shortlink'` or a subpath): what an embedder would paste into their own project.
 */
export function packageExamples(root: string): DocExample[] {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.md', '**/*.md'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.startsWith('node_modules/'));
  const examples: DocExample[] = [];
  for (const file of [...new Set(files)].sort()) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(TS_BLOCK)) {
      const code = match[1] ?? '';
      if (!IMPORTS_THE_PACKAGE.test(code)) continue;
      const line = text.slice(0, match.index).split('\n').length + 1;
      examples.push({ where: `${file}:${line}`, code });
    }
  }
  return examples;
}
