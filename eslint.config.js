import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/dist/**', 'coverage/**', 'test-artifacts/**', '.tmp/**', '**/*-tmp.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', Response: 'readonly', Request: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly', performance: 'readonly', window: 'readonly', document: 'readonly', localStorage: 'readonly', EventSource: 'readonly', navigator: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // A test that starts a daemon gets it through test/fixtures/daemon.ts, which waits for the
    // plugins to settle unless the test says it wants them still starting (`unsettled: true`).
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    ignores: ['test/fixtures/daemon.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/daemon/index.js'], importNames: ['startDaemon'], message: 'Use startTestDaemon from test/fixtures/daemon.ts: it waits for the plugins to settle (opt out with `unsettled: true`).' }] }],
    },
  },
);
