import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, until } from '../support/server-process';
import { copyRelease, operatorEnv, removeFolder, run, scratchFolder, signalGroup, startDetached, statusOf, type Running } from './support/release';

/**
 * A release installed as an operator installs it: the repository's files with the dist/ built for
 * them, in a clean folder, `npm ci --omit=dev` (no development dependency: nothing to build with),
 * then `npm start`, which serves from the dist/ it was given.
 */

let folder: string;
let release: string;
let server: Running | undefined;

beforeAll(async () => {
  folder = scratchFolder('platform-release-');
  release = join(folder, 'platform-api');
  copyRelease(release);
  const install = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: release, env: operatorEnv(), timeoutMs: 600_000 });
  expect(install.code, install.output).toBe(0);
});

afterAll(async () => {
  signalGroup(server, 'SIGKILL');
  removeFolder(folder);
});

describe('npm ci --omit=dev, then npm start', () => {
  it('installs the production dependencies only', () => {
    expect(existsSync(join(release, 'node_modules', 'express'))).toBe(true);
    // TypeScript may be there (an optional peer of a production dependency); the type packages are not.
    for (const devOnly of ['vitest', 'eslint', '@types/express']) expect(existsSync(join(release, 'node_modules', devOnly)), devOnly).toBe(false);
  });

  it('serves from the dist/ of the release: /health/live and /health answer 200, and SIGTERM stops it with status 0', async () => {
    const port = await freePort();
    server = startDetached('npm', ['start'], {
      cwd: release,
      env: operatorEnv({ PORT: String(port), DATABASE_URL: inject('databaseUrl'), DATA_DIR: join(folder, 'data'), LOG_LEVEL: 'info' }),
    });
    await until(
      'the installed server to answer /health/live',
      async () => {
        if (server!.child.exitCode !== null) throw new Error(`npm start exited with ${server!.child.exitCode}:\n${server!.output()}`);
        return (await statusOf(`http://127.0.0.1:${port}/health/live`)) === 200;
      },
      120_000,
    );
    expect(await statusOf(`http://127.0.0.1:${port}/health`)).toBe(200);
    // The start compiled nothing: a production install does not build.
    expect(server.output()).not.toMatch(/is up to date|error TS/);
    signalGroup(server, 'SIGTERM');
    expect(await server.exited, server.output()).toMatchObject({ code: 0, signal: null });
  });

  it('without dist/ (a release shipped unbuilt), npm start fails at once with one line saying where dist/ comes from', async () => {
    renameSync(join(release, 'dist'), join(release, 'dist-aside'));
    try {
      const start = await run('npm', ['start', '--silent'], { cwd: release, env: operatorEnv({ DATABASE_URL: inject('databaseUrl') }), timeoutMs: 60_000 });
      expect(start.code).not.toBe(0);
      expect(start.output.trim().split('\n')).toEqual([
        'dist/src/main.js is missing, and a production install (npm ci --omit=dev) cannot build it: run `npm ci && npm run build` where the development dependencies are installed and ship dist/ with the release, or run the image (docs/deployment.md)',
      ]);
    } finally {
      renameSync(join(release, 'dist-aside'), join(release, 'dist'));
    }
  });
});
