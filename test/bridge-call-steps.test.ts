import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { Upstream } from './support/upstream';

/**
 * BRIDGE_CALL steps of activities started by a fired manual trigger, run by this server's worker with
 * 127.0.0.1 allowlisted. On a database of its own, so that no other suite's worker (with another
 * allowlist) takes the jobs.
 */
type Row = Record<string, any>;

const databaseName = `platform_bridge_steps_${process.pid}_${Date.now()}`;
const serverUrl = inject('databaseUrl');
let server: TestServer;
let upstream: Upstream;
let org: Row;
let project: Row;
const secretValue = `step-sk-${randomUUID()}`;

beforeAll(async () => {
  await ensureDatabase(serverUrl, databaseName);
  upstream = await Upstream.start();
  server = await startServer({ databaseUrl: withDatabase(serverUrl, databaseName), workerConcurrency: 2, egress: { privateHostAllowlist: ['127.0.0.1'] } });
  org = await createOrganization(server);
  project = await createProject(server, org.id);
  const secret = await server.request('POST', `/api/organizations/${org.id}/secrets`, { body: { name: 'STEP_KEY', value: secretValue } });
  expect(secret.status, secret.text).toBe(201);
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await dropDatabase(serverUrl, databaseName);
});

async function created(path: string, body: Row): Promise<Row> {
  const answer = await server.request('POST', path, { body });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** Fires a manual trigger of a plan with `steps` and waits for its activity to finish. */
async function run(steps: Row[]): Promise<Row> {
  const plan = await created('/api/activity-plans', { name: unique('Plan'), organizationId: org.id, steps });
  const trigger = await created('/api/triggers', {
    name: unique('Trigger'),
    projectId: project.id,
    eventKind: 'manual',
    activityPlanRef: `activity-plan://${org.slug}/${plan.slug}`,
  });
  const fired = await server.request('POST', `/api/triggers/${trigger.id}/fire`);
  expect(fired.status, fired.text).toBe(202);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const activity = (await server.request('GET', `/api/activities/${fired.body.id}`)).body;
    if (activity.status === 'COMPLETED' || activity.status === 'FAILED') return activity;
    if (Date.now() > deadline) throw new Error(`activity did not finish: ${JSON.stringify(activity)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a BRIDGE_CALL step', () => {
  it('calls the endpoint through the proxy and keeps {status, ok, body} for the steps after it', async () => {
    const bridge = await created('/api/service-bridges', {
      organizationId: org.id,
      name: unique('StepBridge'),
      baseUrl: upstream.origin(),
      defaultHeaders: [{ name: 'X-Key', value: '${secrets.STEP_KEY}' }],
      endpoints: [{ name: 'lookup', path: '/echo/customers' }],
    });
    const [seen] = await upstream.during(async () => {
      const activity = await run([
        { ref: 'lookup', stepType: 'BRIDGE_CALL', options: { bridge: bridge.slug, endpointName: 'lookup', query: { id: 42 }, body: { deep: true } } },
        { ref: 'url', stepType: 'SCRIPT', options: { expression: 'steps.lookup.body.url' } },
      ]);
      expect(activity.status, JSON.stringify(activity.errorDetails)).toBe('COMPLETED');
      expect(activity.steps[0].output).toMatchObject({ status: 200, ok: true, body: { method: 'POST', url: '/echo/customers?id=42', body: '{"deep":true}' } });
      expect(Object.keys(activity.steps[0].output).sort()).toEqual(['body', 'ok', 'status']);
      expect(activity.steps[0].output.body.headers['x-key']).toBe('[REDACTED]');
      expect(activity.steps[1].output).toBe('/echo/customers?id=42');
    });
    expect(seen.headers['x-key']).toBe(secretValue);
  });

  it('fails with the egress refusal, before any connection', async () => {
    const bridge = await created('/api/service-bridges', {
      organizationId: org.id,
      name: unique('Metadata'),
      baseUrl: 'http://169.254.169.254',
      endpoints: [{ name: 'credentials', path: '/latest/meta-data/iam' }],
    });
    const activity = await run([{ ref: 'steal', stepType: 'BRIDGE_CALL', options: { bridge: bridge.id, endpointName: 'credentials' } }]);
    expect(activity.status).toBe('FAILED');
    expect(activity.errorDetails).toMatchObject({
      ref: 'steal',
      stepType: 'BRIDGE_CALL',
      message: 'service bridge egress denied: 169.254.169.254 is a cloud metadata address',
    });
    expect(activity.steps[0]).toMatchObject({ status: 'FAILED', error: { message: activity.errorDetails.message } });
  });

  it("fails naming an endpoint the bridge does not have, or a bridge not of the activity's organization", async () => {
    const other = await createOrganization(server);
    const foreign = await created('/api/service-bridges', {
      organizationId: other.id,
      name: unique('Foreign'),
      baseUrl: upstream.origin(),
      endpoints: [{ name: 'e', path: '/echo' }],
    });
    const foreignBridge = await run([{ stepType: 'BRIDGE_CALL', options: { bridge: foreign.slug, endpointName: 'e' } }]);
    expect(foreignBridge.errorDetails.message).toBe(`no service bridge ${foreign.slug} in the activity's organization`);
    const own = await created('/api/service-bridges', {
      organizationId: org.id,
      name: unique('Own'),
      baseUrl: upstream.origin(),
      endpoints: [{ name: 'e', path: '/echo' }],
    });
    const missing = await run([{ stepType: 'BRIDGE_CALL', options: { bridge: own.id, endpointName: 'f' } }]);
    expect(missing.errorDetails.message).toBe(`service bridge ${own.slug} has no endpoint "f" (its endpoints: e)`);
  });
});

describe('a BRIDGE_CALL step waiting on its upstream', () => {
  it('holds no lock on its activity: the orchestrator callback answers at once, and the late answer is not recorded', async () => {
    const bridge = await created('/api/service-bridges', {
      organizationId: org.id,
      name: unique('SlowBridge'),
      baseUrl: upstream.origin(),
      endpoints: [{ name: 'slow', path: '/slow' }],
    });
    const plan = await created('/api/activity-plans', {
      name: unique('Plan'),
      organizationId: org.id,
      steps: [{ ref: 'wait', stepType: 'BRIDGE_CALL', options: { bridge: bridge.slug, endpointName: 'slow' } }],
    });
    const trigger = await created('/api/triggers', {
      name: unique('Trigger'),
      projectId: project.id,
      eventKind: 'manual',
      activityPlanRef: `activity-plan://${org.slug}/${plan.slug}`,
    });
    const fired = await server.request('POST', `/api/triggers/${trigger.id}/fire`);
    const id = fired.body.id;
    for (let i = 0; (await server.request('GET', `/api/activities/${id}`)).body.status !== 'RUNNING'; i++) {
      if (i > 200) throw new Error('the activity did not start');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const stepId = (await server.request('GET', `/api/activities/${id}`)).body.steps[0].id;
    const started = Date.now();
    const callback = await server.request('POST', `/api/orchestrator/activities/${id}/steps/${stepId}/error`, { body: { reason: 'given up' } });
    expect(callback.status, callback.text).toBe(202);
    // The upstream answers after 5 s; a lock held across the call would have made the callback wait for it.
    expect(Date.now() - started).toBeLessThan(2_000);
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const after = (await server.request('GET', `/api/activities/${id}`)).body;
    expect(after).toMatchObject({ status: 'FAILED', errorDetails: { reason: 'given up' } });
    expect(after.steps[0]).toMatchObject({ status: 'FAILED', error: { reason: 'given up' } });
  }, 20_000);
});
