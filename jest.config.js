const ESM_ONLY = ['@apidevtools/json-schema-ref-parser', 'js-yaml'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    // openapi-backend's reference resolver ships only ES modules; jest on node 20 needs CommonJS.
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testTimeout: 20000,
  // One lmdb-js per jest worker process: see test/support/lmdb-process-wide.js.
  moduleNameMapper: { '^lmdb$': '<rootDir>/test/support/lmdb-process-wide.js' },
};
