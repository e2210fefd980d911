/**
 * The test suites, one jest project each: `npm run test:<suite>` (or `npx jest --selectProjects
 * <suite>`) runs one alone, `npx jest` runs them all. Every folder of test/ holding tests belongs
 * to exactly one suite (test/project/suites.test.ts checks it).
 */
const SUITES = {
  /** The rules of the product through the core's procedures, in process. */
  core: ['core', 'property', 'url-guard', 'cli'],
  /** The stores, their caches and the limiter backends: the storage contract, MongoDB, Redis. */
  storage: ['storage', 'caches', 'mongodb', 'redis'],
  /** REST and gRPC on real servers, and `npm start`'s demo. */
  gateways: ['http', 'grpc', 'e2e', 'metrics', 'openapi', 'docs-page'],
  /** Hostile, concurrent and slow clients; graceful shutdown; restarting crashed workers. */
  reliability: ['reliability', 'cluster'],
  /** The repository as a whole: the package an embedder installs, the layers, the docs' links, CI. */
  project: ['package', 'embed', 'layers', 'docs', 'project', 'ci'],
  /** The container image (gateway-http/Containerfile) built and run with podman. */
  container: ['container'],
};

const ESM_ONLY = ['@apidevtools/json-schema-ref-parser', 'js-yaml'];

const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
  // openapi-backend's reference resolver ships only ES modules; jest on node 20 needs CommonJS.
  [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: [
    '@swc/jest',
    { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 20000,
  // The closing line naming a system program whose tests were skipped (test/support/system-tools.ts).
  reporters: ['default', '<rootDir>/test/support/missing-tools-reporter.js'],
  projects: Object.entries(SUITES).map(([name, folders]) => ({
    displayName: name,
    testEnvironment: 'node',
    roots: folders.map((folder) => `<rootDir>/test/${folder}`),
    testMatch: ['**/*.test.ts'],
    transform,
    transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
    // One lmdb-js per jest worker process: see test/support/lmdb-process-wide.js.
    moduleNameMapper: { '^lmdb$': '<rootDir>/test/support/lmdb-process-wide.js' },
  })),
};
