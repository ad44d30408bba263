import './bench/env';
import '../src/env';
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { seed } from './bench/seed';
import { exitWhenDone, onScratchServer } from './bench/scratch-server';

/**
 * `npm run bench:export`: a member exports every task of an organization of BENCH_EXPORT_TASKS tasks
 * (default 1,000,000) as NDJSON and as CSV, on a scratch database; prints rows per second, the bytes
 * sent, and the process's peak RSS during each export against its RSS before (the server runs in this
 * process; the client only counts what it reads). Beside it, the least SQL for the same rows: one
 * `COPY (select ...) TO STDOUT WITH CSV HEADER` of the same tenant's live tasks in the same order,
 * through psql, when psql is on the PATH.
 */

const TASKS = Number(process.env.BENCH_EXPORT_TASKS ?? 1_000_000);

interface Measured {
  rows: number;
  bytes: number;
  seconds: number;
  peakRssMb?: number;
}

/** Reads the whole answer of an export, counting its lines and bytes, while sampling this process's RSS. */
function exported(base: string, key: string, format: 'csv' | 'ndjson'): Promise<Measured> {
  return new Promise((resolve, reject) => {
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
    const started = performance.now();
    let bytes = 0;
    let lines = 0;
    const req = request(`${base}/api/tasks/export?format=${format}`, { headers: { 'x-api-key': key } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        resolve({ rows: format === 'csv' ? lines - 1 : lines, bytes, seconds: (performance.now() - started) / 1000, peakRssMb: peak / 2 ** 20 });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The least SQL: psql's COPY of the same rows (a task's columns, the tenant's live tasks, the list's order). */
function copied(databaseUrl: string, organizationId: string): Measured | undefined {
  const sql = `\\copy (select * from task where tenant_id = '${organizationId}' and not deleted and not parent_hidden order by created_on, id) to stdout with csv header`;
  const started = performance.now();
  const run = spawnSync('psql', [databaseUrl, '-X', '-q', '-c', sql], { maxBuffer: 2 ** 31, encoding: 'buffer' });
  if (run.error || run.status !== 0) return undefined;
  const text = run.stdout;
  let lines = 0;
  for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, i + 1)) lines++;
  return { rows: lines - 1, bytes: text.length, seconds: (performance.now() - started) / 1000 };
}

function line(side: string, m: Measured | undefined): string {
  if (!m) return `| ${side} | - | - | - | - |`;
  const rss = m.peakRssMb === undefined ? '-' : m.peakRssMb.toFixed(0);
  return `| ${side} | ${m.rows.toLocaleString('en')} | ${Math.round(m.rows / m.seconds).toLocaleString('en')} | ${(m.bytes / 2 ** 20).toFixed(0)} | ${rss} |`;
}

async function main(): Promise<void> {
  await onScratchServer('bench_export', async (api, orm) => {
    const databaseUrl = orm.config.getClientUrl(true);
    const seeded = await seed(api.base, api.key, databaseUrl, {
      organizations: 0,
      projects: 0,
      tasks: 0,
      largeProjects: 10,
      largeTasks: TASKS,
      sampleSize: 1,
    });
    const [organization] = await orm.em.fork().getConnection().execute<{ id: string }[]>(`select id from organization where slug = 'bench-org-large'`);
    global.gc?.();
    const before = process.memoryUsage.rss() / 2 ** 20;
    const ndjson = await exported(api.base, seeded.memberKey, 'ndjson');
    const csv = await exported(api.base, seeded.memberKey, 'csv');
    const least = copied(databaseUrl, organization.id);
    for (const m of [ndjson, csv]) if (m.rows !== TASKS) throw new Error(`an export held ${m.rows} rows, not ${TASKS}`);
    console.log(`\n${TASKS.toLocaleString('en')} tasks of one organization, exported by a member; RSS before the exports ${before.toFixed(0)} MB\n`);
    console.log('| export | rows | rows/s | MB sent | peak RSS MB |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(line('NDJSON', ndjson));
    console.log(line('CSV', csv));
    console.log(line('least SQL: psql COPY … CSV HEADER', least));
  });
}

exitWhenDone(main());
