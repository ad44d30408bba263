import './bench/env';
import '../src/env';
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { Worker } from 'node:worker_threads';
import { appOptions, createApp } from '../src/app';
import { generateApiKey } from '../src/modules/access/api-keys';
import { bootstrapAdministrator } from '../src/auth/bootstrap';
import { loadConfig } from '../src/config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { openDatabase, ormOptions } from '../src/database/orm';
import { queryCounter } from '../src/database/query-counter';
import type { SentStatement } from './bench/baseline-kit';
import { IDLE_MS, startBaseline, type BaselineProcess } from './bench/baseline-process';
import { benchCases, CALLERS, CASE_IDS, type BenchCase, type CallerKind } from './bench/cases';
import { answer, assertSameJson, assertSameRows, postgraphileRows, serverRows, sqlDifference } from './bench/compare';
import type { LoadJob, LoadMessage, LoadResult, PlannedRequest } from './bench/load';
import { BASELINE_NAMES, BASELINES, markdownTable, percentile, textTable, type Baseline, type CaseResult, type Measured, type PeakRss } from './bench/report';
import { PhaseObserver } from './bench/observe';
import { createRlsRole, dropRlsRole, rlsRoleName } from './bench/rls';
import { seed, type SeedResult } from './bench/seed';

/**
 * `npm run bench`: this server against three baselines, in one run, on one scratch database seeded here:
 *
 * - least SQL (bench/least-sql.ts): bare express + `pg` answering the same requests with the same JSON
 *   and the fewest, cheapest statements on this schema (tenancy and liveness on the row's own table);
 * - PostGraphile (bench/postgraphile.ts): PostGraphile 5 with its amber preset on the same tables, sent
 *   the equivalent GraphQL request for the read cases; its rows are compared, not its JSON;
 * - same SQL (bench/same-sql.ts): bare express + `pg` sending the server's own statements, so that the
 *   ratio measures the Node side alone (whether its texts still match the server's is checked per case).
 *
 * The server runs in this process, each baseline in a child process; the load comes from a worker
 * thread. Per case it prints requests per second of every side, the ratios server/baseline, p50 and
 * p99 latency and SQL statements per request, then the peak RSS of every process, as a text table and as
 * a Markdown table. Loopback only; it ends by itself (BENCH_TIMEOUT_SECONDS) and drops the scratch
 * database and its role and stops the children, also when it fails.
 *
 * Environment (all optional):
 *   DATABASE_URL           server the scratch database is created on (default: the embedded PostgreSQL)
 *   BENCH_ORGS             small organizations (10), each with
 *   BENCH_PROJECTS           projects (10) of
 *   BENCH_TASKS              tasks (10)
 *   BENCH_LARGE_PROJECTS   projects of the one large organization (10; 0 leaves it out), sharing
 *   BENCH_LARGE_TASKS        tasks (100000; 1000000 for the large size)
 *   BENCH_CONNECTIONS      requests in flight at once (20)
 *   BENCH_SECONDS          measured seconds per case and side (5)
 *   BENCH_WARMUP_SECONDS   unmeasured seconds before each (1)
 *   BENCH_SERVER_LAST      1: measure the server after the baselines in each case (default: before)
 *   BENCH_ONLY             comma-separated case ids, or parts of them, to run (all): see CASE_IDS in bench/cases.ts
 *   BENCH_TIMEOUT_SECONDS  the run is abandoned (and cleaned up) after this long
 *   LOG_LEVEL              the server's log level (warn: no access log)
 *   BENCH_PROFILE          a folder: a CPU profile of the server's measured phase of each case is written there
 *
 * Every baseline's pool has as many connections as the server has: its ORM pool (src/database/orm.ts)
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
  largeTasks: setting('BENCH_LARGE_TASKS', 100_000),
  sampleSize: 1000,
};
const CONNECTIONS = Math.max(1, setting('BENCH_CONNECTIONS', 20));
const SECONDS = Math.max(1, setting('BENCH_SECONDS', 5));
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 1);
/** Whether each case measures the server after the baselines instead of before them (the first side may find colder caches). */
const SERVER_LAST = process.env.BENCH_SERVER_LAST === '1';
const ONLY = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim().toLowerCase())
  .filter(Boolean);
/** READ_POOL_SIZE of src/app.ts (not exported): the server's connections beside the ORM's pool. */
const SERVER_READ_POOL = 10;
/** Startup and seeding (a million tasks take a minute or two), then every case against four sides, with room to spare. */
const TIMEOUT_SECONDS = setting('BENCH_TIMEOUT_SECONDS', 300 + Math.ceil(SIZES.largeTasks / 5000) + CASE_IDS.length * 4 * 2 * (WARMUP_SECONDS + SECONDS));

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

