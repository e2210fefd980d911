import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { transformFile } from '@swc/core';

export const ROOT = join(__dirname, '..', '..');
const SOURCES = ['core', 'gateway-http', 'gateway-grpc'];

async function* typescriptFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typescriptFiles(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

export interface TempBuild {
  /** Holds core/, gateway-http/ and gateway-grpc/ as CommonJS, laid out as in dist/. */
  dir: string;
  remove(): Promise<void>;
}

/**
 * Compiles the service to CommonJS in a temporary directory with swc (seconds, where tsc takes
 * much longer on a loaded machine; the types are checked by `npm run typecheck` anyway), so a
 * test can run the built modules as `npm start` or an embedder does. Run them with
 * NODE_PATH=<project>/node_modules so their dependencies resolve.
 */
export async function compileToTemp(): Promise<TempBuild> {
  const dir = await mkdtemp(join(tmpdir(), 'shortlink-build-'));
  for (const source of SOURCES) {
    for await (const file of typescriptFiles(join(ROOT, source))) {
      const { code } = await transformFile(file, {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        // The exports' names where node's ES module loader reads them (as tsc's output has
        // them), so an ES module can import the build by name.
        module: { type: 'commonjs', exportInteropAnnotation: true },
        sourceMaps: false,
      });
      const out = join(dir, relative(ROOT, file)).replace(/\.ts$/, '.js');
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, code);
    }
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
