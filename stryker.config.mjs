// Mutation check of the pipeline's core: `npm run mutation` (scripts/mutation.mjs, docs/testing.md). Not
// part of `npm test`: a run takes tens of minutes on this machine (docs/decisions.md).
// Stryker copies the repo to .stryker-tmp/, mutates one part's files one change at a time, and runs the
// tests that cover each change (jest.mutation.config.js); a mutant no test notices survives.

/**
 * The core, part by part: the files mutated and the test files run against them. One part per Stryker
 * run (MUTATION_PART), so each mutant runs only its part's tests. `database`: the tests write Postgres
 * (int tier), so scripts/mutation.mjs prepares the migrated template database first.
 */
export const PARTS = {
  planner: {
    mutate: [
      'services/worker/src/plan-translations/plan-translations.ts',
      'services/worker/src/plan-translations/check-content-change.ts',
    ],
    tests: ['services/worker/src/plan-translations/plan-translations.unit.test.ts'],
  },
  chain: {
    mutate: [
      'services/translator/src/chain/chain.ts',
      'services/translator/src/chain/pivot-routes.ts',
      'services/translator/src/chain/pair-directory.ts',
    ],
    tests: [
      'services/translator/src/chain/chain.unit.test.ts',
      'services/translator/src/chain/routing.unit.test.ts',
    ],
  },
  spans: {
    mutate: [
      'services/translator/src/chain/protected-spans.ts',
      'services/translator/src/chain/span-scanner.ts',
    ],
    tests: ['services/translator/src/chain/protected-spans.unit.test.ts'],
  },
  merge: {
    mutate: [
      'services/gateway/src/content/read-content/merge-content.ts',
      'services/gateway/src/content/read-content/language-chain.ts',
    ],
    tests: [
      'services/gateway/src/content/read-content/merge-content.unit.test.ts',
      'services/gateway/src/content/read-content/language-chain.unit.test.ts',
    ],
  },
  vocabulary: {
    mutate: ['libs/pipeline/src/content/*.ts', '!libs/pipeline/src/content/index.ts', '!**/*.test.ts'],
    tests: [
      'libs/pipeline/src/content/content-vocabulary.unit.test.ts',
      'libs/pipeline/src/content/content-rules.unit.test.ts',
    ],
  },
  projection: {
    mutate: [
      'services/worker/src/project-translations/translation-writer.ts',
      'libs/pipeline/src/content-store/translation-upsert.ts',
      'services/worker/src/project-translations/translation-row.ts',
    ],
    tests: [
      'services/worker/src/project-translations/translation-writer.int.test.ts',
      'services/worker/src/project-translations/translation-row.unit.test.ts',
    ],
    database: true,
    // Its rules are SQL text in module constants: mutated, at the cost of running both test files for each.
    ignoreStatic: false,
  },
};

const name = process.env.MUTATION_PART;
const part = name === undefined ? undefined : PARTS[name];
if (name !== undefined && !part) {
  throw new Error(`MUTATION_PART=${name}: not one of ${Object.keys(PARTS).join(', ')}`);
}
// Without a part: every part whose tests need no database, in one run (as before the parts existed).
const unitParts = Object.values(PARTS).filter((p) => !p.database);
// Read by jest.mutation.config.js in Stryker's test-runner processes, which inherit the environment.
process.env.MUTATION_TESTS = (part ? part.tests : unitParts.flatMap((p) => p.tests)).join(',');
const report = `reports/mutation/${name ?? 'mutation'}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: { configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  // The repo's jest runs as ESM (package.json "jest" script).
  testRunnerNodeArgs: ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'],
  coverageAnalysis: 'perTest',
  // Top-level constants (the span scanner's patterns, the vocabulary's tables) would rerun every test for
  // each of their mutants: about two thirds of the run. Their behaviour is covered through the functions.
  ignoreStatic: part?.ignoreStatic ?? true,
  // No TypeScript checker: in this monorepo its compiler follows the workspace links out of the sandbox and
  // stops ("no watcher is registered"). A mutant that would not compile runs anyway; swc strips the types.
  mutate: part ? part.mutate : [...new Set(unitParts.flatMap((p) => p.mutate))],
  // Two cores shared with other work (`-- --concurrency 1` when others are busy).
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `${report}.html` },
  jsonReporter: { fileName: `${report}.json` },
  // `-- --incremental`: a rerun tests only the mutants whose code or tests changed since this file.
  incrementalFile: `${report}.incremental.json`,
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
