import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { withDatabase } from '../../src/database/database-url';
import { startEmbeddedPostgres, type RunningDatabase } from '../../src/database/embedded-postgres';
import { projectRoot } from '../../src/database/project-root';
import { freePort } from './server-process';

/** A primary and one streaming replica of it, both clusters of the project's embedded PostgreSQL. */
export interface ReplicatedClusters {
  /** The primary's maintenance database (postgres). */
  primaryUrl: string;
  /** The replica's maintenance database. */
  replicaUrl: string;
  /** Runs `sql` on the replica (pg_wal_replay_pause() and the like), in `database` (default postgres). */
  onReplica(sql: string, database?: string): Promise<pg.QueryResult>;
  /** Stops (SIGSTOP) or resumes (SIGCONT) every process of the replica: it stops answering, its connections open. */
  freezeReplica(frozen: boolean): void;
  /** The replica's immediate shutdown: its connections are cut, as when its machine goes away. */
  stopReplica(): void;
  close(): Promise<void>;
}

/** pg_ctl of the embedded PostgreSQL package, beside the postgres executable startEmbeddedPostgres runs. */
function pgCtl(): string {
  const fromPackage = createRequire(createRequire(join(projectRoot, 'package.json')).resolve('embedded-postgres'));
  const entry = fromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  return join(dirname(entry), '..', 'native', 'bin', 'pg_ctl');
}

/** As root, PostgreSQL runs as the `postgres` user (startEmbeddedPostgres creates it). */
function runAsPostgres(file: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  return execFileSync(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, { encoding: 'utf8', stdio: 'pipe' });
}

/**
 * The primary is started, stopped cleanly and copied: a cluster shut down cleanly is a consistent base
 * backup (what pg_basebackup would take from it running), and the project ships no pg_basebackup of its
 * PostgreSQL version. The copy starts as a hot standby (standby.signal, primary_conninfo as
 * `pg_basebackup -R` writes them) streaming from the primary, whose defaults allow it (wal_level replica,
 * max_wal_senders, a `replication` line in pg_hba.conf).
 */
export async function startReplicatedClusters(dir: string): Promise<ReplicatedClusters> {
  const primaryDir = join(dir, 'primary');
  const replicaData = join(dir, 'replica', 'postgres');
  await (await startEmbeddedPostgres(primaryDir)).stop();
  execFileSync('mkdir', ['-p', dirname(replicaData)]);
  execFileSync('cp', ['-a', join(primaryDir, 'postgres'), replicaData]);
  const primary: RunningDatabase = await startEmbeddedPostgres(primaryDir);
  const primaryPort = new URL(primary.serverUrl).port;
  // The copy is of the same cluster: its postgres user has the primary's password.
  const password = decodeURIComponent(new URL(primary.serverUrl).password);
  rmSync(join(replicaData, 'started-by.pid'), { force: true });
  writeFileSync(join(replicaData, 'standby.signal'), '');
  appendFileSync(join(replicaData, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=${password}'\n`);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dirname(replicaData)]);
  const replicaPort = await freePort();
  const options = `-p ${replicaPort} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c lc_messages=C`;
  runAsPostgres(pgCtl(), ['-D', replicaData, '-l', join(replicaData, 'replica.log'), '-w', '-t', '60', '-o', options, 'start']);
  const replicaUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${replicaPort}/postgres`;
  let replicaRunning = true;
  return {
    primaryUrl: primary.serverUrl,
    replicaUrl,
    async onReplica(sql, database = 'postgres') {
      const client = new pg.Client({ connectionString: withDatabase(replicaUrl, database) });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    },
    freezeReplica(frozen) {
      const postmaster = Number(readFileSync(join(replicaData, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map(Number);
      for (const pid of [postmaster, ...children]) process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT');
    },
    stopReplica() {
      runAsPostgres(pgCtl(), ['-D', replicaData, '-m', 'immediate', 'stop']);
      replicaRunning = false;
    },
    async close() {
      if (replicaRunning) runAsPostgres(pgCtl(), ['-D', replicaData, '-m', 'fast', 'stop']);
      await primary.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
