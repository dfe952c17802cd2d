// One jest config for every tier; the tier is in the file name:
//   *.unit.test.ts  no I/O           *.int.test.ts  real Postgres/Redis/Kafka      *.e2e.test.ts  real processes
// Pick a tier with e.g. `npm run jest -- --testPathPatterns '\.unit\.'`.
/** @type {import('jest').Config} */
export default {
  // The node environment plus shared typed arrays, which onnxruntime-node needs (see the file).
  testEnvironment: '<rootDir>/test/harness/onnx-environment.mjs',
  // Resolve workspace packages (@tp/*) to their TypeScript sources through the "@tp/source" export condition.
  testEnvironmentOptions: { customExportConditions: ['@tp/source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/**/*.{unit,int,e2e}.test.ts'],
  // .stryker-tmp/: the mutation check's sandbox copies (docs/testing.md), so tests still run beside one.
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.run/', '<rootDir>/.stryker-tmp/'],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
  globalSetup: '<rootDir>/test/harness/global-setup.mjs',
  globalTeardown: '<rootDir>/test/harness/global-teardown.mjs',
  testTimeout: 60_000,
  // Two cores here: two workers keep Kafka, Postgres and the tests from starving each other.
  maxWorkers: 2,
};
