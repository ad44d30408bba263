import 'reflect-metadata';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/modules/access/api-keys';
import type { Answer } from '../support/server';
import { childDataDir, startChildServer, type ChildServer } from './support/child-server';
import { scratchDatabase, type ScratchDatabase } from './support/database';
import { STRESS, tally } from './support/figures';

/**
 * A soak (`npm run test:stress` only): the built server as a child process on a database of its own,
 * SOAK_SECONDS (default 300) of mixed reads and writes at a steady SOAK_RATE (default 40 requests a
 * second): not one unexpected answer or logged error, and its memory after the warm-up
 * (SOAK_WARMUP_SECONDS, default half the run, at most 60 s) growing by less than 10% (memoryGrowth).
 * The server runs as `npm start` runs it, plus node's --trace-gc, whose lines give the heap each full
 * collection leaves; its resident memory is read from /proc/<pid>/status.
 */

const SECONDS = Number(process.env.SOAK_SECONDS || 300);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS || Math.min(60, Math.round(SECONDS / 2)));
const RATE = Number(process.env.SOAK_RATE || 40);
/** Requests in flight at most: a slow answer delays the next ones rather than piling requests up. */
const WORKERS = 8;

let database: ScratchDatabase | undefined;
let dataDir: ReturnType<typeof childDataDir> | undefined;
let server: ChildServer | undefined;

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  dataDir?.remove();
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `[seconds since the start, bytes]` points, the curve in ten of them (a leak climbs to the end, a warm heap levels off). */
function curveOf(points: [number, number][]): string {
  const picked = Array.from(
    { length: Math.min(10, points.length) },
    (_, i) => points[Math.min(points.length - 1, Math.round(((i + 1) * points.length) / Math.min(10, points.length)) - 1)],
  );
  return `${picked.map(([at, bytes]) => `${at.toFixed(0)} s ${(bytes / 1024 / 1024).toFixed(0)}`).join(', ')} MB`;
}

/**
 * Growth after the warm-up: of the heap each full collection left (what a leak shows: RSS also holds
 * garbage not yet collected, and saws up and down with V8's collections), comparing the medians of the
 * first and last few collections; of RSS (first and last tenth of the samples) when the run saw fewer
 * than four full collections after its warm-up.
 */
function memoryGrowth(rss: [number, number][], heap: [number, number][]): { growth: number; lines: string[] } {
  const steadyHeap = heap.filter(([at]) => at >= WARMUP_SECONDS).map(([, bytes]) => bytes);
  const steadyRss = rss.filter(([at]) => at >= WARMUP_SECONDS).map(([, bytes]) => bytes);
  const byHeap = steadyHeap.length >= 4;
  const values = byHeap ? steadyHeap : steadyRss;
  const window = byHeap ? Math.max(2, Math.round(values.length / 5)) : Math.max(5, Math.round(values.length / 10));
  const baseline = median(values.slice(0, window));
  const final = median(values.slice(-window));
  const growth = final / baseline - 1;
  const measure = byHeap
    ? `heap left by full collections (${steadyHeap.length} after the warm-up)`
    : `RSS (only ${steadyHeap.length} full collections after the warm-up)`;
  return {
    growth,
    lines: [
      `${measure} after ${WARMUP_SECONDS} s of warm-up ${megabytes(baseline)}, at the end ${megabytes(final)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%)`,
      `heap left by full collections: ${heap.length ? curveOf(heap) : 'none'}`,
      `RSS: ${curveOf(rss)}, peak ${megabytes(Math.max(...rss.map(([, bytes]) => bytes)))}`,
    ],
  };
}

