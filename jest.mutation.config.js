// Jest config for the mutation check (`npm run mutation`, stryker.config.mjs): the tests of the part
// being mutated. No global setup, which would run again for every mutant: the unit tests touch no
// Kafka, Postgres, Redis or APy, and for the projection's int test scripts/mutation.mjs prepares the
// template database once, before Stryker starts.
// Workspace packages (@tp/*) map to the sources beside this file, not through node_modules: Stryker runs
// the tests in a sandbox copy, and node_modules' links point back at the unmutated originals.
import base from './jest.config.js';

const WORKSPACES = {
  contracts: 'contracts',
  schemas: 'schemas',
  db: 'libs/db',
  kafka: 'libs/kafka',
  pipeline: 'libs/pipeline',
  platform: 'libs/platform',
  redis: 'libs/redis',
  runtime: 'libs/runtime',
  translation: 'libs/translation',
  gateway: 'services/gateway',
  nli: 'services/nli',
  translator: 'services/translator',
  worker: 'services/worker',
  migrations: 'infra/db',
  models: 'tools/models',
  test: 'test',
};

/**
 * The test files of the part being mutated, comma-separated: set by stryker.config.mjs (PARTS), whose
 * environment Stryker's test-runner processes inherit.
 */
const tests = process.env.MUTATION_TESTS?.split(',').filter((path) => path.length > 0) ?? [];
if (tests.length === 0)
  throw new Error('MUTATION_TESTS is not set: run this config through npm run mutation');

/** @type {import('jest').Config} */
export default {
  ...base,
  // jest's own node environment: these tests load no onnx model, and Stryker wraps the environment it names.
  testEnvironment: 'node',
  globalSetup: undefined,
  globalTeardown: undefined,
  testMatch: tests.map((path) => `<rootDir>/${path}`),
  moduleNameMapper: {
    ...Object.fromEntries(
      Object.entries(WORKSPACES).map(([name, dir]) => [`^@tp/${name}$`, `<rootDir>/${dir}/src/index.ts`]),
    ),
    ...base.moduleNameMapper,
  },
};
