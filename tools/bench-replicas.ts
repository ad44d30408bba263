import './bench/env';
import '../src/env';
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { appOptions, createApp } from '../src/app';
import { bootstrapAdministrator } from '../src/auth/bootstrap';
import { loadConfig } from '../src/config/config';
import { openDatabase } from '../src/database/orm';
import { lsnOf } from '../src/database/write-positions';
import { generateApiKey } from '../src/modules/access/api-keys';
import { startReplicatedDatabase } from './bench/streaming-replicas';
import { exitWhenDone } from './bench/scratch-server';
import type { LoadJob, LoadMessage, LoadResult, PlannedRequest } from './bench/load';
import { seed } from './bench/seed';

/**
 * `npm run bench:replicas`: the same reads against this server with 0, 1 and 2 read replicas, on a
 * primary and two streaming replicas of it started here (clusters of the embedded PostgreSQL). Seeds
 * BENCH_LARGE_TASKS tasks (default 100,000), then for each number of replicas measures, BENCH_SECONDS
 * (10) after one warm-up second, a member's get-by-id and page of 100 with its total, BENCH_CONNECTIONS
 * (20) in flight, twice over (0, 1, 2, then 0, 1, 2 again), and prints the second round's requests per
 * second and where the reads went.
 */

const TASKS = Number(process.env.BENCH_LARGE_TASKS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

function measure(job: LoadJob): Promise<LoadResult> {
  const worker = new Worker(join(__dirname, 'bench', 'load.js'), { workerData: job });
  return new Promise<LoadResult>((resolve, reject) => {
    worker.on('message', (message: LoadMessage) => {
      if (message.type === 'done') resolve(message.result);
      else worker.postMessage('go');
    });
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

/** Waits until every replica has replayed what the primary has written. */
async function caughtUp(primaryUrl: string, replicaUrls: string[]): Promise<void> {
  const position = async (url: string, sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ lsn: string }>(sql)).rows[0].lsn;
    } finally {
      await client.end();
    }
  };
  const target = await position(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
  for (const url of replicaUrls) {
    for (;;) {
      const [wanted, replayed] = [target, await position(url, 'select pg_last_wal_replay_lsn()::text as lsn')].map(lsnOf);
      if (replayed >= wanted) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function main(): Promise<void> {
  const database = await startReplicatedDatabase(join(tmpdir(), `platform-bench-replicas-${process.pid}`), 2);
  const orm = await openDatabase(database.primaryUrl);
  try {
    const adminKey = generateApiKey();
    await bootstrapAdministrator(orm, adminKey);
    const config = loadConfig();
    let seeded: Awaited<ReturnType<typeof seed>> | undefined;
    const rows: string[] = [];
    // A first round warms every cluster up (the primary settles after the seeding); the second is reported.
    for (const [round, count] of [0, 1, 2, 0, 1, 2].entries()) {
      const reported = round >= 3;
      const app = await createApp(orm, {
        ...appOptions({ ...config, rateLimitPerMinute: 1_000_000_000, rateLimitBurstPerSecond: 1_000_000_000, rateLimitUserPerMinute: 1_000_000_000 }),
        workerConcurrency: 0,
        readReplicas: count ? { urls: database.replicaUrls.slice(0, count), maxLagSeconds: 5 } : undefined,
      });
      const listener: Server = app.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => listener.once('listening', resolve));
      const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      try {
        seeded ??= await seed(base, adminKey, database.primaryUrl, {
          organizations: 0,
          projects: 0,
          tasks: 0,
          largeProjects: 10,
          largeTasks: TASKS,
          sampleSize: 1000,
        });
        await caughtUp(database.primaryUrl, database.replicaUrls);
        const cases: [string, PlannedRequest[]][] = [
          ['get-by-id', seeded.taskIds.map((id) => ({ method: 'GET', path: `/api/tasks/${id}` }))],
          ['page-100', [{ method: 'GET', path: '/api/tasks?pageSize=100' }]],
        ];
        for (const [name, requests] of cases) {
          const result = await measure({
            base,
            headers: { 'x-api-key': seeded.memberKey },
            requests,
            connections: CONNECTIONS,
            warmupSeconds: 1,
            seconds: SECONDS,
            counterStart: 0,
          });
          if (result.failure) throw new Error(`${name} with ${count} replicas: ${result.failure}`);
          if (!reported) continue;
          const sorted = result.latencies.sort((a, b) => a - b);
          const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
          rows.push(`| ${name} | ${count} | ${Math.round(result.requests / result.seconds)} | ${p(0.5)} / ${p(0.99)} |`);
        }
        const metrics = await (await fetch(`${base}/metrics`, { headers: { 'x-api-key': adminKey } })).text();
        const reads = [...metrics.matchAll(/^database_reads_total\{target="([^"]+)"\} (\d+)$/gm)].map((m) => `${m[1]} ${m[2]}`).join(', ');
        if (reported) rows.push(`| (reads by target, both rounds) | ${count} | ${reads || 'primary only'} | |`);
      } finally {
        listener.closeAllConnections();
        listener.close();
        await app.close();
      }
    }
    console.log(`\n${TASKS.toLocaleString('en')} tasks, a member's reads, ${CONNECTIONS} in flight, ${SECONDS} s each\n`);
    console.log('| case | replicas | req/s | p50 / p99 ms |');
    console.log('|---|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    await orm.close();
    await database.close();
  }
}

exitWhenDone(main());
