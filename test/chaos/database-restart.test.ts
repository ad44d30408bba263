import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, withDatabase } from '../../src/database/database-url';
import { generateApiKey } from '../../src/modules/access/api-keys';
import { startServerProcess, until, type ServerProcess } from '../support/server-process';
import { call, expectCall, sleep, warnings, type Answer } from './support/client';
import { createCluster, type ChaosCluster } from './support/cluster';

/**
 * The database stopped and started again under a write load, the built server running against it all
 * along: every request is answered 2xx or 503 with Retry-After and the error body (never 500, never a
 * dropped connection), a 503 comes within DATABASE_CONNECT_TIMEOUT_MS, every write acknowledged with a
 * 2xx is there afterwards, everything works again (jobs included) within 10 s of the restart, and the
 * outage costs a bounded number of log lines.
 */
const CONNECT_TIMEOUT_MS = 2_000;
/** The statuses a request may get while the database goes and comes back. */
const ACCEPTED = new Set([200, 201, 202, 503]);
/** Lines at warn or above one outage may cost: one warning per long-lived connection and per face, with room for the writes cut mid-flight. */
const MAX_WARN_LINES = 20;

const adminKey = generateApiKey();
const dataDir = mkdtempSync(join(tmpdir(), 'platform-chaos-data-'));
let cluster: ChaosCluster;
let server: ServerProcess;
let databaseUrl: string;
let projectId: string;
let triggerId: string;

const api = (method: string, path: string, body?: unknown) => call(server.url, adminKey, method, path, body);

beforeAll(async () => {
  cluster = await createCluster();
  await ensureDatabase(cluster.url, 'platform');
  databaseUrl = withDatabase(cluster.url, 'platform');
  server = await startServerProcess({
    DATABASE_URL: databaseUrl,
    BOOTSTRAP_API_KEY: adminKey,
    DATA_DIR: dataDir,
    DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    WORKER_CONCURRENCY: '2',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST_PER_SECOND: '1000000',
    RATE_LIMIT_USER_PER_MINUTE: '1000000',
  });
  const org = await expectCall(server.url, adminKey, 'POST', '/api/organizations', { name: `Chaos ${Date.now()}` }, 201);
  projectId = (await expectCall(server.url, adminKey, 'POST', '/api/projects', { name: 'Chaos', organizationId: org.id }, 201)).id;
  const plan = await expectCall(
    server.url,
    adminKey,
    'POST',
    '/api/activity-plans',
    { name: 'Double', organizationId: org.id, steps: [{ ref: 'double', stepType: 'SCRIPT', options: { expression: 'inputs.n * 2' } }] },
    201,
  );
  const trigger = await expectCall(
    server.url,
    adminKey,
    'POST',
    '/api/triggers',
    { name: 'By hand', projectId, eventKind: 'manual', activityPlanRef: `activity-plan://${org.slug}/${plan.slug}` },
    201,
  );
  triggerId = trigger.id;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  cluster?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Fires the manual trigger and waits for its activity to complete; false when it was refused or did not complete within `timeoutMs`. */
async function activityRuns(timeoutMs: number): Promise<boolean> {
  const fired = await api('POST', `/api/triggers/${triggerId}/fire`, { inputs: { n: 21 } });
  if (fired.status !== 202) return false;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const activity = await api('GET', `/api/activities/${fired.body.id}`);
    if (activity.status === 200 && activity.body.status === 'COMPLETED') return true;
    await sleep(100);
  }
  return false;
}

/** Liveness locks the job queue's workers hold (one per worker while its connection is up). */
async function livenessLocks(): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>(
      `select count(*)::int as count from pg_locks where locktype = 'advisory' and classid = $1`,
      [0x6a6f6273],
    );
    return rows[0].count;
  } finally {
    await client.end();
  }
}

