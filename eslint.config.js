import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

import linearRegex from './test/lint/linear-regex.rule.mjs';
import tableOwner from './test/lint/table-owner.rule.mjs';

/** Each table and the module (a folder or a file) that holds all of its SQL. */
const CONTENT_STORE = ['libs/pipeline/src/content-store/'];
const TABLE_OWNERS = {
  api_keys: ['services/gateway/src/auth/api-key.store.ts'],
  chat_usage: ['services/gateway/src/chat/usage/chat-usage.store.ts'],
  content_deletions: CONTENT_STORE,
  content_reports: CONTENT_STORE,
  content_translations: CONTENT_STORE,
  dead_letters: ['libs/pipeline/src/dead-letter-index/'],
  glossaries: ['libs/db/src/glossaries/'],
  glossary_deletions: ['libs/db/src/glossaries/'],
  key_budget_usage: ['services/gateway/src/keys/budgets/budget.store.ts'],
  moderation_terms: ['services/gateway/src/moderation/terms/moderation-term.store.ts'],
  nli_config: ['services/nli/src/config/nli-config.store.ts'],
  outbox: ['libs/db/src/outbox/'],
  source_contents: CONTENT_STORE,
  translation_backfills: CONTENT_STORE,
  translation_config: CONTENT_STORE,
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.run/**',
      'infra/kafka/lib/**',
      'coverage/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        WebSocket: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Production code: every regular expression is linear by construction or says it never sees user
    // text (test/lint/linear-regex.rule.mjs; docs/decisions.md, "Patterns on user text run in linear time").
    files: ['services/*/src/**/*.ts', 'libs/*/src/**/*.ts', 'tools/*/src/**/*.ts', 'infra/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { tp: linearRegex },
    rules: { 'tp/linear-regex': 'error' },
  },
  {
    // One owner per table (docs/decisions.md, "One owner per table"): only the module listed here names
    // the table in SQL, in any file of the repository (tests, benches and scripts included); the
    // migrations define every table.
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    plugins: { 'tp-tables': tableOwner },
    rules: {
      'tp-tables/table-owner': ['error', { owners: TABLE_OWNERS, ddl: ['infra/db/src/'] }],
    },
  },
  {
    // Functions fit on a screen (STYLE.md; issue 18): a longer one is split into named phases.
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // CLIs and the test harness talk to a terminal on purpose.
    files: ['**/*.cli.ts', 'test/**', 'scripts/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // CommonJS config files (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
