import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadConfig } from '../src/config/config';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * GET /metrics (names, labels, access), X-Request-Id (kept, generated, replaced) in answers and log
 * lines, and GET /health and /health/live with the database and Redis up and down.
 */

/** Every line the servers of this file log (the real logger's configuration, written here). */
const logged = vi.hoisted(() => ({ lines: [] as string[] }));
vi.mock('../src/logging/logger', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/logging/logger')>();
  return { ...actual, logger: actual.createLogger({ write: (line: string) => void logged.lines.push(line) }, 'trace') };
});

const REDIS_URL = 'redis://127.0.0.1:6379';
/** Nothing listens there: the Redis client never connects. */
const CLOSED_REDIS_URL = 'redis://127.0.0.1:1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Metrics for administrators only; rate limits in the real Redis. */
let server: TestServer;
/** METRICS_PUBLIC; rate limits in a Redis that is not there. */
let open: TestServer;
let member: Caller;
const { newCaller } = callersOf(() => server);

beforeAll(async () => {
  server = await startServer({ rateLimits: { perMinute: 1_000_000, burstPerSecond: 1_000_000, redisUrl: REDIS_URL } });
  open = await startServer({ metricsPublic: true, rateLimits: { perMinute: 1_000_000, burstPerSecond: 1_000_000, redisUrl: CLOSED_REDIS_URL } });
  member = await newCaller('MetricsReader');
});

afterAll(async () => {
  await Promise.all([server?.close(), open?.close()]);
});

