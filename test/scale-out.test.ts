import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey } from '../src/modules/access/api-keys';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { startServerProcess, until, type ServerProcess } from './support/server-process';

/**
 * Two server processes (the built dist/src/main.js) on one PostgreSQL database and one Redis, reached
 * on their own ports with nothing in front: one rate-limit budget per caller, each other's writes,
 * access changes seen at once, and one job queue (only the second runs jobs). On a database of its
 * own; the callers' keys are new, so counters Redis keeps from earlier runs cannot interfere.
 */
type Row = Record<string, any>;

const REDIS_URL = 'redis://127.0.0.1:6379';
const PER_MINUTE = 30;
const databaseName = `platform_scale_out_${process.pid}_${Date.now()}`;
const serverUrl = inject('databaseUrl');
const databaseUrl = withDatabase(serverUrl, databaseName);
const dataDir = mkdtempSync(join(tmpdir(), 'platform-scale-out-'));
const adminKey = generateApiKey();
/** Takes no job. */
let first: ServerProcess;
/** Runs the jobs. */
let second: ServerProcess;

beforeAll(async () => {
  await ensureDatabase(serverUrl, databaseName);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    BOOTSTRAP_API_KEY: adminKey,
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
    RATE_LIMIT_BURST_PER_SECOND: '1000',
    LOG_LEVEL: 'warn',
  };
  // One after the other: the first applies the migrations and registers the bootstrap key.
  first = await startServerProcess({ ...env, WORKER_CONCURRENCY: '0' });
  second = await startServerProcess({ ...env, WORKER_CONCURRENCY: '1' });
}, 120_000);

afterAll(async () => {
  for (const server of [first, second]) if (server) expect((await server.stop()).code, server.output()).toBe(0);
  await dropDatabase(serverUrl, databaseName);
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function call(server: ServerProcess, method: string, path: string, key = adminKey, body?: unknown): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
  return { status: response.status, body: json ? JSON.parse(text) : text, headers: response.headers };
}

async function created(server: ServerProcess, path: string, body: Row): Promise<Row> {
  const answer = await call(server, 'POST', path, adminKey, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

/** A new user (not an administrator) and an API key of theirs, created through `server`. */
async function newCaller(server: ServerProcess): Promise<{ id: string; key: string }> {
  const user = await created(server, '/api/users', { email: `scale-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test` });
  const token = await created(server, '/api/access-tokens', { name: 'scale-out', userId: user.id });
  return { id: user.id, key: token.token };
}

describe('two processes on one PostgreSQL and one Redis', () => {
  it("see each other's writes", async () => {
    const org = await created(first, '/api/organizations', { name: `Scale ${Date.now()}` });
    const read = await call(second, 'GET', `/api/organizations/${org.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: org.id, name: org.name, changeSequence: 0 });

    const updated = await call(second, 'PUT', `/api/organizations/${org.id}`, adminKey, { description: 'changed on the second', changeSequence: 0 });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const reread = await call(first, 'GET', `/api/organizations/${org.id}`);
    expect(reread.body).toMatchObject({ description: 'changed on the second', changeSequence: 1 });
    // A stale write on the first is refused: both check the same row.
    const stale = await call(first, 'PUT', `/api/organizations/${org.id}`, adminKey, { description: 'stale', changeSequence: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ currentChangeSequence: 1 });
  });

  it('share one rate-limit budget per caller: what is spent on one is refused on the other', async () => {
    const { key } = await newCaller(first);
    const answers: Answer[] = [];
    for (let i = 0; i < PER_MINUTE; i++) answers.push(await call(i % 3 === 2 ? second : first, 'GET', '/api/account/me', key));
    expect(answers.map((a) => a.status)).toEqual(Array(PER_MINUTE).fill(200));
    expect(answers.map((a) => Number(a.headers.get('x-ratelimit-remaining')))).toEqual(Array.from({ length: PER_MINUTE }, (_, i) => PER_MINUTE - 1 - i));
    for (const server of [second, first]) {
      const refused = await call(server, 'GET', '/api/account/me', key);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'Too Many Requests', status: 429 });
    }
  });

  it('drop cached credentials when the other announces an access change (LISTEN/NOTIFY)', async () => {
    const user = await newCaller(first);
    // The second now holds this caller, not an administrator, in its credentials cache (for up to 30 s).
    expect((await call(second, 'GET', '/metrics', user.key)).status).toBe(403);
    const promoted = await call(first, 'PUT', `/api/users/${user.id}`, adminKey, { security: { roles: ['PLATFORM_ADMIN'] } });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    const promotedAt = Date.now();
    await until('the second process to see the new role', async () => (await call(second, 'GET', '/metrics', user.key)).status === 200, 10_000);
    expect(Date.now() - promotedAt).toBeLessThan(10_000);
  });

  it('share the job queue: a job written by the process that runs none is run by the other', async () => {
    const org = await created(first, '/api/organizations', { name: `Jobs ${Date.now()}` });
    const project = await created(first, '/api/projects', { name: 'Queue', organizationId: org.id });
    const plan = await created(first, '/api/activity-plans', {
      name: `Plan ${Date.now()}`,
      organizationId: org.id,
      steps: [{ ref: 'sum', stepType: 'SCRIPT', options: { expression: '20 + 22' } }],
    });
    const trigger = await created(first, '/api/triggers', {
      name: 'by hand',
      projectId: project.id,
      eventKind: 'manual',
      activityPlanRef: `activity-plan://${org.slug}/${plan.slug}`,
    });
    const fired = await call(first, 'POST', `/api/triggers/${trigger.id}/fire`, adminKey, {});
    expect(fired.status, JSON.stringify(fired.body)).toBe(202);

    const database = new pg.Client({ connectionString: databaseUrl });
    await database.connect();
    try {
      const status = async () => (await database.query<{ status: string }>('select status from activity where id = $1', [fired.body.id])).rows[0]?.status;
      await until('the second process to run the activity', async () => (await status()) === 'COMPLETED', 20_000);
    } finally {
      await database.end();
    }
    const activity = await call(first, 'GET', `/api/activities/${fired.body.id}`);
    expect(activity.body.steps[0]).toMatchObject({ status: 'COMPLETED', output: 42 });
  });
});
