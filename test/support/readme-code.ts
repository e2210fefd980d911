import { readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from '@swc/core';
import { sectionCodeBlocks } from './markdown';

/**
 * Runs the TypeScript examples of the READMEs as printed, so a README cannot drift from the code:
 * the example is read from the Markdown, compiled by swc and evaluated with jest's own `require`
 * (which compiles the project's TypeScript), the only change being where its imports point.
 */

const ROOT = path.resolve(__dirname, '../..');

/** The fenced blocks of `language` in the section under the heading whose text is `heading`. */
export function readmeCodeBlocks(readme: string, heading: string, language: string): string[] {
  try {
    return sectionCodeBlocks(readFileSync(path.join(ROOT, readme), 'utf8'), heading, language);
  } catch (error) {
    throw new Error(`${readme}: ${(error as Error).message}`, { cause: error });
  }
}

/** The first fenced block of `language` in the section under `heading`. */
export function readmeCodeBlock(readme: string, heading: string, language = 'ts'): string {
  const [first] = readmeCodeBlocks(readme, heading, language);
  if (first === undefined) {
    throw new Error(`${readme} has no \`\`\`${language} block under "${heading}"`);
  }
  return first;
}

const IMPORT = /^import\s[\s\S]*?\sfrom\s+'([^']+)';\s*$/gm;
const TOP_LEVEL_NAME = /^(?:const|let|function|async function)\s+([A-Za-z_$][\w$]*)/gm;

export interface ExampleOptions {
  /** Where an import of the example really points: `shortlink` → the core, for instance. */
  modules: Record<string, string>;
  /** Textual replacements in the example's code (say, the address of a test server). */
  replace?: Array<[from: string, to: string]>;
}

/**
 * Runs an example: its imports are kept, the rest becomes the body of an async function (so a
 * top-level `await` works), and what it declares at top level is returned for the test to use.
 */
export async function runExample(
  code: string,
  options: ExampleOptions,
  requireModule: (id: string) => unknown,
): Promise<Record<string, unknown>> {
  let source = code;
  for (const [from, to] of options.replace ?? []) {
    if (!source.includes(from)) throw new Error(`the example does not contain ${from}`);
    source = source.split(from).join(to);
  }
  const imports = source.match(IMPORT) ?? [];
  const body = imports.reduce((rest, statement) => rest.replace(statement, ''), source);
  const names = [...body.matchAll(TOP_LEVEL_NAME)].map((match) => match[1]);
  const wrapped = `${imports.join('\n')}
export async function example() {
${body}
return { ${names.join(', ')} };
}`;
  const { code: compiled } = transformSync(wrapped, {
    filename: 'example.ts',
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const resolveId = (id: string): string => {
    const mapped = options.modules[id];
    if (mapped !== undefined) return path.join(ROOT, mapped);
    return id.startsWith('.') ? path.join(ROOT, id) : id;
  };
  const exports: { example?: () => Promise<Record<string, unknown>> } = {};
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: run the README's code
  const evaluate = new Function('require', 'exports', 'module', compiled) as (
    require: (id: string) => unknown,
    exports: object,
    module: object,
  ) => void;
  evaluate((id) => requireModule(resolveId(id)), exports, { exports });
  if (!exports.example) throw new Error('the example did not compile to a function');
  return exports.example();
}