/** The server under test and the processes it is measured against. */
interface Sides {
  serverBase: string;
  baselines: Partial<Record<Baseline, BaselineProcess>>;
  keys: Record<CallerKind, string>;
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
  // PostGraphile's role lives beside the databases: dropped after the scratch database (cleanups run in reverse).
  const rlsRole = rlsRoleName();
  cleanups.push({ name: 'RLS role', run: () => dropRlsRole(server.serverUrl, rlsRole) });
  const scratch = `platform_bench_${process.pid}`;
  await ensureDatabase(server.serverUrl, scratch);
  // BENCH_KEEP_DATABASE=1 keeps it, to look at its statements' plans afterwards.
  if (process.env.BENCH_KEEP_DATABASE !== '1') cleanups.push({ name: 'scratch database', run: () => dropDatabase(server.serverUrl, scratch) });
  else console.log(`the scratch database ${scratch} is kept`);
  const databaseUrl = withDatabase(server.serverUrl, scratch);
  const orm = await openDatabase(databaseUrl);
  cleanups.push({ name: 'ORM', run: () => orm.close() });
  await assertTenantKeys(databaseUrl);
  const poolSize = (ormOptions(databaseUrl).pool?.max ?? 10) + SERVER_READ_POOL;

  const adminKey = generateApiKey();
  await bootstrapAdministrator(orm, adminKey);
  const serverBase = await listen(await createApp(orm, appOptions(config)));

  const planned = SIZES.organizations * SIZES.projects * SIZES.tasks + (SIZES.largeProjects > 0 ? SIZES.largeTasks : 0);
  console.log(
    `seeding ${SIZES.organizations} organizations × ${SIZES.projects} projects × ${SIZES.tasks} tasks + 1 × ${SIZES.largeProjects} projects sharing ${SIZES.largeTasks} tasks (${planned} tasks) ...`,
  );
  const seeded = await seed(serverBase, adminKey, databaseUrl, SIZES);
  console.log(`seeded ${seeded.organizations} organizations, ${seeded.projects} projects, ${seeded.tasks} tasks in ${seeded.seconds.toFixed(1)} s`);

  const cases = benchCases(seeded).filter((c) => selected.includes(c.id));
  const start = async (name: Baseline, script: string, env?: Record<string, string>) => {
    const child = await startBaseline(BASELINE_NAMES[name], script, databaseUrl, poolSize, env);
    cleanups.push({ name: BASELINE_NAMES[name], run: () => child.stop() });
    return child;
  };
  const baselines: Sides['baselines'] = { least: await start('least', 'least-sql'), same: await start('same', 'same-sql') };
  if (cases.some((c) => c.postgraphile)) {
    await createRlsRole(databaseUrl, rlsRole);
    baselines.postgraphile = await start('postgraphile', 'postgraphile', { BENCH_RLS_ROLE: rlsRole });
  }
  const sides: Sides = { serverBase, baselines, keys: { member: seeded.memberKey, small: seeded.smallMemberKey, admin: adminKey } };

  console.log(
    `\n${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per case and side, server ${SERVER_LAST ? 'last' : 'first'}; ` +
      `${poolSize} database connections each; ${describeData(seeded)}\n`,
  );
  const results: CaseResult[] = [];
  const observer = new PhaseObserver(process.env.BENCH_PROFILE || undefined);
  for (const benchCase of cases) results.push(await runCase(benchCase, sides, observer));
  await printReport(results, sides);
}

/** The columns least SQL is written against must exist: the tenant key and the liveness flag of every row below an organization. */
async function assertTenantKeys(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select table_name, column_name from information_schema.columns
        where table_schema = 'public' and (table_name, column_name) in (('task', 'tenant_id'), ('task', 'parent_hidden'), ('project', 'parent_hidden'))`,
    );
    if (rows.length < 3)
      throw new Error('the schema lacks task.tenant_id, task.parent_hidden or project.parent_hidden, which the baselines are written against');
  } finally {
    await client.end();
  }
}

/** Starts the app on a loopback port (closed at the end) and returns its base URL. */
async function listen(app: Awaited<ReturnType<typeof createApp>>): Promise<string> {
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
  return `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
}

function describeData(seeded: SeedResult): string {
  return (
    `${seeded.tasks} tasks in ${seeded.projects} projects of ${seeded.organizations} organizations; callers: ` +
    `member (${CALLERS.member}, ${seeded.tasks} tasks), small (${CALLERS.small}, ${seeded.smallTasks} tasks), admin (${CALLERS.admin})`
  );
}

const headersOf = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });

