import './bench/env';
import '../env';
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';
import { appOptions, createApp } from '../app';
import { generateApiKey } from '../auth/api-keys';
import { bootstrapAdministrator } from '../auth/bootstrap';
import { loadConfig } from '../config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../database/database-url';
import { openDatabase, ormOptions } from '../database/orm';
import { queryCounter } from '../database/query-counter';
import { startBaseline, type BaselineProcess } from './bench/baseline-process';
import { benchCases, CASE_IDS, type BenchCase } from './bench/cases';
import type { LoadJob, LoadMessage, LoadResult } from './bench/load';
import { markdownTable, percentile, textTable, type CaseResult, type Measured } from './bench/report';
import { PhaseObserver } from './bench/observe';
import { seed } from './bench/seed';

/**
 * `npm run bench`: this server against a bare express + `pg` baseline (bench/baseline.ts) that answers
 * the same requests with the same JSON and the SQL a hand-written handler would send, in one run, on
 * one scratch database seeded here. The server runs in this process, the baseline in a child process;
 * the load comes from a worker thread. Per case it prints requests per second, p50 and p99 latency,
 * SQL statements per request and the ratio to the baseline, then the peak RSS of both processes, as a
 * text table and as a Markdown table. Loopback only; it ends by itself (BENCH_TIMEOUT_SECONDS) and
 * drops the scratch database and stops the child, also when it fails.
 *
 * Environment (all optional):
 *   DATABASE_URL           server the scratch database is created on (default: the embedded PostgreSQL)
 *   BENCH_ORGS             small organizations (10), each with
 *   BENCH_PROJECTS           projects (10) of
 *   BENCH_TASKS              tasks (10)
 *   BENCH_LARGE_PROJECTS   projects of the one large organization (10; 0 leaves it out), each with
 *   BENCH_LARGE_TASKS        tasks (10000)
 *   BENCH_CONNECTIONS      requests in flight at once (20)
 *   BENCH_SECONDS          measured seconds per case and side (5)
 *   BENCH_WARMUP_SECONDS   unmeasured seconds before each (1)
 *   BENCH_ONLY             comma-separated case ids, or parts of them, to run (all): get-by-id, page-100,
 *                          filtered-sorted, graphql-nested, put, post
 *   BENCH_TIMEOUT_SECONDS  the run is abandoned (and cleaned up) after this long (from the settings)
 *   LOG_LEVEL              the server's log level (warn: no access log)
 *   BENCH_PROFILE          a folder: a CPU profile of the server's measured phase of each case is written there
 *
 * The baseline's pool has as many connections as the server has: its ORM pool (src/database/orm.ts)
 * and its read pool (READ_POOL_SIZE in src/app.ts).
 */
function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

const SIZES = {
  organizations: setting('BENCH_ORGS', 10),
  projects: setting('BENCH_PROJECTS', 10),
  tasks: setting('BENCH_TASKS', 10),
  largeProjects: setting('BENCH_LARGE_PROJECTS', 10),
  largeTasks: setting('BENCH_LARGE_TASKS', 10_000),
  sampleSize: 1000,
};
const CONNECTIONS = Math.max(1, setting('BENCH_CONNECTIONS', 20));
const SECONDS = Math.max(1, setting('BENCH_SECONDS', 5));
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 1);
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
/** READ_POOL_SIZE of src/app.ts (not exported): the server's connections beside the ORM's pool. */
const SERVER_READ_POOL = 10;
const TIMEOUT_SECONDS = setting('BENCH_TIMEOUT_SECONDS', 240 + 6 * 2 * (WARMUP_SECONDS + SECONDS) * 3);

/** Undone in reverse order at the end, whatever happens. */
const cleanups: { name: string; run: () => Promise<unknown> }[] = [];
let finishing: Promise<never> | undefined;

function finish(code: number): Promise<never> {
  finishing ??= (async () => {
    const guard = setTimeout(() => {
      console.error('bench: cleaning up took longer than 30 s, leaving');
      process.exit(code || 1);
    }, 30_000);
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        console.error(`bench: cleaning up (${cleanup.name}) failed: ${(error as Error).message}`);
      }
    }
    clearTimeout(guard);
    process.exit(code);
  })();
  return finishing;
}

/** Every run gets its own range of `__N__` values, so writes never repeat a value. */
let nextCounter = 1;
function counterRange(): number {
  const start = nextCounter;
  nextCounter += 10_000_000;
  return start;
}