describe('the database restarted under a write load', () => {
  it('answers 2xx or 503 with Retry-After, loses no acknowledged write, and is fully back within 10 s', async () => {
    expect(await activityRuns(10_000)).toBe(true);
    await until('the job workers to hold their liveness locks', async () => (await livenessLocks()) >= 2, 10_000);
    const linesBefore = warnings(server.output()).length;

    const answers: Answer[] = [];
    const created: { id: string; title: string }[] = [];
    let loading = true;
    const writer = async (lane: number) => {
      for (let n = 0; loading; n++) {
        const title = `lane ${lane} write ${n}`;
        const answer = await api('POST', '/api/tasks', { projectId, title });
        answers.push(answer);
        if (answer.status === 201) created.push({ id: answer.body.id, title });
        if (answer.status !== 201) await sleep(50);
      }
    };
    // Reads too: REST reads go through the read pool, GraphQL through its own path; neither may answer 500.
    const graphqlErrors: { code?: unknown; retryAfter: string | null }[] = [];
    const reader = async () => {
      while (loading) {
        const read = await api('GET', `/api/tasks?projectId=${projectId}&pageSize=5`);
        answers.push(read);
        const graphql = await api('POST', '/graphql', { query: '{ organizations(pageSize: 5) { content { id name } } }' });
        answers.push(graphql);
        for (const error of graphql.body?.errors ?? []) graphqlErrors.push({ code: error.extensions?.code, retryAfter: graphql.retryAfter });
        if (read.status !== 200) await sleep(50);
      }
    };
    const lanes = [...[0, 1, 2, 3].map(writer), reader(), reader()];

    await sleep(1_500);
    cluster.stop('fast');
    await sleep(3_000);
    cluster.start();
    const restartedAt = Date.now();

    // Full service: a write succeeds and an activity fired now runs to its end.
    let backAt = 0;
    await until(
      'full service after the restart',
      async () => {
        const write = await api('POST', '/api/tasks', { projectId, title: 'after the restart' });
        if (write.status !== 201 || !(await activityRuns(2_000))) return false;
        backAt = Date.now();
        return true;
      },
      20_000,
    );
    expect(backAt - restartedAt).toBeLessThan(10_000);
    await sleep(1_000);
    loading = false;
    await Promise.all(lanes);

    // Every answer was a success or a 503 with Retry-After and the error body, given in time.
    const unexpected = answers.filter((answer) => !ACCEPTED.has(answer.status));
    expect(unexpected.map((answer) => `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)).toEqual([]);
    const refusals = answers.filter((answer) => answer.status === 503);
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect(refusal.retryAfter).toMatch(/^\d+$/);
      expect(refusal.body).toMatchObject({ error: 'Service Unavailable', status: 503, message: expect.any(String) });
      expect(refusal.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 1_500);
    }

    // A GraphQL answer's errors are the same refusal, with Retry-After.
    expect(graphqlErrors.length).toBeGreaterThan(0);
    expect(graphqlErrors.filter((error) => error.code !== 'SERVICE_UNAVAILABLE' || !/^\d+$/.test(error.retryAfter ?? ''))).toEqual([]);

    // Every acknowledged write is there.
    expect(created.length).toBeGreaterThan(0);
    for (const { id, title } of created) {
      const read = await api('GET', `/api/tasks/${id}`);
      expect(read.status, `task ${id}`).toBe(200);
      expect(read.body.title).toBe(title);
    }

    // The job queue's liveness connection is back (its workers' locks held again).
    await until('the liveness locks to be held again', async () => (await livenessLocks()) >= 2, 10_000);

    // A bounded number of warnings for the whole outage.
    const lines = warnings(server.output()).slice(linesBefore);
    expect(lines.length, lines.map((line) => line.msg).join('\n')).toBeLessThanOrEqual(MAX_WARN_LINES);
    expect(server.output()).toMatch(/job queue[^"]*: connection restored/);
  });

  it('answers 503 with Retry-After within DATABASE_CONNECT_TIMEOUT_MS while connections to the database hang, and recovers', async () => {
    cluster.stop('fast');
    // A network that swallows packets: whatever connects to the database's port waits forever, the
    // server's own reconnection attempts included (they are left hanging when the database returns).
    const held: Socket[] = [];
    const blackHole = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(cluster.port, '127.0.0.1', resolve));
    try {
      const answers = await Promise.all([
        api('POST', '/api/tasks', { projectId, title: 'into the void' }),
        api('GET', `/api/tasks?projectId=${projectId}&pageSize=5`),
        api('POST', '/graphql', { query: '{ organizations(pageSize: 5) { content { id } } }' }),
      ]);
      for (const answer of answers) {
        expect(answer.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 1_500);
        expect(answer.retryAfter).toMatch(/^\d+$/);
      }
      expect(answers[0]).toMatchObject({
        status: 503,
        body: { error: 'Service Unavailable', status: 503, message: expect.stringContaining('DATABASE_CONNECT_TIMEOUT_MS') },
      });
      expect(answers[1].status).toBe(503);
      expect(answers[2].body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      await sleep(2_000);
      // It stops listening at once; the connections it took stay open (close's callback would wait for them).
      blackHole.close();
      cluster.start();
      const restartedAt = Date.now();
      await until('a write to succeed again', async () => (await api('POST', '/api/tasks', { projectId, title: 'back' })).status === 201, 10_000);
      expect(await activityRuns(10_000)).toBe(true);
      await until('the liveness locks to be held again', async () => (await livenessLocks()) >= 2, 10_000);
      expect(Date.now() - restartedAt).toBeLessThan(10_000);
    } finally {
      for (const socket of held) socket.destroy();
      if (blackHole.listening) blackHole.close();
    }
  });
});
