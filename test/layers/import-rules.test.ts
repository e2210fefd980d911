import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '../..');

interface Probe {
  /** Where the probe pretends to live (it is linted from memory, never written). */
  file: string;
  code: string;
}

/**
 * Lints each probe with the project's own eslint.config.mjs, in a child process (ESLint loads its
 * configuration with a dynamic import, which jest's module sandbox does not run). Type-aware
 * rules are switched off for the probes: they do not exist on disk, so no TypeScript project
 * holds them, and the layer rules need no types.
 */
async function restrictedImports(probes: Probe[]): Promise<string[][]> {
  const script = `
    const { ESLint } = require('eslint');
    const tseslint = require('typescript-eslint');
    (async () => {
      const probes = JSON.parse(process.argv[1]);
      const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: [tseslint.configs.disableTypeChecked] });
      const out = [];
      for (const probe of probes) {
        const [result] = await eslint.lintText(probe.code, { filePath: probe.file });
        out.push(result.messages.map((m) => (m.ruleId ?? 'fatal') + ': ' + m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-e', script, JSON.stringify(probes)],
    { cwd: ROOT, timeout: 60_000 },
  );
  return JSON.parse(stdout) as string[][];
}

const RULE = '@typescript-eslint/no-restricted-imports';
const restricted = (messages: string[]) => messages.filter((m) => m.startsWith(RULE)).length;

describe('layers enforced by eslint', () => {
  it('refuses the imports that cross a layer, and accepts the ones that do not', async () => {
    const probes: Probe[] = [
      // 0: core imports no gateway, wherever in core it is.
      {
        file: 'core/adapters/probe.ts',
        code: "import { createHttpApp } from '../../gateway-http/app';\nexport const x = createHttpApp;\n",
      },
      // 1: nor a transport library.
      {
        file: 'core/probe.ts',
        code: "import express from 'express';\nexport const x = express;\n",
      },
      // 2: a procedure imports no adapter...
      {
        file: 'core/links/probe.ts',
        code: "import { createMemoryStore } from '../adapters/memory/memory-store';\nexport const x = createMemoryStore;\n",
      },
      // 3: ...nor a driver...
      {
        file: 'core/auth/probe.ts',
        code: "import { Redis } from 'ioredis';\nexport const x = Redis;\n",
      },
      // 4: ...nor the runtime, even for a type.
      {
        file: 'core/procedure/probe.ts',
        code: "import type { Config } from '../runtime/config';\nexport type X = Config;\n",
      },
      // 5: ports import types only.
      {
        file: 'core/ports/probe.ts',
        code: "import { hashSecret } from '../auth/secrets';\nexport const x = hashSecret;\n",
      },
      // 6: organizations/ does not build on links/.
      {
        file: 'core/organizations/probe.ts',
        code: "import { toShortLink } from '../links/short-link';\nexport const x = toShortLink;\n",
      },
      // 7: the core library (an adapter, a cache, the url guard...) imports nothing of the process...
      {
        file: 'core/caches/probe.ts',
        code: "import { loadConfig } from '../runtime/config';\nexport const x = loadConfig;\n",
      },
      {
        file: 'core/adapters/lmdb/probe.ts',
        code: "import type { AdminTarget } from '../../cli/admin-store';\nexport type X = AdminTarget;\n",
      },
      // 9: allowed: ...which builds on the library.
      {
        file: 'core/runtime/probe.ts',
        code: "import { LMDB_STORE_KIND } from '../adapters/lmdb/lmdb-store';\nexport const x = LMDB_STORE_KIND;\n",
      },
      // 10: allowed: a procedure importing a port's type and a sibling stage.
      {
        file: 'core/organizations/probe.ts',
        code: "import type { Store } from '../ports/store';\nimport { ShortlinkError } from '../errors/shortlink-error';\nexport type S = Store;\nexport const e = ShortlinkError;\n",
      },
      // 11: allowed: a port importing another port's type.
      {
        file: 'core/ports/probe.ts',
        code: "import type { Organization } from './identity-store';\nexport type O = Organization;\n",
      },
      // 12: allowed: an adapter importing its driver; a gateway importing the core.
      {
        file: 'core/adapters/redis/probe.ts',
        code: "import { Redis } from 'ioredis';\nexport const x = Redis;\n",
      },
      {
        file: 'gateway-http/probe.ts',
        code: "import { createCore } from '../core';\nexport const x = createCore;\n",
      },
    ];
    const results = await restrictedImports(probes);
    expect(results.map(restricted)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    // Nothing else went wrong with the probes (a parse failure would also count as "no hit").
    expect(results.flat().filter((m) => !m.startsWith(RULE))).toEqual([]);
  }, 90_000);
});
