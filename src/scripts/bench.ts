import '../env';
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { appOptions, createApp } from '../app';
import { generateApiKey } from '../auth/api-keys';
import { bootstrapAdministrator } from '../auth/bootstrap';
import { loadConfig } from '../config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../database/database-url';
import { openDatabase } from '../database/orm';
import { queryCounter } from '../database/query-counter';
import type { LoadJob, LoadResult, PlannedRequest } from './bench-load';

/**
 * Throughput, latency and SQL statements per request of typical calls, against a scratch database
 * seeded here (BENCH_ORGS x BENCH_PROJECTS x BENCH_TASKS). Bounded: BENCH_REQUESTS per scenario at
 * BENCH_CONCURRENCY, loopback only; BENCH_ONLY=text runs the scenarios whose name contains it.
 */
const ORGS = Number(process.env.BENCH_ORGS ?? 10);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 10);
const TASKS = Number(process.env.BENCH_TASKS ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function main(): Promise<void> {
  process.env.RATE_LIMIT_PER_MINUTE ??= '100000000';
  process.env.RATE_LIMIT_BURST_PER_SECOND ??= '100000000';
  const config = loadConfig();
  const server = await databaseServer(config.databaseUrl, config.dataDir);
  const scratch = `platform_bench_${process.pid}`;
  await ensureDatabase(server.serverUrl, scratch);
  const orm = await openDatabase(withDatabase(server.serverUrl, scratch));
  const key = generateApiKey();
  await bootstrapAdministrator(orm, key);
  const app = await createApp(orm, appOptions(config));
  const listener = app.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = async (response: Promise<Response>) => (await response).json() as Promise<Record<string, any>>;

  try {
    console.log(`seeding ${ORGS} organizations x ${PROJECTS} projects x ${TASKS} tasks ...`);
    const taskIds: string[] = [];
    let firstOrg = '';
    for (let o = 0; o < ORGS; o++) {
      const org = await json(call('POST', '/api/organizations', { name: `Bench Org ${o}`, slug: `bench-org-${o}` }));
      firstOrg ||= org.id;
      await Promise.all(
        Array.from({ length: PROJECTS }, async (_, p) => {
          const project = await json(call('POST', '/api/projects', { name: `Project ${p}`, organizationId: org.id }));
          for (let t = 0; t < TASKS; t++) {
            const task = await json(call('POST', '/api/tasks', { projectId: project.id, title: `Task ${t}`, priority: t % 5 }));
            taskIds.push(task.id);
          }
        }),
      );
    }
    const nested = `{ organizations(pageSize: 10) { content { name projects(pageSize: 10) { totalElements content { name organization { slug } tasks(pageSize: 10) { totalElements content { title priority project { name } } } } } } } }`;
    const plan = (make: (i: number) => PlannedRequest) => Array.from({ length: REQUESTS }, (_, i) => make(i));
    const scenarios: [string, PlannedRequest[]][] = [
      ['GET /api/tasks?pageSize=100', plan(() => ({ method: 'GET', path: '/api/tasks?pageSize=100' }))],
      ["GET /api/projects?filter=organization.slug==…&sort=name:desc", plan((i) => ({ method: 'GET', path: `/api/projects?filter=organization.slug=='bench-org-${i % ORGS}'&sort=name:desc` }))],
      ['GET /api/tasks/{id}', plan((i) => ({ method: 'GET', path: `/api/tasks/${taskIds[i % taskIds.length]}` }))],
      ['PUT /api/tasks/{id}', plan((i) => ({ method: 'PUT', path: `/api/tasks/${taskIds[i % taskIds.length]}`, body: { priority: i } }))],
      ['POST /api/labels', plan((i) => ({ method: 'POST', path: '/api/labels', body: { name: `label-${i}-${Date.now()}`, organizationId: firstOrg } }))],
      ['GraphQL organizations → projects → tasks (10×10×10)', plan(() => ({ method: 'POST', path: '/graphql', body: { query: nested } }))],
    ];
    console.log(`\n${REQUESTS} requests per scenario, ${CONCURRENCY} at a time, sent from a separate thread\n`);
    console.log(pad('scenario', 58) + pad('req/s', 9) + pad('p50 ms', 9) + pad('p95 ms', 9) + 'SQL/req');
    const only = process.env.BENCH_ONLY?.toLowerCase();
    for (const [name, requests] of scenarios.filter(([n]) => !only || n.toLowerCase().includes(only))) {
      await measure(base, headers, requests.slice(0, 50).map(uniqueAgain));
      const before = queryCounter.total;
      const result = await measure(base, headers, requests);
      const statements = (queryCounter.total - before) / requests.length;
      const sorted = [...result.latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.floor(sorted.length * q)].toFixed(1);
      console.log(pad(name, 58) + pad((requests.length / result.seconds).toFixed(0), 9) + pad(at(0.5), 9) + pad(at(0.95), 9) + statements.toFixed(1));
    }
  } finally {
    listener.close();
    await app.close();
    await orm.close();
    await dropDatabase(server.serverUrl, scratch);
    await server.stop();
  }
}

/** Runs one batch of requests on a worker thread and waits for its timings. */
async function measure(base: string, headers: Record<string, string>, requests: PlannedRequest[]): Promise<LoadResult> {
  const job: LoadJob = { base, headers, requests, concurrency: CONCURRENCY };
  const worker = new Worker(join(__dirname, 'bench-load.js'), { workerData: job });
  const result = await new Promise<LoadResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  if (result.failures.length) throw new Error(`${result.failures.length} requests failed, e.g. ${result.failures[0]}`);
  return result;
}

/** Warm-up requests must not collide with the measured ones (label names are unique). */
function uniqueAgain(request: PlannedRequest): PlannedRequest {
  if (request.path !== '/api/labels') return request;
  return { ...request, body: { ...(request.body as object), name: `warm-up-${Math.random().toString(36).slice(2)}` } };
}

function pad(text: string, width: number): string {
  return text.padEnd(width);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
