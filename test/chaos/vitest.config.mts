import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The chaos suite (npm run test:chaos): the built server against a PostgreSQL cluster and a Redis each
 * test starts, stops and kills itself. Slow, so apart from the main suite; one file at a time (they
 * count the server's log lines and time its recoveries, which a loaded machine would blur).
 */
export default defineConfig({
  root,
  test: {
    include: ['test/chaos/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
    pool: 'forks',
    fileParallelism: false,
  },
});
