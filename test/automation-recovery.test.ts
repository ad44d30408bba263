import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * A worker process killed while an activity runs: after a restart the activity completes, and the step
 * that had completed before the crash is not run again. On a database of its own, so that no other
 * suite's worker takes the job.
 */
const databaseName = `platform_recovery_${process.pid}_${Date.now()}`;
const serverUrl = inject('databaseUrl');
const databaseUrl = withDatabase(serverUrl, databaseName);
const dataDir = mkdtempSync(join(tmpdir(), 'platform-recovery-'));
let api: TestServer;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  await ensureDatabase(serverUrl, databaseName);
  // This process writes and reads; only the child processes run jobs.
  api = await startServer({ databaseUrl, workerConcurrency: 0 });
});

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await api?.close();
  await dropDatabase(serverUrl, databaseName);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The built server (`npm run build`) as its own process, running one job at a time. */
async function startWorkerProcess(): Promise<ChildProcess> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'src', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      WORKER_CONCURRENCY: '1',
      EXPRESSION_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
    },
    stdio: 'ignore',
  });
  workers.push(child);
  await until('the worker process to answer', async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok === true);
  return child;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function activity(id: string): Promise<Record<string, any>> {
  return (await api.request('GET', `/api/activities/${id}`)).body;
}

describe('a worker killed mid-activity', () => {
  it('leaves the activity to complete after a restart, without repeating its completed step', async () => {
    const org = await createOrganization(api);
    const project = await createProject(api, org.id);
    // A slow second step: the process is killed while it runs.
    const slow = Array.from({ length: 60 }, () => '$sum([1..1000000])').join(' + ');
    const plan = await api.request('POST', '/api/activity-plans', {
      body: {
        name: unique('Recoverable'),
        organizationId: org.id,
        steps: [
          { ref: 'task', stepType: 'CREATE_TASK', options: { taskData: { title: 'made once' } } },
          { ref: 'slow', stepType: 'SCRIPT', options: { expression: slow } },
        ],
      },
    });
    expect(plan.status, plan.text).toBe(201);
    const trigger = await api.request('POST', '/api/triggers', {
      body: { name: 'by hand', projectId: project.id, eventKind: 'manual', activityPlanRef: `activity-plan://${org.slug}/${plan.body.slug}` },
    });
    expect(trigger.status, trigger.text).toBe(201);

    const first = await startWorkerProcess();
    const fired = await api.request('POST', `/api/triggers/${trigger.body.id}/fire`, { body: {} });
    expect(fired.status, fired.text).toBe(202);
    const id = fired.body.id;
    await until('the first step to complete', async () => (await activity(id)).steps[0].status === 'COMPLETED');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    // Killed mid-run: the first step done, the second not, the activity still RUNNING.
    const killed = await activity(id);
    expect(killed.status).toBe('RUNNING');
    expect(killed.steps.map((s: { status: string }) => s.status)).toEqual(['COMPLETED', 'PENDING']);

    await startWorkerProcess();
    await until('the activity to complete', async () => (await activity(id)).status === 'COMPLETED', 60_000);
    const done = await activity(id);
    expect(done.steps.map((s: { status: string }) => s.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(done.steps[1].output).toBe(60 * 500000500000);
    const tasks = await api.request('GET', `/api/tasks?filter=${encodeURIComponent(`projectId==${project.id}`)}`);
    expect(tasks.body.content.map((t: { title: string; createdByActivityId: string }) => [t.title, t.createdByActivityId])).toEqual([['made once', id]]);
  }, 120_000);
});
