import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, until } from '../support/server-process';
import { buildStages, parseDockerfile, type Instruction, type Stage } from './support/dockerfile';
import { operatorEnv, removeFolder, ROOT, run, scratchFolder, signalGroup, startDetached, statusOf, type Running } from './support/release';

/**
 * The Dockerfile's steps as CI runs them without a container engine (see support/dockerfile.ts): both
 * stages built in a clean folder, then the image's CMD run as the image's USER (by number, through
 * setpriv), with its ENV, and its HEALTHCHECK command asked before, while and after it serves. Needs
 * root (to build as a build does and to switch users); elsewhere the suite says why it skips.
 */

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(dockerfile);
const canSwitchUsers = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');

let folder: string;
let image: Stage;
let server: Running | undefined;

/** `command` as the image's user (setpriv switches, then becomes the command: same process). */
function asImageUser(command: string[]): [string, string[]] {
  const { uid, gid } = image.user!;
  return ['setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', ...command]];
}

/** The image's ENV and `env` (the run's -e options). */
function imageEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return operatorEnv({ ...image.env, ...env });
}

async function healthcheck(env: Record<string, string>): Promise<number | null> {
  const [command, args] = asImageUser(image.healthcheck!.command);
  return (await run(command, args, { cwd: image.workdir.host, env: imageEnv(env), timeoutMs: 30_000 })).code;
}

describe('the Dockerfile, read', () => {
  const last = (keyword: string): Instruction | undefined => instructions.filter((instruction) => instruction.keyword === keyword).at(-1);

  it('has a build stage and a runtime stage; the runtime runs as a non-root user, checks /health/live, and runs the server itself', () => {
    expect(instructions.filter((instruction) => instruction.keyword === 'FROM')).toHaveLength(2);
    expect(last('USER')?.text).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(last('HEALTHCHECK')?.text).toContain('/health/live');
    expect(JSON.parse(last('CMD')!.text)).toEqual(['node', '--max-semi-space-size=32', 'dist/src/main.js']);
    expect(instructions.some((instruction) => instruction.keyword === 'COPY' && instruction.text.startsWith('--from=build '))).toBe(true);
  });

  it('is based on the Node.js major version of .nvmrc', () => {
    const major = readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim().replace(/^v/, '').split('.')[0];
    expect(dockerfile).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${major}-`, 'm'));
  });

  it('copies nothing that .dockerignore leaves out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#') && !line.startsWith('!'));
    const copied = instructions
      .filter((instruction) => instruction.keyword === 'COPY' && !instruction.text.startsWith('--from='))
      .flatMap((instruction) => instruction.text.split(/\s+/).slice(0, -1));
    expect(copied.filter((source) => ignored.includes(source.split('/')[0]))).toEqual([]);
    for (const excluded of ['node_modules', 'dist', '.git', '.data', '.env']) expect(ignored).toContain(excluded);
  });
});

describe.skipIf(!canSwitchUsers)('the Dockerfile, run step by step in a clean folder (as root, the server as the image user)', () => {
  beforeAll(async () => {
    folder = scratchFolder('platform-image-');
    const stages = await buildStages(instructions, { context: ROOT, folder, env: operatorEnv() });
    image = stages.at(-1)!;
  });

  afterAll(() => {
    signalGroup(server, 'SIGKILL');
    removeFolder(folder);
  });

  it('holds the compiled server and the production dependencies only', () => {
    expect(existsSync(join(image.workdir.host, 'dist', 'src', 'main.js'))).toBe(true);
    expect(existsSync(join(image.workdir.host, 'node_modules', 'express'))).toBe(true);
    for (const devOnly of ['vitest', 'eslint', '@types/express']) expect(existsSync(join(image.workdir.host, 'node_modules', devOnly)), devOnly).toBe(false);
    expect(existsSync(join(image.workdir.host, 'src'))).toBe(false);
    expect(statSync(image.env.DATA_DIR).uid).toBe(image.user!.uid);
  });

  it('serves as the image user: HEALTHCHECK fails before, passes while it serves, fails after; SIGTERM ends it with status 0', async () => {
    const port = await freePort();
    // As `docker run -e PORT=... -e DATABASE_URL=...` (the compose file's PostgreSQL).
    const env = { PORT: String(port), DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'info' };
    expect(await healthcheck(env)).not.toBe(0);

    const [command, args] = asImageUser(image.command!);
    server = startDetached(command, args, { cwd: image.workdir.host, env: imageEnv(env) });
    await until(
      'the image server to answer /health/live',
      async () => {
        if (server!.child.exitCode !== null) throw new Error(`the server exited with ${server!.child.exitCode}:\n${server!.output()}`);
        return (await statusOf(`http://127.0.0.1:${port}/health/live`)) === 200;
      },
      120_000,
    );
    expect(await healthcheck(env)).toBe(0);
    // The server itself (setpriv became it) runs as the image's user, not root.
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1];
    expect(Number(uid)).toBe(image.user!.uid);
    // Without SECRETS_KEY the key is generated into DATA_DIR: the volume is the user's to write.
    expect(statSync(join(image.env.DATA_DIR, 'secrets.key')).uid).toBe(image.user!.uid);

    signalGroup(server, 'SIGTERM');
    expect(await server.exited, server.output()).toMatchObject({ code: 0, signal: null });
    expect(await healthcheck(env)).not.toBe(0);
  });

  it('the user cannot change the server it runs (dist/ and node_modules/ are root’s)', () => {
    const [command, args] = asImageUser(['sh', '-c', 'touch dist/src/main.js']);
    expect(() => execFileSync(command, args, { cwd: image.workdir.host, stdio: 'ignore' })).toThrow();
  });
});