/** One case: the answers checked, then the server and each baseline measured in turn. */
async function runCase(benchCase: BenchCase, sides: Sides, observer: PhaseObserver): Promise<CaseResult> {
  const headers = headersOf(sides.keys[benchCase.caller]);
  const sameStatements = await checkAnswers(benchCase, sides, headers);
  const measureServer = () => measure('server', sides.serverBase, headers, benchCase.requests, benchCase.id, async () => queryCounter.total, observer);
  const serverFirst = SERVER_LAST ? undefined : await measureServer();
  const measured: CaseResult['baselines'] = {};
  for (const name of BASELINES) {
    const child = sides.baselines[name];
    const requests = name === 'postgraphile' ? benchCase.postgraphile : benchCase.requests;
    if (!child || !requests) continue;
    measured[name] = await measure(name, child.base, headers, requests, benchCase.id, async () => (await child.stats()).statements);
    // Until its idle connections have closed (baseline-process.ts), so that two baselines never hold theirs at once.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 500));
  }
  const server = serverFirst ?? (await measureServer());
  const rates = [
    `server ${server.requestsPerSecond.toFixed(0)}`,
    ...BASELINES.filter((b) => measured[b]).map((b) => `${BASELINE_NAMES[b]} ${measured[b]!.requestsPerSecond.toFixed(0)}`),
  ];
  console.log(`${benchCase.id.padEnd(20)} ${benchCase.caller.padEnd(6)} req/s: ${rates.join(', ')}`);
  return { id: benchCase.id, request: benchCase.request, caller: benchCase.caller, server, baselines: measured, sameStatements };
}

/**
 * Every side must answer the case's first request alike, or the comparison is void: the express
 * baselines with the server's JSON, PostGraphile with its rows. Then one more request to the server and
 * to the same-SQL baseline with their statements recorded (caches warm now): whether the texts match.
 */
async function checkAnswers(benchCase: BenchCase, sides: Sides, headers: Record<string, string>): Promise<boolean | undefined> {
  const first = benchCase.requests[0];
  const server = await answer(sides.serverBase, first, headers, counterRange());
  for (const name of ['least', 'same'] as const) {
    const child = sides.baselines[name];
    if (child) assertSameJson(benchCase.id, BASELINE_NAMES[name], server, await answer(child.base, first, headers, counterRange()), benchCase.volatile);
  }
  const postgraphile = sides.baselines.postgraphile;
  if (postgraphile && benchCase.postgraphile) {
    const rows = postgraphileRows(benchCase.shape, await answer(postgraphile.base, benchCase.postgraphile[0], headers, 0));
    assertSameRows(benchCase.id, serverRows(benchCase.shape, server), rows);
  }
  return sides.baselines.same && compareStatements(benchCase, sides.serverBase, sides.baselines.same, first, headers);
}

/** Records the statements of one request on the server and on the same-SQL baseline; prints where they part. */
async function compareStatements(
  benchCase: BenchCase,
  serverBase: string,
  same: BaselineProcess,
  planned: PlannedRequest,
  headers: Record<string, string>,
): Promise<boolean> {
  const serverStatements = await recordingServer(() => answer(serverBase, planned, headers, counterRange()));
  await same.record();
  await answer(same.base, planned, headers, counterRange());
  const difference = sqlDifference(serverStatements, (await same.stats()).recorded ?? []);
  if (difference) console.log(`${benchCase.id}: the same-SQL baseline no longer sends the server's statements: ${difference}`);
  return difference === undefined;
}

/** The statements the server sends while `work` runs. */
async function recordingServer(work: () => Promise<unknown>): Promise<SentStatement[]> {
  const recorded: NonNullable<typeof queryCounter.recorded> = [];
  queryCounter.recorded = recorded;
  try {
    await work();
  } finally {
    queryCounter.recorded = undefined;
  }
  return recorded.map((statement) => ({ text: statement.text, named: Boolean(statement.name) }));
}

/**
 * One case against one side: warm-up, then (counters read while nothing is in flight) the measured
 * phase. `statements` reads that side's running count of SQL statements; `observer` watches the server.
 */
async function measure(
  side: string,
  base: string,
  headers: Record<string, string>,
  requests: PlannedRequest[],
  caseId: string,
  statements: () => Promise<number>,
  observer?: PhaseObserver,
): Promise<Measured> {
  const job: LoadJob = { base, headers, requests, connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, seconds: SECONDS, counterStart: counterRange() };
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
  const gcMs = await observer?.stop(caseId);
  const after = await statements();
  if (result.failure) throw new Error(`${caseId}, ${side}: ${result.failure}`);
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

/** The tables, with the peak RSS of every process. */
async function printReport(results: CaseResult[], sides: Sides): Promise<void> {
  const rss: PeakRss = { server: process.resourceUsage().maxRSS / 1024 };
  for (const name of BASELINES) {
    const child = sides.baselines[name];
    if (child) rss[name] = (await child.stats()).maxRssKb / 1024;
  }
  console.log(`\n${textTable(results, rss)}\n`);
  console.log(`Markdown (${CONNECTIONS} connections, ${SECONDS} s per case and side, ${SIZES.largeTasks} tasks in the large organization):\n`);
  console.log(markdownTable(results, rss));
}

main().then(
  () => finish(0),
  (error: unknown) => {
    console.error(error);
    return finish(1);
  },
);
