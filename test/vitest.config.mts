import { configDefaults, defineConfig } from 'vitest/config';
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
    // Slow suites run once by CI with configurations of their own: the production install and the
    // image's steps (npm run test:operating), the chaos suite (npm run test:chaos).
    exclude: [...configDefaults.exclude, 'test/operating/**', 'test/chaos/**'],
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
