import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { withDatabase } from '../../src/database/database-url';
import { startEmbeddedPostgres, type RunningDatabase } from '../../src/database/embedded-postgres';
import { openDatabase } from '../../src/database/orm';

/** For `npm run bench:replicas`: a primary and streaming replicas of it, all real PostgreSQL clusters of the project's own binaries. */
export interface ReplicatedDatabase {
  /** The platform database on the primary, migrated. */
  primaryUrl: string;
  /** The same database on the first replica. */
  replicaUrl: string;
  /** On each replica. */
  replicaUrls: string[];
  /** Stops replaying WAL on the first replica (it then lags as the primary writes). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the first replica (fast shutdown: its connections are cut). */
  stopReplica(): Promise<void>;
  close(): Promise<void>;
}

const DATABASE = 'platform';

/**
 * Starts a primary in `dir`, migrates its platform database, then makes `count` replicas from copies of
 * its data folder taken while it is stopped (what pg_basebackup copies while it runs), each started with
 * standby.signal and primary_conninfo naming the primary: they stream the primary's WAL from then on.
 */
export async function startReplicatedDatabase(dir: string, count = 1): Promise<ReplicatedDatabase> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const primaryDir = join(dir, 'primary');
  let primary: RunningDatabase = await startEmbeddedPostgres(primaryDir);
  await createDatabase(primary.serverUrl);
  await (await openDatabase(withDatabase(primary.serverUrl, DATABASE))).close();
  await primary.stop();

  const copies = Array.from({ length: count }, (_, index) => join(dir, `replica-${index}`));
  for (const copy of copies) {
    mkdirSync(copy);
    execFileSync('cp', ['-a', join(primaryDir, 'postgres'), join(copy, 'postgres')]);
  }
  primary = await startEmbeddedPostgres(primaryDir);
  const { port, password } = new URL(primary.serverUrl);
  const replicas: (RunningDatabase | undefined)[] = [];
  for (const copy of copies) {
    const cluster = join(copy, 'postgres');
    for (const file of ['postmaster.pid', 'started-by.pid']) rmSync(join(cluster, file), { force: true });
    writeFileSync(join(cluster, 'standby.signal'), '');
    appendFileSync(
      join(cluster, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${port} user=postgres password=${decodeURIComponent(password)}'\n`,
    );
    replicas.push(await startEmbeddedPostgres(copy));
  }
  const replicaUrls = replicas.map((replica) => withDatabase(replica!.serverUrl, DATABASE));
  const replicaUrl = replicaUrls[0];

  const onReplica = async (sql: string) => {
    const client = new pg.Client({ connectionString: replicaUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    primaryUrl: withDatabase(primary.serverUrl, DATABASE),
    replicaUrl,
    replicaUrls,
    pauseReplay: () => onReplica('select pg_wal_replay_pause()'),
    resumeReplay: () => onReplica('select pg_wal_replay_resume()'),
    stopReplica: async () => {
      await replicas[0]?.stop();
      replicas[0] = undefined;
    },
    close: async () => {
      for (const replica of replicas) await replica?.stop();
      await primary.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function createDatabase(serverUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}