async function main(): Promise<void> {
  setTimeout(() => {
    console.error(`bench: abandoned after ${TIMEOUT_SECONDS} s (BENCH_TIMEOUT_SECONDS)`);
    void finish(1);
  }, TIMEOUT_SECONDS * 1000).unref();
  // `on`, not `once`: Apollo stops itself on these signals and then sends the signal again.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void finish(130));

  const config = loadConfig();
  const selected = CASE_IDS.filter((id) => ONLY.length === 0 || ONLY.some((only) => id.includes(only)));
  if (selected.length === 0) throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY} matches no case (${CASE_IDS.join(', ')})`);

  const server = await databaseServer(config.databaseUrl, config.dataDir);
  cleanups.push({ name: 'database server', run: () => server.stop() });
  const scratch = `platform_bench_${process.pid}`;
  await ensureDatabase(server.serverUrl, scratch);
  cleanups.push({ name: 'scratch database', run: () => dropDatabase(server.serverUrl, scratch) });
  const databaseUrl = withDatabase(server.serverUrl, scratch);
  const orm = await openDatabase(databaseUrl);
  cleanups.push({ name: 'ORM', run: () => orm.close() });
  const poolSize = (ormOptions(databaseUrl).pool?.max ?? 10) + SERVER_READ_POOL;

  const adminKey = generateApiKey();
  await bootstrapAdministrator(orm, adminKey);
  const app = await createApp(orm, appOptions(config));
  const listener: Server = app.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  cleanups.push({
    name: 'server',
    run: async () => {
      listener.closeAllConnections();
      listener.close();
      await app.close();
    },
  });
  const serverBase = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;

  const plannedTasks = SIZES.organizations * SIZES.projects * SIZES.tasks + SIZES.largeProjects * SIZES.largeTasks;
  console.log(`seeding ${SIZES.organizations} organizations × ${SIZES.projects} projects × ${SIZES.tasks} tasks + 1 × ${SIZES.largeProjects} × ${SIZES.largeTasks} (${plannedTasks} tasks) ...`);
  const seeded = await seed(serverBase, adminKey, databaseUrl, SIZES);
  console.log(`seeded ${seeded.organizations} organizations, ${seeded.projects} projects, ${seeded.tasks} tasks in ${seeded.seconds.toFixed(1)} s`);

  const baseline = await startBaseline(databaseUrl, poolSize);
  cleanups.push({ name: 'baseline', run: () => baseline.stop() });
  const headers = { 'x-api-key': seeded.memberKey, 'content-type': 'application/json' };

  console.log(
    `\n${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per case and side, server first; ` +
      `${poolSize} database connections each; caller: a member of every organization\n`,
  );
  const results: CaseResult[] = [];
  const observer = new PhaseObserver(process.env.BENCH_PROFILE || undefined);
  for (const benchCase of benchCases(seeded).filter((c) => selected.includes(c.id))) {
    await assertSameAnswer(benchCase, serverBase, baseline.base, headers);
    const server = await measure('server', serverBase, headers, benchCase, async () => queryCounter.total, observer);
    const base = await measure('baseline', baseline.base, headers, benchCase, async () => (await baseline.stats()).statements);
    results.push({ id: benchCase.id, request: benchCase.request, server, baseline: base });
    console.log(
      `${benchCase.id.padEnd(16)} server ${server.requestsPerSecond.toFixed(0).padStart(6)} req/s   baseline ${base.requestsPerSecond.toFixed(0).padStart(6)} req/s`,
    );
  }

  const rss = { serverMb: process.resourceUsage().maxRSS / 1024, baselineMb: (await baseline.stats()).maxRssKb / 1024 };
  const date = new Date().toISOString().slice(0, 10);
  const data = `${seeded.tasks} tasks in ${seeded.projects} projects of ${seeded.organizations} organizations`;
  console.log(`\n${textTable(results, rss)}\n`);
  console.log(`Markdown (${date}, ${CONNECTIONS} connections, ${SECONDS} s per case and side, ${data}):\n`);
  console.log(markdownTable(results, rss));
}

/**
 * One case against one side: warm-up, then (counters read while nothing is in flight) the measured
 * phase. `statements` reads that side's running count of SQL statements.
 */
async function measure(
  side: string,
  base: string,
  headers: Record<string, string>,
  benchCase: BenchCase,
  statements: () => Promise<number>,
  observer?: PhaseObserver,
): Promise<Measured> {
  const job: LoadJob = {
    base,
    headers,
    requests: benchCase.requests,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    counterStart: counterRange(),
  };
  const worker = new Worker(join(__dirname, 'bench', 'load.js'), { workerData: job });
  let before = 0;
  let result: LoadResult;
  try {
    result = await new Promise<LoadResult>((resolve, reject) => {
      worker.on('message', (message: LoadMessage) => {
        if (message.type === 'done') return resolve(message.result);
        statements()
          .then(async (count) => {
            before = count;
            await observer?.start();
            worker.postMessage('go');
          })
          .catch(reject);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the load thread stopped early (exit code ${code})`)));
    });
  } finally {
    await worker.terminate();
  }
  const gcMs = await observer?.stop(benchCase.id);
  const after = await statements();
  if (result.failure) throw new Error(`${benchCase.id}, ${side}: ${result.failure}`);
  const sorted = result.latencies.sort((a, b) => a - b);
  return {
    requests: result.requests,
    requestsPerSecond: result.requests / result.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    statementsPerRequest: (after - before) / result.requests,
    gcShare: gcMs === undefined ? undefined : gcMs / 1000 / result.seconds,
  };
}

/** Both sides must answer the case's first request alike (apart from what a write makes differ), or the comparison is void. */
async function assertSameAnswer(benchCase: BenchCase, serverBase: string, baselineBase: string, headers: Record<string, string>): Promise<void> {
  const planned = benchCase.requests[0];
  const send = async (base: string) => {
    const response = await fetch(`${base}${planned.path}`, { method: planned.method, headers, body: planned.body?.replaceAll('__N__', String(counterRange())) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${benchCase.id}: ${planned.method} ${planned.path} answered ${response.status} (${base}): ${text.slice(0, 300)}`);
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const field of benchCase.volatile) delete body[field];
    return { status: response.status, body };
  };
  const server = await send(serverBase);
  const baseline = await send(baselineBase);
  if (server.status !== baseline.status) throw new Error(`${benchCase.id}: the server answered ${server.status}, the baseline ${baseline.status}`);
  const difference = firstDifference(server.body, baseline.body, '');
  if (difference !== undefined) throw new Error(`${benchCase.id}: the baseline answers differently from the server at ${difference || 'the top'}`);
}

function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return `${path}: differs`;
}

main().then(
  () => finish(0),
  (error: unknown) => {
    console.error(error);
    return finish(1);
  },
);
