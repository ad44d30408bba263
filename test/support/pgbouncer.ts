import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, until } from './server-process';

/** Where Debian's package (`apt-get install -y pgbouncer`) puts the binary, else the PATH's. */
export function findPgBouncer(): string | undefined {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

/** CI must run the pooler suite: there a missing pgbouncer is a failure, not a reason to skip. */
export const PGBOUNCER_REQUIRED = Boolean(process.env.CI) || process.env.PGBOUNCER_REQUIRED === '1';

export interface PgBouncer {
  /** A client URL of the pooled database (`pooled`), as user postgres. */
  url: string;
  /** A statement of PgBouncer's admin console (SHOW POOLS, SHOW CLIENTS ...): its rows. */
  admin<R = Record<string, unknown>>(command: string): Promise<R[]>;
  output(): string;
  stop(): Promise<void>;
}

/** The one database name clients use; PgBouncer forwards it to the target database. */
const POOLED_DATABASE = 'pooled';

/**
 * A PgBouncer of the test's own, in transaction mode with `poolSize` server connections, in front of the
 * database of `targetUrl` (its host, port, user and password), on a free port of 127.0.0.1. Clients log
 * in as postgres without a password (auth_type trust); PgBouncer logs in to PostgreSQL with the target's
 * credentials. PgBouncer refuses to run as root: as root it drops to the user postgres (or nobody).
 */
export async function startPgBouncer(binary: string, targetUrl: string, poolSize: number): Promise<PgBouncer> {
  const target = new URL(targetUrl);
  const folder = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  // Readable by the user PgBouncer drops to.
  chmodSync(folder, 0o755);
  const port = await freePort();
  const server = [
    `host=${target.hostname}`,
    `port=${target.port || 5432}`,
    `dbname=${decodeURIComponent(target.pathname.slice(1))}`,
    `user=${decodeURIComponent(target.username) || 'postgres'}`,
    ...(target.password ? [`password=${decodeURIComponent(target.password)}`] : []),
  ].join(' ');
  const config = join(folder, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `${POOLED_DATABASE} = ${server}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(folder, 'users.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  writeFileSync(join(folder, 'users.txt'), '"postgres" ""\n', { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', unprivilegedUser()] : []), config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const url = `postgres://postgres@127.0.0.1:${port}/${POOLED_DATABASE}`;
  const admin = async <R>(command: string): Promise<R[]> => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/pgbouncer` });
    await client.connect();
    try {
      return (await client.query(command)).rows as R[];
    } finally {
      await client.end();
    }
  };
  await until('pgbouncer to listen', async () => {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${output}`);
    return admin('show version').then(
      () => true,
      () => false,
    );
  });
  return {
    url,
    admin,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function unprivilegedUser(): string {
  return spawnSync('id', ['-u', 'postgres']).status === 0 ? 'postgres' : 'nobody';
}
