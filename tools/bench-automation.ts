import './bench/env';
import '../src/env';
import 'reflect-metadata';
import { percentile } from './bench/report';
import { call, pooled } from './bench/http';
import { exitWhenDone, onScratchServer } from './bench/scratch-server';

/**
 * `npm run bench:automation`: a task_created trigger whose plan is one CREATE_TASK step, on a scratch
 * database, with this process's worker (WORKER_CONCURRENCY, default 4) running the activities.
 *  - throughput: BENCH_ACTIVITIES source tasks created BENCH_CONNECTIONS at a time; activities completed
 *    per second, from the first source task to the last activity's completion;
 *  - latency: BENCH_LATENCY_SAMPLES source tasks one at a time, each waited for: the time from a source
 *    task's creation to its generated task's creation (both the database's timestamps), p50 and p99.
 *
 * Environment (all optional): DATABASE_URL (default: the embedded PostgreSQL), WORKER_CONCURRENCY (4),
 * BENCH_ACTIVITIES (1000), BENCH_CONNECTIONS (20), BENCH_LATENCY_SAMPLES (100).
 */
const ACTIVITIES = Number(process.env.BENCH_ACTIVITIES ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100);

async function main(): Promise<void> {
  await onScratchServer('bench_automation', async (api, orm, config) => {
    if (config.workerConcurrency === 0) throw new Error('WORKER_CONCURRENCY=0 runs no worker: nothing would complete');
    const sql = async <R>(text: string, params: unknown[]) => (await orm.em.fork().getConnection().execute(text, params)) as R[];
    const organization = await call(api, 'POST', '/api/organizations', { name: 'Bench Automation Org' });
    const project = await call(api, 'POST', '/api/projects', { organizationId: organization.id, name: 'Bench Automation' });
    const plan = await call(api, 'POST', '/api/activity-plans', {
      organizationId: organization.id,
      name: 'Follow up',
      steps: [{ ref: 'follow-up', stepType: 'CREATE_TASK', options: { taskData: { title: 'Follow up on ${project.name}' } } }],
    });
    await call(api, 'POST', '/api/triggers', {
      projectId: project.id,
      name: 'On source task',
      eventKind: 'task_created',
      eventFilter: 'task.title = "source"',
      inputMapping: { source: 'task.id' },
      activityPlanRef: `activity-plan://${organization.slug}/${plan.slug}`,
    });
    const completed = async () =>
      Number((await sql<{ n: string }>(`select count(*) as n from activity where project_id = ? and status = 'COMPLETED'`, [project.id]))[0].n);
    const waitForCompleted = async (count: number) => {
      while ((await completed()) < count) await new Promise((resolve) => setTimeout(resolve, 5));
    };

    console.log(`worker concurrency ${config.workerConcurrency}; one CREATE_TASK step per activity\n`);
    const started = performance.now();
    await pooled(ACTIVITIES, CONNECTIONS, () => call(api, 'POST', '/api/tasks', { projectId: project.id, title: 'source' }));
    const posted = performance.now();
    await waitForCompleted(ACTIVITIES);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `throughput: ${ACTIVITIES} source tasks posted in ${((posted - started) / 1000).toFixed(2)} s (${CONNECTIONS} in flight); all ${ACTIVITIES} activities completed after ${seconds.toFixed(2)} s: ${(ACTIVITIES / seconds).toFixed(0)} activities/s`,
    );

    const sources: string[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      sources.push((await call(api, 'POST', '/api/tasks', { projectId: project.id, title: 'source' })).id);
      await waitForCompleted(ACTIVITIES + i + 1);
    }
    const latencies = (
      await sql<{ ms: string }>(
        `select extract(epoch from (generated.created_on - source.created_on)) * 1000 as ms
           from task generated
           join activity a on a.id::text = generated.created_by_activity_id
           join task source on source.id = (a.inputs ->> 'source')::uuid
          where source.id = any(?::uuid[])`,
        [`{${sources.join(',')}}`],
      )
    )
      .map((row) => Number(row.ms))
      .sort((a, b) => a - b);
    console.log(
      `latency from a source task's creation to its generated task (${latencies.length} one at a time): p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    );
  });
}

exitWhenDone(main());
