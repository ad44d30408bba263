import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, withDatabase } from '../src/database/database-url';
import { callersOf, type Caller } from './support/callers';
import { startReplicatedClusters, type ReplicatedClusters } from './support/replica-cluster';
import { until } from './support/server-process';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Reads against a real streaming replica: a primary and a hot standby of it, both started here from the
 * project's embedded PostgreSQL, and two application instances sharing them and one Redis (as two
 * processes would). Replay on the replica is paused to make it lag, and the replica is shut down
 * immediately at the end.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const MAX_LAG_SECONDS = 1;

let clusters: ReplicatedClusters;
let first: TestServer;
let second: TestServer;
let reader: Caller;
const { newCaller } = callersOf(() => first);

async function startApp(databaseUrl: string, replicaUrl: string, redisUrl: string | undefined = REDIS_URL): Promise<TestServer> {
  return startServer({
    databaseUrl,
    metricsPublic: true,
    rateLimits: { perMinute: 1_000_000, burstPerSecond: 1_000_000, userPerMinute: 1_000_000, redisUrl },
    readReplicas: { urls: [replicaUrl], maxLagSeconds: MAX_LAG_SECONDS },
  });
}

beforeAll(async () => {
  clusters = await startReplicatedClusters(mkdtempSync(join(tmpdir(), 'platform-replicas-')));
  await ensureDatabase(clusters.primaryUrl, 'platform');
  const databaseUrl = withDatabase(clusters.primaryUrl, 'platform');
  const replicaUrl = withDatabase(clusters.replicaUrl, 'platform');
  first = await startApp(databaseUrl, replicaUrl);
  second = await startApp(databaseUrl, replicaUrl);
  reader = await newCaller('reader');
  await replicaUp(first);
  await replicaUp(second);
}, 180_000);

afterAll(async () => {
  await second?.close();
  await first?.close();
  await clusters?.close();
}, 60_000);

