import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey } from '../src/modules/access/api-keys';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { createOrganization, createProject } from './support/fixtures';
import { startServerProcess, until, type ServerProcess } from './support/server-process';
import { startServer, unique, type TestServer } from './support/server';

/**
 * SIGTERM to the built server (dist/src/main.js) while requests and a job are in flight: every request
 * it had accepted gets its whole answer, new connections are refused, the job finishes, and the process
 * exits 0 within SHUTDOWN_GRACE_SECONDS; past the grace period what still runs is cut off and the job
 * goes back to the queue, where another process completes it. On a database of its own, so that the
 * processes' workers take no other suite's jobs.
 */
type Row = Record<string, any>;

const databaseName = `platform_shutdown_${process.pid}_${Date.now()}`;
const serverUrl = inject('databaseUrl');
const databaseUrl = withDatabase(serverUrl, databaseName);
const dataDir = mkdtempSync(join(tmpdir(), 'platform-shutdown-'));
const adminKey = generateApiKey();
/** Writes and reads for the tests; runs no job. */
let api: TestServer;
let upstream: SlowUpstream;
let project: Row;
let bridge: Row;
let trigger: Row;
const children: ChildProcess[] = [];

/** An upstream that answers every request after `delayMs` with about 64 KB of JSON, counting arrivals. */
class SlowUpstream {
  delayMs = 0;
  arrived = 0;
  private readonly server: Server = createServer((req, res) => {
    this.arrived++;
    req.resume();
    const timer = setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ slow: true, pad: 'p'.repeat(64_000) })),
      this.delayMs,
    );
    res.on('close', () => clearTimeout(timer));
  });

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

beforeAll(async () => {
  await ensureDatabase(serverUrl, databaseName);
  upstream = new SlowUpstream();
  await upstream.listen();
  api = await startServer({ databaseUrl, workerConcurrency: 0 });
  const org = await createOrganization(api);
  project = await createProject(api, org.id);
  bridge = await created('/api/service-bridges', {
    organizationId: org.id,
    name: unique('Slow'),
    baseUrl: upstream.origin,
    endpoints: [{ name: 'slow', path: '/slow' }],
  });
  const plan = await created('/api/activity-plans', {
    name: unique('SlowPlan'),
    organizationId: org.id,
    steps: [{ ref: 'call', stepType: 'BRIDGE_CALL', options: { bridge: bridge.slug, endpointName: 'slow' } }],
  });
  trigger = await created('/api/triggers', {
    name: unique('ByHand'),
    projectId: project.id,
    eventKind: 'manual',
    activityPlanRef: `activity-plan://${org.slug}/${plan.slug}`,
  });
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await api?.close();
  await upstream?.close();
  await dropDatabase(serverUrl, databaseName);
  rmSync(dataDir, { recursive: true, force: true });
});

async function created(path: string, body: Row): Promise<Row> {
  const answer = await api.request('POST', path, { body });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** The built server on this suite's database, the test's requests exempt from rate limits in practice. */
async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({
    DATABASE_URL: databaseUrl,
    BOOTSTRAP_API_KEY: adminKey,
    BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    DATA_DIR: dataDir,
    // The test's own requests come from one address in bursts: rate limits are not what it is about.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST_PER_SECOND: '1000000',
    ...env,
  });
  children.push(server.child);
  return server;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request over node:http; `body` is sent in two halves, the second when `finish` is called. */
function send(port: number, method: string, path: string, options: { agent?: Agent; body?: unknown } = {}) {
  const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = {
    'x-api-key': adminKey,
    ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
  };
  const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: options.agent ?? false });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  answer.catch(() => undefined);
  if (body) req.write(body.subarray(0, body.length >> 1));
  else req.end();
  return { answer, finish: () => void (body ? req.end(body.subarray(body.length >> 1)) : undefined) };
}

/** A complete JSON answer: as long as it says, and parseable. */
function expectComplete(answer: Answer, status: number): Row {
  expect(answer.status, answer.body.slice(0, 300)).toBe(status);
  expect(Buffer.byteLength(answer.body)).toBe(Number(answer.headers['content-length']));
  return JSON.parse(answer.body);
}

