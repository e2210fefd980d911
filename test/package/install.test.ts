import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { ROOT } from '../support/compile-to-temp';
import { packageExamples, type DocExample } from './doc-examples';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const MINUTES = 60_000;

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

/** What the tarball may hold: the build, the protos, the docs, the manifest. */
const SHIPPED = [
  /^package\.json$/,
  /^README\.md$/,
  /^(core|gateway-http|gateway-grpc)(\/[\w.-]+)*\/README\.md$/,
  /^proto\/([\w.-]+\/)*[\w.-]+\.proto$/,
  /^dist\/(core|gateway-http|gateway-grpc)\/([\w.-]+\/)*[\w.-]+\.(js|d\.ts|js\.map)$/,
];

let work: string;
let pack: PackResult;
let app: string;

/**
 * Packs the project the way a git-URL install does: from a copy of the tree without dist/, so
 * whatever the tarball's dist/ holds was built by `prepare`. Then installs the tarball into an
 * empty project. Dependencies come from npm's cache when `npm ci` filled it (--prefer-offline),
 * and their install scripts do not run (as in this project's own `allowScripts`).
 */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shortlink-package-'));
  const source = join(work, 'source');
  const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && !file.startsWith('dist/'));
  for (const file of tracked) {
    await cp(join(ROOT, file), join(source, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // a file deleted but not yet committed
    });
  }
  // The build's tools, without installing them again.
  await symlink(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const { stdout } = await run(NPM, ['pack', '--json', '--pack-destination', work], {
    cwd: source,
    maxBuffer: 64 * 1024 * 1024,
  });
  // `prepare`'s own output comes first on stdout; the JSON report is the last thing printed.
  const json = stdout.slice(stdout.lastIndexOf('\n[') + 1);
  pack = (JSON.parse(json) as PackResult[])[0]!;

  app = join(work, 'app');
  await mkdir(app);
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'embedder', private: true, type: 'module' }),
  );
  await run(
    NPM,
    [
      'install',
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      join(work, pack.filename),
    ],
    { cwd: app, maxBuffer: 64 * 1024 * 1024 },
  );
}, 10 * MINUTES);

afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

describe('the package an embedder installs', () => {
  it('ships the build, the protos and the docs, and nothing else', () => {
    const paths = pack.files.map((file) => file.path);
    expect(paths.filter((path) => !SHIPPED.some((pattern) => pattern.test(path)))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'core/README.md',
        'dist/core/index.js',
        'dist/core/index.d.ts',
        'dist/core/runtime/index.js',
        'dist/gateway-http/main.js',
        'proto/shortlink/v1/shortlink.proto',
      ]),
    );
    expect(paths.some((path) => path.startsWith('test/') || path.includes('.test.'))).toBe(false);
  });

  it('resolves every export of the installed package', async () => {
    const script = `
      const manifest = require('shortlink/package.json');
      for (const subpath of Object.keys(manifest.exports)) require.resolve(subpath.replace(/^\\./, 'shortlink'));
      process.stdout.write(JSON.stringify(Object.keys(manifest.exports)));
    `;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: app });
    expect(JSON.parse(stdout)).toContain('./runtime');
  });

  it('loads no driver when the embedder imports the main entry', async () => {
    const script = `
      const { createCore } = require('shortlink');
      createCore();
      const drivers = Object.keys(require.cache).filter((file) =>
        /node_modules[\\\\/](mongodb|ioredis|bottleneck|lmdb)[\\\\/]/.test(file));
      process.stdout.write(JSON.stringify(drivers));
    `;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: app });
    expect(JSON.parse(stdout)).toEqual([]);
  });

  describe('the documentation examples that import the package', () => {
    const examples = packageExamples(ROOT);

    it('finds the embedding example', () => {
      expect(examples.map((example) => example.where)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^core\/README\.md:/)]),
      );
    });

    it.each(examples.map((example): [string, DocExample] => [example.where, example]))(
      '%s typechecks against the installed types and runs as printed',
      async (where, example) => {
        const name = `example-${where.replace(/[^\w]+/g, '-')}`;
        await writeFile(join(app, `${name}.ts`), example.code);
        await writeFile(
          join(app, `tsconfig.${name}.json`),
          JSON.stringify({
            compilerOptions: {
              target: 'ES2022',
              module: 'nodenext',
              moduleResolution: 'nodenext',
              strict: true,
              noEmit: true,
              skipLibCheck: true,
              types: ['node'],
              typeRoots: [join(ROOT, 'node_modules', '@types')],
            },
            files: [`${name}.ts`],
          }),
        );
        const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
        await run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { cwd: app }).catch(
          (error: Error & { stdout?: string }) => {
            throw new Error(`${where} does not typecheck:\n${error.stdout ?? error.message}`);
          },
        );
        const { outputText } = ts.transpileModule(example.code, {
          compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
        });
        await writeFile(join(app, `${name}.mjs`), outputText);
        const { stdout, stderr } = await run(process.execPath, [`${name}.mjs`], {
          cwd: app,
          timeout: MINUTES,
        });
        expect(stderr).toBe('');
        if (example.code.includes('console.log(link.short_url)')) {
          expect(stdout).toMatch(/^https:\/\/acme\.link\/[0-9A-Za-z]{7}\n$/);
        }
      },
      5 * MINUTES,
    );
  });
});
