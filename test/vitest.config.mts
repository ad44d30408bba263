import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  root,
  resolve: {
    // One copy of graphql for type-graphql, Apollo and the tests ("another module or realm").
    alias: { graphql: fileURLToPath(new URL('../node_modules/graphql/index.js', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The chaos suite has a configuration of its own (npm run test:chaos).
    exclude: ['test/chaos/**', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
    pool: 'forks',
    // The reliability suite's figures (cases, refusals by status, writes acknowledged and lost), after the usual report.
    reporters: ['default', './test/reliability/summary-reporter.ts'],
  },
});