function refusedConnection(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

async function fire(): Promise<string> {
  const fired = await api.request('POST', `/api/triggers/${trigger.id}/fire`, { body: {} });
  expect(fired.status, fired.text).toBe(202);
  return fired.body.id;
}

async function activityStatus(id: string): Promise<string> {
  return (await api.request('GET', `/api/activities/${id}`)).body.status;
}

describe('SIGTERM', () => {
  it('answers every accepted request in full, refuses new connections, lets the running job finish and exits 0 within the grace period', async () => {
    upstream.delayMs = 1_500;
    upstream.arrived = 0;
    const server = await startProcess({ SHUTDOWN_GRACE_SECONDS: '10', WORKER_CONCURRENCY: '1' });
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 8 });
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });

    // Keep-alive connections left idle by answered list requests.
    const lists = await Promise.all(Array.from({ length: 8 }, () => send(server.port, 'GET', '/api/tasks?pageSize=100', { agent: idleAgent }).answer));
    for (const list of lists) expectComplete(list, 200);
    const idle = Object.values(idleAgent.freeSockets).flat() as Socket[];
    expect(idle.length).toBeGreaterThan(0);
    const idleClosed = idle.map((socket) => new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now()))));

    // In flight: a job and proxied calls waiting on the upstream, and task creations whose bodies are half sent.
    const activityId = await fire();
    const proxied = Array.from({ length: 10 }, () => send(server.port, 'GET', `/api/service-bridges/${bridge.id}/proxy/slow`, { agent }));
    const titles = Array.from({ length: 10 }, (_, i) => `in flight ${i} ${unique('t')}`);
    const creations = titles.map((title) => send(server.port, 'POST', '/api/tasks', { body: { projectId: project.id, title } }));
    await until('the upstream to hold the job and the proxied calls', () => upstream.arrived >= 11);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await until('the shutdown to begin', () => server.output().includes('"shutting down"'), 5_000);
    expect(await refusedConnection(server.port)).toBe('ECONNREFUSED');
    for (const creation of creations) creation.finish();

    const answers = await Promise.all(proxied.map((p) => p.answer));
    const firstAnswerAt = Date.now();
    for (const answer of answers) {
      expect(expectComplete(answer, 200)).toMatchObject({ slow: true });
      // The connection ends with the answer: the client's next request goes elsewhere.
      expect(answer.headers.connection).toBe('close');
    }
    const createdTasks = await Promise.all(creations.map((c) => c.answer));
    expect(createdTasks.map((answer) => expectComplete(answer, 201).title)).toEqual(titles);
    // Idle keep-alive connections were closed at once, not after the answers in flight.
    for (const closedAt of await Promise.all(idleClosed)) expect(closedAt).toBeLessThan(firstAnswerAt);

    const exit = await server.exited;
    expect(exit, server.output()).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(10_000);
    expect(server.output()).not.toContain('"level":50');
    expect(await activityStatus(activityId)).toBe('COMPLETED');
    const stored = await api.request('GET', `/api/tasks?pageSize=100&filter=${encodeURIComponent(`projectId==${project.id}`)}`);
    expect(stored.body.content.map((t: Row) => t.title)).toEqual(expect.arrayContaining(titles));
    agent.destroy();
    idleAgent.destroy();
  }, 90_000);

  it('cuts off what still runs after SHUTDOWN_GRACE_SECONDS, exits 0, and hands the running job back to the queue, where another process completes it', async () => {
    upstream.delayMs = 60_000;
    upstream.arrived = 0;
    const server = await startProcess({ SHUTDOWN_GRACE_SECONDS: '1', WORKER_CONCURRENCY: '1' });
    const activityId = await fire();
    const proxied = Array.from({ length: 3 }, () => send(server.port, 'GET', `/api/service-bridges/${bridge.id}/proxy/slow`));
    await until('the upstream to hold the job and the proxied calls', () => upstream.arrived >= 4);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit, server.output()).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(1_000);
    expect(exit.at - signalledAt, server.output()).toBeLessThan(8_000);
    for (const call of proxied) await expect(call.answer).rejects.toThrow();
    expect(server.output()).toContain('requests still running at the end of the grace period were cut off');

    // The job is free again, one attempt spent; its activity still runs (it did not fail).
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`select locked_at, attempts from graphile_worker._private_jobs where payload->>'activityId' = $1`, [activityId]);
      expect(rows).toEqual([{ locked_at: null, attempts: 1 }]);
    } finally {
      await client.end();
    }
    expect(await activityStatus(activityId)).toBe('RUNNING');

    upstream.delayMs = 0;
    const next = await startProcess({ SHUTDOWN_GRACE_SECONDS: '10', WORKER_CONCURRENCY: '1' });
    await until('another process to complete the activity', async () => (await activityStatus(activityId)) === 'COMPLETED', 30_000);
    next.child.kill('SIGTERM');
    expect(await next.exited).toMatchObject({ code: 0 });
  }, 120_000);
});
