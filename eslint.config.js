import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

import linearRegex from './test/lint/linear-regex.rule.mjs';

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
