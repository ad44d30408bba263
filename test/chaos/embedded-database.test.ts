import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PASSWORD_FILE } from '../../src/database/embedded-postgres';
import { projectRoot } from '../../src/database/project-root';
import { generateApiKey } from '../../src/modules/access/api-keys';
import { startServerProcess, until, type ServerProcess } from '../support/server-process';
import { expectCall } from './support/client';

/**
 * The embedded PostgreSQL (no DATABASE_URL): it listens on 127.0.0.1 only with a random password kept in
 * its folder (mode 0600), a cluster made with the former fixed password gets a random one and keeps
 * working, and when PostgreSQL dies the server stops with a non-zero exit status.
 */
const adminKey = generateApiKey();
const asRoot = process.getuid?.() === 0;
const started: ServerProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const server of started.splice(0)) await server.stop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function dataFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'platform-chaos-embedded-'));
  folders.push(folder);
  return folder;
}

async function startEmbedded(dataDir: string): Promise<ServerProcess> {
  // An empty DATABASE_URL is no DATABASE_URL: the embedded database starts.
  const server = await startServerProcess({
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    BOOTSTRAP_API_KEY: adminKey,
    SHUTDOWN_GRACE_SECONDS: '2',
    WORKER_CONCURRENCY: '1',
  });
  started.push(server);
  return server;
}

/** The process id and port postmaster.pid names (its first and fourth lines). */
function postmaster(dataDir: string): { pid: number; port: number } {
  const lines = readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/** Signs in as postgres with `password`: the error's SQLSTATE when refused, else what `sql` answers. */
async function signIn(port: number, password: string, sql = 'select 1 as one'): Promise<{ refused?: string; rows?: Record<string, unknown>[] }> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await client.connect();
    return { rows: (await client.query(sql)).rows };
  } catch (error) {
    return { refused: (error as { code?: string }).code ?? String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function storedPassword(dataDir: string): { password: string; mode: number } {
  const file = join(dataDir, 'postgres', PASSWORD_FILE);
  return { password: readFileSync(file, 'utf8').trim(), mode: statSync(file).mode & 0o777 };
}

/** A cluster as servers made it before each had a random password: initdb with the password `postgres`. */
function formerCluster(dataDir: string): void {
  const fromPackage = createRequire(createRequire(join(projectRoot, 'package.json')).resolve('embedded-postgres'));
  const initdb = join(dirname(fromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`)), '..', 'native', 'bin', 'initdb');
  const cluster = join(dataDir, 'postgres');
  const passwordFile = join(dataDir, 'former-password');
  mkdirSync(cluster);
  writeFileSync(passwordFile, 'postgres\n');
  const args = [`--pgdata=${cluster}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'];
  if (asRoot) {
    const owner = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    chmodSync(dataDir, 0o711);
    chownSync(cluster, Number(owner), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
    chmodSync(passwordFile, 0o644);
    execFileSync('runuser', ['-u', 'postgres', '--', initdb, ...args], { stdio: 'pipe' });
  } else {
    execFileSync(initdb, args, { stdio: 'pipe' });
  }
  rmSync(passwordFile);
}

describe('the embedded PostgreSQL', () => {
  it('keeps a random password in its folder (mode 0600), refuses `postgres`, and listens on 127.0.0.1 only', async () => {
    const dataDir = dataFolder();
    const server = await startEmbedded(dataDir);
    await expectCall(server.url, adminKey, 'POST', '/api/organizations', { name: 'Embedded' }, 201);

    const { password, mode } = storedPassword(dataDir);
    expect(mode).toBe(0o600);
    expect(password).not.toBe('postgres');
    expect(password.length).toBeGreaterThanOrEqual(24);
    const { port } = postmaster(dataDir);
    expect(await signIn(port, 'postgres')).toEqual({ refused: '28P01' });
    expect(await signIn(port, password, 'show listen_addresses')).toEqual({ rows: [{ listen_addresses: '127.0.0.1' }] });

    // The next start signs in with the kept password.
    expect((await server.stop()).code).toBe(0);
    const again = await startEmbedded(dataDir);
    await expectCall(again.url, adminKey, 'GET', '/api/organizations', undefined, 200);
    expect(storedPassword(dataDir).password).toBe(password);
  });

  it('replaces the former fixed password of an existing cluster with a random one, and its data stays served', async () => {
    const dataDir = dataFolder();
    formerCluster(dataDir);
    expect(existsSync(join(dataDir, 'postgres', PASSWORD_FILE))).toBe(false);
    const server = await startEmbedded(dataDir);
    const organization = await expectCall(server.url, adminKey, 'POST', '/api/organizations', { name: 'Former' }, 201);

    const { password, mode } = storedPassword(dataDir);
    expect(mode).toBe(0o600);
    expect(password).not.toBe('postgres');
    const { port } = postmaster(dataDir);
    expect(await signIn(port, 'postgres')).toEqual({ refused: '28P01' });
    expect((await signIn(port, password)).rows).toEqual([{ one: 1 }]);
    expect(server.output()).toContain('the embedded PostgreSQL had the former fixed password');

    expect((await server.stop()).code).toBe(0);
    const again = await startEmbedded(dataDir);
    await expectCall(again.url, adminKey, 'GET', `/api/organizations/${organization.id}`, undefined, 200);
  });

  it('stops the server with a non-zero exit status when PostgreSQL is killed', async () => {
    const dataDir = dataFolder();
    const server = await startEmbedded(dataDir);
    await expectCall(server.url, adminKey, 'POST', '/api/organizations', { name: 'Killed' }, 201);
    process.kill(postmaster(dataDir).pid, 'SIGKILL');
    const exit = await server.exited;
    expect(exit.signal).toBeNull();
    expect(exit.code, server.output()).not.toBe(0);
    expect(server.output()).toContain('the embedded PostgreSQL stopped unexpectedly');
    // Drained and released in order, not ended for want of work halfway.
    expect(server.output()).toMatch(/"signal":"embedded database stopped","msg":"stopped"/);
    // Within the grace period (2 s) and the release's time, not whenever someone notices.
    await until('nothing to listen on the port any more', async () => (await fetch(`${server.url}/health/live`).catch(() => undefined)) === undefined, 5_000);
  });
});
