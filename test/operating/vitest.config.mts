import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm run test:operating`: a release installed as an operator installs it (npm ci --omit=dev in a
 * clean folder, then npm start) and the Dockerfile's steps run without a container engine. Each test
 * installs packages from the npm registry: one file at a time, minutes each.
 */
export default defineConfig({
  root,
  test: {
    include: ['test/operating/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    env: { NODE_ENV: 'test' },
    pool: 'forks',
    fileParallelism: false,
  },
});
