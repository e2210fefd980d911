/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
  },
  testTimeout: 20000,
  // One lmdb-js per jest worker process: see test/support/lmdb-process-wide.js.
  moduleNameMapper: { '^lmdb$': '<rootDir>/test/support/lmdb-process-wide.js' },
};
