// Mutation check of the pipeline's core: `npm run mutation` (docs/testing.md). Not part of `npm test`:
// a run takes tens of minutes on this machine (docs/decisions.md).
// Stryker copies the repo to .stryker-tmp/, mutates the files below one change at a time, and runs the
// unit tests that cover each change (jest.mutation.config.js); a mutant no test notices survives.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: { configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  // The repo's jest runs as ESM (package.json "jest" script).
  testRunnerNodeArgs: ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'],
  coverageAnalysis: 'perTest',
  // Top-level constants (the span scanner's patterns, the vocabulary's tables) would rerun every test for
  // each of their mutants: about two thirds of the run. Their behaviour is covered through the functions.
  ignoreStatic: true,
  // No TypeScript checker: in this monorepo its compiler follows the workspace links out of the sandbox and
  // stops ("no watcher is registered"). A mutant that would not compile runs anyway; swc strips the types.
  mutate: [
    'services/worker/src/plan-translations/plan-translations.ts',
    'services/worker/src/plan-translations/check-content-change.ts',
    'services/translator/src/chain/chain.ts',
    'services/translator/src/chain/pivot-routes.ts',
    'services/translator/src/chain/pair-directory.ts',
    'services/translator/src/chain/protected-spans.ts',
    'services/translator/src/chain/span-scanner.ts',
    'services/gateway/src/content/read-content/merge-content.ts',
    'services/gateway/src/content/read-content/language-chain.ts',
    'libs/pipeline/src/content/*.ts',
    '!libs/pipeline/src/content/index.ts',
    // SQL through the ORM, tested at the int tier like the projection writer.
    '!libs/pipeline/src/content/content-reports.ts',
    '!**/*.test.ts',
  ],
  // Two cores shared with other work.
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