describe.skipIf(!STRESS)('a soak of mixed reads and writes at steady load', () => {
  it(
    `${SECONDS} s at ${RATE} requests/s: no error, memory after the warm-up growing by less than 10%`,
    async ({ task }) => {
      const counts = tally(task);
      database = await scratchDatabase('platform_soak');
      dataDir = childDataDir();
      const live = await startChildServer({ databaseUrl: database.url, adminKey: generateApiKey(), dataDir: dataDir.path, traceGc: true });
      server = live;

      const organization = await live.request('POST', '/api/organizations', { body: { name: 'Soak' } });
      expect(organization.status, organization.text).toBe(201);
      const projects: string[] = [];
      for (let i = 0; i < 5; i++) {
        const project = await live.request('POST', '/api/projects', { body: { name: `Soak ${i}`, organizationId: organization.body.id } });
        expect(project.status, project.text).toBe(201);
        projects.push(project.body.id);
      }
      /** Tasks the reads and updates pick from; deletes take theirs from `disposable` alone, so that no read meets a task deleted meanwhile. */
      const tasks: string[] = [];
      const disposable: string[] = [];
      const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
      const nested = `query($id: ID!) { organization(id: $id) { name projects(pageSize: 5) { content { name tasks(pageSize: 10, sort: "priority:desc") { totalElements content { title priority } } } } } }`;

      /** One request of the mix, and the status it must answer. */
      const operations: [number, () => Promise<[Answer, number]>][] = [
        [
          20,
          async () => {
            const answer = await live.request('POST', '/api/tasks', {
              body: { projectId: pick(projects), title: `soak ${Date.now()}`, priority: Math.floor(Math.random() * 5) },
            });
            if (answer.status === 201) (Math.random() < 0.3 ? disposable : tasks).push(answer.body.id);
            return [answer, 201];
          },
        ],
        [30, async () => [await live.request('GET', `/api/tasks/${pick(tasks)}`), 200]],
        [
          20,
          async () => [
            await live.request(
              'GET',
              `/api/tasks?filter=${encodeURIComponent(`projectId==${pick(projects)};priority>=${Math.floor(Math.random() * 5)}`)}&sort=createdOn:desc&pageSize=20`,
            ),
            200,
          ],
        ],
        [10, async () => [await live.request('POST', '/graphql', { body: { query: nested, variables: { id: organization.body.id } } }), 200]],
        [
          15,
          async () => [
            await live.request('PUT', `/api/tasks/${pick(tasks)}`, { body: { description: `changed ${Date.now()}`, priority: Math.floor(Math.random() * 5) } }),
            200,
          ],
        ],
        [
          5,
          async () => {
            const id = disposable.pop();
            return id ? [await live.request('DELETE', `/api/tasks/${id}`), 204] : operations[0][1]();
          },
        ],
      ];
      const total = operations.reduce((sum, [weight]) => sum + weight, 0);
      const chooseOperation = () => {
        let roll = Math.random() * total;
        for (const [weight, operation] of operations) if ((roll -= weight) < 0) return operation;
        return operations[0][1];
      };
      // Seed the reads.
      for (let i = 0; i < 50; i++) await operations[0][1]();

      const unexpected: string[] = [];
      const latencies: number[] = [];
      const started = Date.now();
      const ends = started + SECONDS * 1000;
      let sent = 0;
      const worker = async () => {
        while (Date.now() < ends) {
          // Steady pace: request n goes out at started + n / RATE, whichever worker is free.
          const due = started + (sent++ * 1000) / RATE;
          if (due > Date.now()) await sleep(due - Date.now());
          if (Date.now() >= ends) return;
          const operation = tasks.length > 20 ? chooseOperation() : operations[0][1];
          const begun = performance.now();
          const [answer, expected] = await operation().catch((error: Error) => [{ status: 0, text: error.message } as Answer, 1] as [Answer, number]);
          latencies.push(performance.now() - begun);
          counts.ran();
          counts.answered(answer.status);
          const graphqlErrors = answer.status === 200 && answer.body?.errors;
          if (answer.status !== expected || graphqlErrors) unexpected.push(`${answer.status} (expected ${expected}) ${answer.text.slice(0, 200)}`);
        }
      };

      /** VmRSS once a second, with the seconds since the start. */
      const samples: [number, number][] = [];
      const sampler = (async () => {
        while (Date.now() < ends) {
          samples.push([(Date.now() - started) / 1000, live.rss()]);
          await sleep(1000);
        }
      })();
      await Promise.all([...Array.from({ length: WORKERS }, worker), sampler]);

      latencies.sort((a, b) => a - b);
      const requests = latencies.length;
      const elapsed = (Date.now() - started) / 1000;
      const memory = memoryGrowth(
        samples,
        live.fullCollections().map(({ at, heapAfter }) => [(at - started) / 1000, heapAfter * 1024 * 1024]),
      );
      const summary = [
        `${requests} requests in ${elapsed.toFixed(0)} s (${(requests / elapsed).toFixed(1)}/s), p50 ${latencies[Math.floor(requests / 2)].toFixed(1)} ms, p99 ${latencies[Math.floor(requests * 0.99)].toFixed(1)} ms, unexpected answers ${unexpected.length}`,
        ...memory.lines,
      ];
      for (const line of summary) {
        console.log(`soak: ${line}`);
        counts.note(line);
      }
      expect(unexpected.slice(0, 10), `${unexpected.length} unexpected answers`).toEqual([]);
      expect(live.errorLines(), 'errors the server logged').toEqual([]);
      expect(memory.growth, memory.lines[0]).toBeLessThan(0.1);
    },
    (SECONDS + 180) * 1000,
  );
});
