import './bench/env';
import '../env';
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appOptions, createApp } from '../app';
import { generateApiKey } from '../auth/api-keys';
import { bootstrapAdministrator } from '../auth/bootstrap';
import { loadConfig } from '../config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../database/database-url';
import { openDatabase } from '../database/orm';
import { queryCounter } from '../database/query-counter';
import { PhaseObserver } from './bench/observe';

/**
 * `npm run bench:batch`: 1,000 content-object updates as one POST /api/batch-update against the same
 * 1,000 as single PUT /api/content-objects/{id}, one after the other and BENCH_CONNECTIONS at a time,
 * on one scratch database seeded through the API. Every write changes its object. Prints the best and
 * the median of BENCH_ROUNDS rounds of each, and the SQL statements per update.
 *
 * Environment (all optional): DATABASE_URL (default: the embedded PostgreSQL), BENCH_OPERATIONS (1000),
 * BENCH_CONNECTIONS (20), BENCH_ROUNDS (5), BENCH_PROFILE (a folder: a CPU profile of each way's
 * measured rounds is written there).
 */

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

interface Api {
  base: string;
  key: string;
}

async function call(api: Api, method: string, path: string, body: unknown, key = api.key): Promise<any> {
  const response = await fetch(`${api.base}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Runs `work(i)` for i in 0..count-1, `inFlight` at a time. */
async function pooled(count: number, inFlight: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, async () => {
    while (next < count) await work(next++);
  }));
}

/** A member's key, and OPERATIONS content objects of one family of theirs. */
async function seed(api: Api): Promise<{ memberKey: string; ids: string[] }> {
  const user = await call(api, 'POST', '/api/users', { email: 'bench-batch@localhost', firstName: 'Bench' });
  const memberKey = (await call(api, 'POST', '/api/access-tokens', { name: 'bench-batch', userId: user.id })).token as string;
  const member = { ...api, key: memberKey };
  const organization = await call(member, 'POST', '/api/organizations', { name: 'Bench Batch Org' });
  const store = await call(member, 'POST', '/api/document-stores', { organizationId: organization.id, name: 'Bench Store' });
  const family = await call(member, 'POST', '/api/document-families', { documentStoreId: store.id, path: 'in/bench.pdf' });
  const ids: string[] = new Array(OPERATIONS);
  await pooled(OPERATIONS, CONNECTIONS, async (i) => {
    ids[i] = (await call(member, 'POST', '/api/content-objects', { documentFamilyId: family.id, name: `Content ${i}` })).id;
  });
  return { memberKey, ids };
}

interface Measured {
  seconds: number;
  statements: number;
}

async function timed(work: () => Promise<void>): Promise<Measured> {
  const statements = queryCounter.total;
  const started = performance.now();
  await work();
  return { seconds: (performance.now() - started) / 1000, statements: queryCounter.total - statements };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const server = await databaseServer(config.databaseUrl, config.dataDir);
  const scratch = `platform_bench_batch_${process.pid}`;
  await ensureDatabase(server.serverUrl, scratch);
  const orm = await openDatabase(withDatabase(server.serverUrl, scratch));
  const adminKey = generateApiKey();
  await bootstrapAdministrator(orm, adminKey);
  const app = await createApp(orm, appOptions(config));
  const listener: Server = app.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  try {
    const api = { base: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, key: adminKey };
    const { memberKey, ids } = await seed(api);
    const member = { ...api, key: memberKey };
    let value = 0;
    const sides: Record<string, () => Promise<void>> = {
      'one batch': async () => {
        const { results } = await call(member, 'POST', '/api/batch-update', { operations: ids.map((id) => ({ id, summary: `v${++value}` })) });
        if (!results.every((r: { ok: boolean }) => r.ok)) throw new Error('an operation of the batch failed');
      },
      'single PUTs, one at a time': () => pooled(ids.length, 1, (i) => call(member, 'PUT', `/api/content-objects/${ids[i]}`, { summary: `v${++value}` })),
      [`single PUTs, ${CONNECTIONS} in flight`]: () => pooled(ids.length, CONNECTIONS, (i) => call(member, 'PUT', `/api/content-objects/${ids[i]}`, { summary: `v${++value}` })),
    };
    console.log(`${ids.length} updates of distinct content objects, ${ROUNDS} rounds each (after one warm-up round)\n`);
    console.log('| how | best s | median s | updates/s (median) | SQL per update |');
    console.log('|---|---:|---:|---:|---:|');
    const observer = new PhaseObserver(process.env.BENCH_PROFILE || undefined);
    for (const [index, [name, work]] of Object.entries(sides).entries()) {
      await work();
      const rounds: Measured[] = [];
      await observer.start();
      for (let round = 0; round < ROUNDS; round++) rounds.push(await timed(work));
      await observer.stop(`batch-${index}`);
      const sorted = rounds.map((r) => r.seconds).sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      const perUpdate = rounds.reduce((sum, r) => sum + r.statements, 0) / rounds.length / ids.length;
      console.log(`| ${name} | ${sorted[0].toFixed(2)} | ${median.toFixed(2)} | ${(ids.length / median).toFixed(0)} | ${perUpdate.toFixed(1)} |`);
    }
  } finally {
    listener.closeAllConnections();
    listener.close();
    await app.close();
    await orm.close();
    await dropDatabase(server.serverUrl, scratch);
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
