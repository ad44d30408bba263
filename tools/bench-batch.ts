import './bench/env';
import '../src/env';
import 'reflect-metadata';
import { queryCounter } from '../src/database/query-counter';
import { call, pooled, type Api } from './bench/http';
import { PhaseObserver } from './bench/observe';
import { exitWhenDone, onScratchServer } from './bench/scratch-server';

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
  await onScratchServer('bench_batch', async (api) => {
    const { memberKey, ids } = await seed(api);
    const member = { ...api, key: memberKey };
    let value = 0;
    const sides: Record<string, () => Promise<void>> = {
      'one batch': async () => {
        const { results } = await call(member, 'POST', '/api/batch-update', { operations: ids.map((id) => ({ id, summary: `v${++value}` })) });
        if (!results.every((r: { ok: boolean }) => r.ok)) throw new Error('an operation of the batch failed');
      },
      'single PUTs, one at a time': () => pooled(ids.length, 1, (i) => call(member, 'PUT', `/api/content-objects/${ids[i]}`, { summary: `v${++value}` })),
      [`single PUTs, ${CONNECTIONS} in flight`]: () =>
        pooled(ids.length, CONNECTIONS, (i) => call(member, 'PUT', `/api/content-objects/${ids[i]}`, { summary: `v${++value}` })),
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
  });
}

exitWhenDone(main());