/** The value of one sample of the exposition text (`name{labels}`, labels in the order written), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(target: TestServer, key?: string | null): Promise<string> {
  const answer = await target.request('GET', '/metrics', { key });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return answer.text;
}

describe('GET /metrics', () => {
  it('counts and times requests by method, route template and status, never by raw path', async () => {
    const org = await createOrganization(server);
    const project = await createProject(server, org.id);
    const task = await createTask(server, project.id);
    const missing = '00000000-0000-4000-8000-000000000000';
    const before = await scrape(server);
    const okSeries = 'http_requests_total{method="GET",route="/api/tasks/:id",status="200"}';
    const okBefore = sample(before, okSeries) ?? 0;

    for (const id of [task.id, task.id]) expect((await server.request('GET', `/api/tasks/${id}`)).status).toBe(200);
    expect((await server.request('GET', `/api/tasks/${missing}`)).status).toBe(404);
    expect((await server.request('GET', `/no/such/${unique('path')}`)).status).toBe(404);
    expect((await server.request('GET', '/api/tasks', { key: null })).status).toBe(401);
    expect((await server.graphql('{ __typename }')).status).toBe(200);

    const text = await scrape(server);
    expect(sample(text, okSeries)).toBe(okBefore + 2);
    expect(sample(text, 'http_requests_total{method="GET",route="/api/tasks/:id",status="404"}')).toBeGreaterThanOrEqual(1);
    // A path no route serves, and a request refused before routing, are one label value.
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status="401"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/graphql",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/api/tasks",status="201"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/api/tasks/:id",status="200"}')).toBe(okBefore + 2);
    expect(sample(text, 'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/tasks/:id",status="200"}')).toBe(okBefore + 2);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    for (const raw of [task.id, missing, 'no/such']) expect(text).not.toContain(raw);
  });

  it('reports both connection pools, the job queue, rate-limit refusals and the process', async () => {
    const text = await scrape(server);
    for (const pool of ['orm', 'read']) {
      expect(sample(text, `db_pool_connections_in_use{pool="${pool}"}`), pool).toBeGreaterThanOrEqual(0);
      expect(sample(text, `db_pool_connections_waiting{pool="${pool}"}`), pool).toBe(0);
    }
    for (const state of ['waiting', 'running', 'failed']) expect(sample(text, `job_queue_depth{state="${state}"}`), state).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'rate_limit_refusals_total')).toBe(0);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
    }
  });

  it('reads the job queue depth from the queue table at scrape time', async () => {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    const failed = async () => sample(await scrape(server), 'job_queue_depth{state="failed"}');
    try {
      const before = (await failed())!;
      // A job of a task no worker knows, due in an hour and failed for good: no other suite's worker changes that count.
      const { rows } = await client.query<{ id: string }>(
        `select id from graphile_worker.add_job('metrics-probe', '{}'::json, run_at => now() + interval '1 hour')`,
      );
      await client.query('select graphile_worker.permanently_fail_jobs(array[$1::bigint], $2)', [rows[0].id, 'metrics probe']);
      expect(await failed()).toBe(before + 1);
      await client.query('delete from graphile_worker._private_jobs where id = $1', [rows[0].id]);
      expect(await failed()).toBe(before);
    } finally {
      await client.end();
    }
  });

  it('counts the requests refused by the rate limits', async () => {
    // Three requests a minute per caller; the metrics are public, read on the client address's budget.
    const limited = await startServer({ metricsPublic: true, rateLimits: { perMinute: 3, burstPerSecond: 100 } });
    try {
      const key = (await callersOf(() => limited).newCaller('Limited')).key;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.request('GET', '/api/organizations', { key })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const text = await scrape(limited, null);
      expect(sample(text, 'rate_limit_refusals_total')).toBe(2);
      // Refused before routing: the route is not known.
      expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status="429"}')).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('needs a platform administrator unless METRICS_PUBLIC is set', async () => {
    const anonymous = await server.request('GET', '/metrics', { key: null });
    expect(anonymous.status, anonymous.text).toBe(401);
    expect(anonymous.body).toMatchObject({ error: 'Unauthorized', status: 401 });
    const nonAdmin = await server.request('GET', '/metrics', { key: member.key });
    expect(nonAdmin.status, nonAdmin.text).toBe(403);
    expect(nonAdmin.body).toMatchObject({ error: 'Forbidden', status: 403 });
    expect(await scrape(server)).toContain('http_requests_total');

    expect(await scrape(open, null)).toContain('http_requests_total');
    expect(await scrape(open, member.key)).toContain('http_requests_total');
  });

  it('reads METRICS_PUBLIC and SHUTDOWN_GRACE_SECONDS from the environment', () => {
    const saved = { METRICS_PUBLIC: process.env.METRICS_PUBLIC, SHUTDOWN_GRACE_SECONDS: process.env.SHUTDOWN_GRACE_SECONDS };
    try {
      delete process.env.METRICS_PUBLIC;
      delete process.env.SHUTDOWN_GRACE_SECONDS;
      expect(loadConfig()).toMatchObject({ metricsPublic: false, shutdownGraceSeconds: 10 });
      Object.assign(process.env, { METRICS_PUBLIC: '1', SHUTDOWN_GRACE_SECONDS: '3' });
      expect(loadConfig()).toMatchObject({ metricsPublic: true, shutdownGraceSeconds: 3 });
      process.env.METRICS_PUBLIC = 'yes';
      expect(() => loadConfig()).toThrow(/METRICS_PUBLIC/);
      Object.assign(process.env, { METRICS_PUBLIC: '0', SHUTDOWN_GRACE_SECONDS: '-1' });
      expect(() => loadConfig()).toThrow(/SHUTDOWN_GRACE_SECONDS/);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('X-Request-Id', () => {
  const withId = (id: string, path = '/api/organizations', key?: string | null) => server.request('GET', path, { key, headers: { 'x-request-id': id } });

  it("echoes the caller's well-formed id, on every kind of answer", async () => {
    const id = `Caller.id_1:${unique('x')}`;
    for (const answer of [
      await withId(id),
      await withId(id, '/api/organizations', null),
      await withId(id, '/no/such/path'),
      await withId(id, '/health', null),
    ]) {
      expect(answer.headers.get('x-request-id'), `${answer.status}`).toBe(id);
    }
    const graphql = await server.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers: { 'x-request-id': id } });
    expect(graphql.headers.get('x-request-id')).toBe(id);
    const longest = 'a'.repeat(128);
    expect((await withId(longest)).headers.get('x-request-id')).toBe(longest);
  });

  it('generates a UUID when none is sent, a new one for each request', async () => {
    const ids = await Promise.all([1, 2, 3].map(async () => (await server.request('GET', '/api/organizations')).headers.get('x-request-id')));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(3);
  });

  it('replaces a malformed id with a generated one', async () => {
    for (const malformed of ['a'.repeat(129), 'has space', 'semi;colon', 'quote"', 'ünïcode', 'slash/id', '{json}']) {
      const answer = await withId(malformed);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-request-id'), malformed).toMatch(UUID);
    }
  });

  it("is on the request's access log line", async () => {
    const id = `access-${unique('log')}`;
    const path = `/api/organizations?query=${unique('q')}`;
    expect((await withId(id, path)).status).toBe(200);
    await expect.poll(() => logged.lines.find((line) => line.includes(`"requestId":"${id}"`))).toBeDefined();
    const line = JSON.parse(logged.lines.find((l) => l.includes(`"requestId":"${id}"`))!);
    expect(line).toMatchObject({ msg: 'request completed', requestId: id, req: { method: 'GET', url: path }, res: { statusCode: 200 } });

    const generated = await server.request('GET', '/api/organizations');
    const generatedId = generated.headers.get('x-request-id')!;
    await expect.poll(() => logged.lines.some((l) => l.includes(`"requestId":"${generatedId}"`))).toBe(true);
  });
});

describe('health', () => {
  it('is UP with the database, and reports Redis only when REDIS_URL is set', async () => {
    const answer = await server.request('GET', '/health', { key: null });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ status: 'UP', database: 'UP', redis: 'UP' });
  });

  it('reports Redis DOWN when REDIS_URL points nowhere, and stays UP: rate limits are then counted in the process', async () => {
    const answer = await open.request('GET', '/health', { key: null });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ status: 'UP', database: 'UP', redis: 'DOWN' });
  });

  it('answers /health/live without asking any dependency', async () => {
    const answer = await open.request('GET', '/health/live', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'UP' });
  });

  describe('with the database unreachable', () => {
    const databaseName = `platform_health_${process.pid}_${Date.now()}`;
    const serverUrl = inject('databaseUrl');
    let broken: TestServer;
    let admin: pg.Client;

    /** Lets connections to the server's database in again (or not), ending the open ones when not. */
    async function allowConnections(allowed: boolean): Promise<void> {
      await admin.query(`alter database "${databaseName}" with allow_connections ${allowed}`);
      if (!allowed) await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [databaseName]);
    }

    beforeAll(async () => {
      await ensureDatabase(serverUrl, databaseName);
      broken = await startServer({ databaseUrl: withDatabase(serverUrl, databaseName) });
      admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
      await admin.connect();
    }, 120_000);

    afterAll(async () => {
      await allowConnections(true).catch(() => undefined);
      await broken?.close();
      await admin?.end();
      await dropDatabase(serverUrl, databaseName);
    });

    it('answers 503 DOWN, keeps /health/live at 200, logs failures with the request id, and is UP again when the database is back', async () => {
      expect((await broken.request('GET', '/health', { key: null })).body).toEqual({ status: 'UP', database: 'UP' });
      // The administrator's key is now cached: the requests below get past authentication to the services.
      expect((await broken.request('GET', '/api/organizations')).status).toBe(200);
      await broken.graphqlData('{ me { id } }');
      await allowConnections(false);

      const down: Answer = await broken.request('GET', '/health', { key: null });
      expect(down.status, down.text).toBe(503);
      expect(down.body).toEqual({ status: 'DOWN', database: 'DOWN' });
      expect(down.headers.get('x-request-id')).toMatch(UUID);
      expect((await broken.request('GET', '/health/live', { key: null })).status).toBe(200);

      // A request that needs the database fails; its error log line carries its id (REST and a GraphQL resolver).
      const restId = `rest-${unique('down')}`;
      const rest = await broken.request('GET', '/api/organizations', { headers: { 'x-request-id': restId } });
      expect(rest.status, rest.text).toBe(500);
      expect(rest.body).toEqual({ error: 'Internal Server Error', message: 'internal server error', status: 500 });
      const graphqlId = `graphql-${unique('down')}`;
      const graphql = await broken.request('POST', '/graphql', {
        body: { query: '{ organizations { totalElements } }' },
        headers: { 'x-request-id': graphqlId },
      });
      expect(graphql.headers.get('x-request-id')).toBe(graphqlId);
      for (const id of [restId, graphqlId]) {
        const errors = logged.lines.filter((line) => line.includes(`"requestId":"${id}"`)).map((line) => JSON.parse(line));
        expect(
          errors.some((line) => line.level === 50 && line.msg === 'unhandled error'),
          `${id}: ${JSON.stringify(errors)}`,
        ).toBe(true);
      }

      await allowConnections(true);
      await expect.poll(async () => (await broken.request('GET', '/health', { key: null })).status, { timeout: 10_000 }).toBe(200);
    }, 60_000);
  });
});
