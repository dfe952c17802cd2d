// Jest config for the mutation check (`npm run mutation`, stryker.config.mjs): the unit tests of the
// pipeline's core only. No global setup: these tests touch no Kafka, Postgres, Redis or APy.
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

/** The core's unit tests: the planner, the chain and its routing, protected spans, the merge, the vocabulary. */
export const MUTATION_TESTS = [
  'services/worker/src/plan-translations/plan-translations.unit.test.ts',
  'services/translator/src/chain/chain.unit.test.ts',
  'services/translator/src/chain/routing.unit.test.ts',
  'services/translator/src/chain/protected-spans.unit.test.ts',
  'services/gateway/src/content/read-content/merge-content.unit.test.ts',
  'services/gateway/src/content/read-content/language-chain.unit.test.ts',
  'libs/pipeline/src/content/content-vocabulary.unit.test.ts',
];

/** @type {import('jest').Config} */
export default {
  ...base,
  // jest's own node environment: these tests load no onnx model, and Stryker wraps the environment it names.
  testEnvironment: 'node',
  globalSetup: undefined,
  globalTeardown: undefined,
  testMatch: MUTATION_TESTS.map((path) => `<rootDir>/${path}`),
  moduleNameMapper: {
    ...Object.fromEntries(
      Object.entries(WORKSPACES).map(([name, dir]) => [`^@tp/${name}$`, `<rootDir>/${dir}/src/index.ts`]),
    ),
    ...base.moduleNameMapper,
  },
};