/** `database_reads_total` of `server` by target. */
async function readsOf(server: TestServer): Promise<Record<string, number>> {
  const answer = await server.request('GET', '/metrics', { key: null });
  const counts: Record<string, number> = {};
  for (const [, target, value] of answer.text.matchAll(/^database_reads_total\{target="([^"]+)"\} (\d+)/gm)) counts[target] = Number(value);
  return counts;
}

async function replicaHealth(server: TestServer): Promise<{ name: string; state: string; lagSeconds: number | null }> {
  const answer = await server.request('GET', '/health', { key: null });
  return answer.body.replicas[0];
}

async function replicaUp(server: TestServer): Promise<void> {
  await until('the replica UP', async () => (await replicaHealth(server)).state === 'UP', 20_000);
}

/** What `work` added to each target's reads on `server`. */
async function readsDuring(server: TestServer, work: () => Promise<unknown>): Promise<{ primary: number; replica: number }> {
  const before = await readsOf(server);
  await work();
  const after = await readsOf(server);
  return { primary: after.primary - before.primary, replica: after['replica-0'] - before['replica-0'] };
}

async function createOrganization(server: TestServer, key: string): Promise<{ id: string; name: string }> {
  const answer = await server.request('POST', '/api/organizations', { body: { name: unique('Replicated') }, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

describe('read replicas', () => {
  it('lists the replica on /health with its lag', async () => {
    const replica = await replicaHealth(first);
    expect(replica).toEqual({ name: 'replica-0', state: 'UP', lagSeconds: expect.any(Number) });
    expect(replica.lagSeconds).toBeLessThan(MAX_LAG_SECONDS);
  });

  it('sends the reads of a caller who has written nothing to the replica', async () => {
    const reads = await readsDuring(first, async () => {
      const answer = await first.request('GET', '/api/organizations', { key: reader.key });
      expect(answer.status, answer.text).toBe(200);
    });
    expect(reads.replica).toBeGreaterThan(0);
    expect(reads.primary).toBe(0);
  });

  it('answers a write at once to its writer on another instance, while the replica has not replayed it', async () => {
    await clusters.onReplica('select pg_wal_replay_pause()');
    try {
      const written = await createOrganization(first, first.adminKey);
      // The same caller (its key) on the other instance: their position came through Redis.
      const reads = await readsDuring(second, async () => {
        const answer = await second.request('GET', `/api/organizations/${written.id}`, { key: first.adminKey });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.name).toBe(written.name);
      });
      expect(reads.primary).toBeGreaterThan(0);
      expect(reads.replica).toBe(0);
      const onReplica = await clusters.onReplica(`select 1 from organization where id = '${written.id}'`, 'platform');
      expect(onReplica.rowCount).toBe(0);
    } finally {
      await clusters.onReplica('select pg_wal_replay_resume()');
    }
  });

  it('answers a GraphQL mutation at once to its writer on another instance, and a GraphQL query goes to the replica', async () => {
    const query = await readsDuring(first, () => first.graphqlData('{ organizations { totalElements } }', undefined, reader.key));
    expect(query).toEqual({ primary: 0, replica: expect.any(Number) });
    expect(query.replica).toBeGreaterThan(0);
    await clusters.onReplica('select pg_wal_replay_pause()');
    try {
      const name = unique('Mutated');
      const created = await first.graphqlData<{ createOrganization: { id: string } }>(
        'mutation($input: OrganizationCreateRequest!) { createOrganization(input: $input) { id } }',
        { input: { name } },
        first.adminKey,
      );
      const read = await second.graphqlData<{ organization: { name: string } }>(
        'query($id: ID!) { organization(id: $id) { name } }',
        { id: created.createOrganization.id },
        first.adminKey,
      );
      expect(read.organization.name).toBe(name);
    } finally {
      await clusters.onReplica('select pg_wal_replay_resume()');
    }
  });

  it('answers a write at once to its writer without Redis, from the positions the process keeps', async () => {
    const alone = await startApp(withDatabase(clusters.primaryUrl, 'platform'), withDatabase(clusters.replicaUrl, 'platform'), undefined);
    try {
      await replicaUp(alone);
      await clusters.onReplica('select pg_wal_replay_pause()');
      const written = await createOrganization(alone, alone.adminKey);
      const reads = await readsDuring(alone, async () => {
        const answer = await alone.request('GET', `/api/organizations/${written.id}`, { key: alone.adminKey });
        expect(answer.status, answer.text).toBe(200);
      });
      expect(reads).toEqual({ primary: expect.any(Number), replica: 0 });
      expect(reads.primary).toBeGreaterThan(0);
    } finally {
      await clusters.onReplica('select pg_wal_replay_resume()');
      await alone.close();
    }
  });

  it("sends the writer's reads back to the replica once it has replayed the write", async () => {
    const written = await createOrganization(second, first.adminKey);
    const readOnReplica = async () => {
      const reads = await readsDuring(first, async () => {
        const answer = await first.request('GET', `/api/organizations/${written.id}`, { key: first.adminKey });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.name).toBe(written.name);
      });
      return reads.replica > 0;
    };
    // As soon as the next poll of the replica finds the write replayed.
    await until("the writer's read on the replica", readOnReplica, 5_000);
  });

  it('skips a replica lagging more than REPLICA_MAX_LAG_SECONDS, and uses it again once it catches up', async () => {
    await clusters.onReplica('select pg_wal_replay_pause()');
    try {
      // The primary moves on; the paused replica does not.
      await createOrganization(first, first.adminKey);
      await until('the replica LAGGING', async () => (await replicaHealth(first)).state === 'LAGGING', 10_000);
      expect((await replicaHealth(first)).lagSeconds).toBeGreaterThan(MAX_LAG_SECONDS);
      const reads = await readsDuring(first, async () => {
        expect((await first.request('GET', '/api/organizations', { key: reader.key })).status).toBe(200);
      });
      expect(reads).toEqual({ primary: expect.any(Number), replica: 0 });
      expect(reads.primary).toBeGreaterThan(0);
    } finally {
      await clusters.onReplica('select pg_wal_replay_resume()');
    }
    await replicaUp(first);
    const reads = await readsDuring(first, async () => {
      expect((await first.request('GET', '/api/organizations', { key: reader.key })).status).toBe(200);
    });
    expect(reads.replica).toBeGreaterThan(0);
  });

  it('answers within 5 s, without an error, while the replica stops answering, and uses it again once it answers', async () => {
    const path = '/api/organizations';
    expect((await first.request('GET', path, { key: reader.key })).status).toBe(200);
    clusters.freezeReplica(true);
    try {
      const started = Date.now();
      const answer = await first.request('GET', path, { key: reader.key });
      expect(answer.status, answer.text).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await replicaHealth(first)).state).toBe('DOWN');
      const reads = await readsDuring(first, async () => {
        expect((await first.request('GET', path, { key: reader.key })).status).toBe(200);
      });
      expect(reads).toEqual({ primary: expect.any(Number), replica: 0 });
    } finally {
      clusters.freezeReplica(false);
    }
    await replicaUp(first);
  });

  it('answers every caller within 5 s, without an error, when the replica stops mid-run', async () => {
    const path = '/api/organizations';
    expect((await first.request('GET', path, { key: reader.key })).status).toBe(200);
    clusters.stopReplica();
    for (const server of [first, second]) {
      const started = Date.now();
      const answer = await server.request('GET', path, { key: reader.key });
      expect(answer.status, answer.text).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    await until('the replica DOWN', async () => (await replicaHealth(first)).state === 'DOWN', 5_000);
    expect(await replicaHealth(first)).toEqual({ name: 'replica-0', state: 'DOWN', lagSeconds: null });
    const reads = await readsDuring(first, async () => {
      expect((await first.request('GET', path, { key: reader.key })).status).toBe(200);
    });
    expect(reads).toEqual({ primary: expect.any(Number), replica: 0 });
    expect((await first.request('GET', '/health', { key: null })).status).toBe(200);
  });
});

describe('replica settings', () => {
  /** The built server with `env` (it stops before connecting anywhere): its exit code and output. */
  function start(env: Record<string, string>): { status: number | null; output: string } {
    const run = spawnSync(process.execPath, [join(__dirname, '..', 'dist', 'src', 'main.js')], {
      // Its refusal is a log line: shown whatever level the suite runs at (tests log nothing by default).
      env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', LOG_LEVEL: 'error', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  }

  it.each([['mysql://db.example:3306/platform'], ['postgres://replica-a:5432/platform,,postgres://replica-b/platform'], ['not a url']])(
    'refuses DATABASE_REPLICA_URLS=%s at start, naming the variable',
    (urls) => {
      const run = start({ DATABASE_REPLICA_URLS: urls });
      expect(run.status).toBe(1);
      expect(run.output).toContain('DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs');
    },
  );

  it('refuses a REPLICA_MAX_LAG_SECONDS that is no positive number, naming the variable', () => {
    const run = start({ DATABASE_REPLICA_URLS: 'postgres://replica:5432/platform', REPLICA_MAX_LAG_SECONDS: '-1' });
    expect(run.status).toBe(1);
    expect(run.output).toContain('REPLICA_MAX_LAG_SECONDS must be a positive number of seconds');
  });
});
