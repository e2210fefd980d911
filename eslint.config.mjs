import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * The layers, as import rules (each later block repeats the earlier restrictions because a rule
 * configured again for a file replaces, not extends, the earlier configuration):
 * - core/ knows no transport: no gateway module, no HTTP or gRPC library;
 * - the core library (all of core/ but runtime/ and cli/, the process and the admin command that
 *   build on it) imports nothing of the process;
 * - procedures (the stages of the create chain and the chain itself) reach state through ports,
 *   never through an adapter, the runtime that wires adapters, or a driver;
 * - core/ports holds contracts only: whatever it imports is a type.
 */
const noTransport = [
  {
    group: ['**/gateway-http', '**/gateway-http/**', '**/gateway-grpc', '**/gateway-grpc/**'],
    message: 'core/ knows no transport: a gateway depends on the core, never the reverse.',
  },
  {
    group: ['express', '@grpc/*', 'pino'],
    message: 'core/ knows no transport: HTTP, gRPC and logging libraries belong to the gateways.',
  },
];
const noProcess = [
  {
    group: ['**/runtime', '**/runtime/**', '**/cli', '**/cli/**'],
    message:
      'The core library imports nothing of the process: core/runtime and core/cli build on it, not the reverse.',
  },
];
const PROCESS = ['core/runtime/**/*.ts', 'core/cli/**/*.ts'];
const noAdapters = [
  {
    group: ['**/adapters', '**/adapters/**', '**/runtime', '**/runtime/**'],
    message: 'Procedures depend on ports (core/ports), never on an adapter or on the runtime.',
  },
  {
    group: ['mongodb', 'ioredis', 'lmdb', 'bottleneck', 'rate-limiter-flexible'],
    message: 'Procedures depend on ports (core/ports), never on a storage or limiter driver.',
  },
];
const typesOnly = [
  {
    regex: '.*',
    allowTypeImports: true,
    message: 'core/ports holds contracts only: import types (`import type`), nothing that runs.',
  },
];
const noLinks = [
  {
    group: ['**/links', '**/links/**'],
    message:
      'The organization stages come before the link fields: links/ builds on organizations/, not the reverse.',
  },
];
const restrictImports = (patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
});
const PROCEDURES = ['links', 'organizations', 'auth', 'rate-limit', 'idempotency', 'procedure'].map(
  (dir) => `core/${dir}/**/*.ts`,
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-bench/**',
      'dist-soak/**',
      'coverage/**',
      'node_modules/**',
      'gateway-grpc/generated/**',
      'bench-results/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'error',
    },
  },
  { files: PROCESS, rules: restrictImports(noTransport) },
  {
    files: ['core/**/*.ts'],
    ignores: PROCESS,
    rules: restrictImports([...noTransport, ...noProcess]),
  },
  { files: PROCEDURES, rules: restrictImports([...noTransport, ...noAdapters]) },
  {
    files: ['core/organizations/**/*.ts'],
    rules: restrictImports([...noTransport, ...noAdapters, ...noLinks]),
  },
  {
    files: ['core/ports/**/*.ts'],
    rules: restrictImports([...noTransport, ...noProcess, ...typesOnly]),
  },
  {
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.cjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  { files: ['jest.config.js'], languageOptions: { globals: { module: 'writable' } } },
  {
    files: [
      'test/support/lmdb-process-wide.js',
      'test/support/system-tool-list.js',
      'test/support/missing-tools-reporter.js',
      'test/node-differences.js',
    ],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        __filename: 'readonly',
        __dirname: 'readonly',
        process: 'readonly',
      },
    },
  },
);
