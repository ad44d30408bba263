import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import pg from 'pg';
import { FORGET_IDLE_QUEUES_JOB, queuesPerOrganization } from '../src/jobs/job-queue';
import type { HostResolver } from '../src/egress/egress-guard';
import { scratchDatabase, type ScratchDatabase } from './reliability/support/database';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { until } from './support/server-process';
import { startServer, unique, type TestServer } from './support/server';
import { WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

/**
 * One organization's background work never delays another's: organization A floods the job queue with
 * slow webhook deliveries (its receiver answers 200, but only after a few seconds: they never fail) and
 * slow activities, organization B's next delivery still starts within 5 s, and A never holds more than
 * half of the workers. Also the endpoint cap (WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION) and what a delivery's
 * `lastError` may say. The suite has a database of its own, so that no other suite's worker runs its jobs.
 */

const WORKERS = 4;
/** How long A's receiver takes to answer each delivery. */
const SLOW_ANSWER_MS = 3_000;
/** The contract: another organization's next job starts within this. */
const FAIR_START_MS = 5_000;
const DEFAULT_MAX_ENDPOINTS = 20;

/** A host name that resolves to a private address; every other name as the system resolves it. */
const INTERNAL_HOST = 'internal.test';
const INTERNAL_ADDRESS = '10.0.0.7';
const resolve: HostResolver = async (hostname) =>
  hostname === INTERNAL_HOST ? [{ address: INTERNAL_ADDRESS, family: 4 }] : lookup(hostname, { all: true, verbatim: true });

let database: ScratchDatabase;
let server: TestServer;
let receiver: WebhookReceiver;
const { newCaller, rest } = callersOf(() => server);
let ownerA: Caller;
let ownerB: Caller;
let organizationA: Row;
let organizationB: string;

/** A's deliveries being answered right now, and the most there ever were at once. */
const slow = { inFlight: 0, most: 0 };

beforeAll(async () => {
  database = await scratchDatabase('platform_fair_workers');
  server = await startServer({
    databaseUrl: database.url,
    workerConcurrency: WORKERS,
    egress: { privateHostAllowlist: ['127.0.0.1'], resolve },
    // Long enough for A's slow answers; retries far off, so that a failed attempt stays as it failed.
    webhooks: { timeoutMs: SLOW_ANSWER_MS + 2_000, retryDelaysMs: [600_000] },
  });
  receiver = await WebhookReceiver.start();
  [ownerA, ownerB] = await Promise.all([newCaller('FairOwnerA'), newCaller('FairOwnerB')]);
  organizationA = await createOrganization(server, { name: unique('BusyOrg') }, ownerA.key);
  organizationB = (await createOrganization(server, { name: unique('QuietOrg') }, ownerB.key)).id;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
  await database?.drop();
});

type Row = Record<string, any>;

/** A new endpoint of the organization at `path` of the receiver (or at `url`), listening to `eventTypes`. */
async function endpoint(owner: Caller, organizationId: string, path: string, eventTypes: string[], url = receiver.url(path)): Promise<Row> {
  return rest(owner, 'POST', '/api/webhook-endpoints', 201, { organizationId, url, eventTypes });
}

/** A's endpoints (and its bridge) answer 200 after SLOW_ANSWER_MS; each request counts in flight until then. */
function answerSlowly(path: string, secret = 'unsigned'): void {
  receiver.register(path, secret, () => {
    slow.inFlight++;
    slow.most = Math.max(slow.most, slow.inFlight);
    setTimeout(() => slow.inFlight--, SLOW_ANSWER_MS);
    return { status: 200, afterMs: SLOW_ANSWER_MS };
  });
}

/**
 * A's trigger on its project's `task_created`: an activity whose one step calls a bridge endpoint that
 * answers slowly (as A's webhook receiver does).
 */
async function slowTrigger(projectId: string): Promise<void> {
  answerSlowly('/slow-bridge');
  const bridge = await rest(ownerA, 'POST', '/api/service-bridges', 201, {
    organizationId: organizationA.id,
    name: unique('SlowBridge'),
    baseUrl: receiver.url(''),
    endpoints: [{ name: 'slow', path: '/slow-bridge' }],
  });
  const plan = await rest(ownerA, 'POST', '/api/activity-plans', 201, {
    organizationId: organizationA.id,
    name: unique('SlowPlan'),
    steps: [{ ref: 'slow', stepType: 'BRIDGE_CALL', options: { bridge: bridge.slug, endpointName: 'slow' } }],
  });
  await rest(ownerA, 'POST', '/api/triggers', 201, {
    name: unique('SlowTrigger'),
    projectId,
    eventKind: 'task_created',
    activityPlanRef: `activity-plan://${organizationA.slug}/${plan.slug}`,
  });
}

/** The first request the receiver gets at `path`. */
function firstRequestTo(path: string): Promise<ReceivedWebhook & { arrivedAt: number }> {
  return new Promise((resolved) => {
    const earlier = receiver.onRequest;
    receiver.onRequest = (request) => {
      earlier?.(request);
      if (request.path === path) resolved({ ...request, arrivedAt: Date.now() });
    };
  });
}

async function deliveriesOf(owner: Caller, endpointId: string): Promise<Row[]> {
  return (await rest(owner, 'GET', `/api/webhook-deliveries?pageSize=100&filter=${encodeURIComponent(`endpointId==${endpointId}`)}`, 200)).content;
}

describe('job workers shared fairly between organizations', () => {
  let projectA: string;
  const activitiesOfA = async () =>
    (await rest(ownerA, 'GET', `/api/activities?pageSize=100&filter=${encodeURIComponent(`projectId==${projectA}`)}`, 200)).content;

  it('starts another organization’s delivery within 5 s while one organization floods the queue, which never holds more than half the workers', async () => {
    const half = Math.floor(WORKERS / 2);
    expect(queuesPerOrganization(WORKERS)).toBe(half);
    projectA = (await createProject(server, organizationA.id, {}, ownerA.key)).id;
    for (let i = 0; i < DEFAULT_MAX_ENDPOINTS; i++) {
      const path = `/busy/${i}`;
      answerSlowly(path, (await endpoint(ownerA, organizationA.id, path, ['task_created'])).signingSecret);
    }
    await slowTrigger(projectA);
    // 2 events to 20 endpoints and a trigger: 40 deliveries and 2 activities of 3 s each, 2 trigger
    // runs, far more than the workers can take at once.
    for (let i = 0; i < 2; i++) await createTask(server, projectA, { name: unique('busy') }, ownerA.key);
    await until('A holding every worker it may', () => slow.inFlight === half, 20_000);

    const quiet = await endpoint(ownerB, organizationB, '/quiet', ['task_created']);
    receiver.register('/quiet', quiet.signingSecret, () => 204);
    const projectB = (await createProject(server, organizationB, {}, ownerB.key)).id;
    const arrival = firstRequestTo('/quiet');
    const task = await createTask(server, projectB, { name: unique('quiet') }, ownerB.key);
    const request = await arrival;
    expect(request.verified).toBe(true);
    expect(request.payload!.data.eventDetail.taskId).toBe(task.id);
    // From the event's time (set before its transaction commits) to the delivery's arrival.
    const waited = request.arrivedAt - Date.parse(request.payload!.data.dateTime);
    expect(waited, `B's delivery started ${waited} ms after its event`).toBeLessThan(FAIR_START_MS);

    // A still had deliveries waiting all along, and never more than half of the workers.
    const waiting = Number(
      (
        await server.orm.em
          .fork()
          .getConnection()
          .execute(`select count(*) as n from webhook_delivery where organization_id = ? and status = 'PENDING'`, [organizationA.id])
      )[0].n,
    );
    expect(waiting).toBeGreaterThan(WORKERS);
    expect(slow.most).toBe(half);
  }, 120_000);

  it('runs A’s trigger runs and activities within the same half of the workers as its deliveries', async () => {
    let activities: Row[] = [];
    await until(
      'A’s activities completed',
      async () => (activities = await activitiesOfA()).length === 2 && activities.every((a) => a.status === 'COMPLETED'),
      90_000,
    );
    expect(receiver.to('/slow-bridge')).toHaveLength(2);
    expect(slow.most).toBe(Math.floor(WORKERS / 2));
  }, 120_000);

  it('wakes the workers when a queue is freed, as when a job is added (the job behind the one that ran need not wait for a poll)', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const queue = `org:${randomUUID()}:0`;
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    try {
      await listener.query('listen "jobs:insert"');
      await listener.query(`insert into graphile_worker._private_job_queues (queue_name, locked_at, locked_by) values ($1, now(), 'a worker')`, [queue]);
      await listener.query(`update graphile_worker._private_job_queues set locked_at = null, locked_by = null where queue_name = $1`, [queue]);
      await until('the freed queue announced', () => heard.some((payload) => JSON.parse(payload).queue === queue), 10_000);
      expect(heard.map((payload) => JSON.parse(payload)).find((payload) => payload.queue === queue)).toEqual({ count: 1, queue });
    } finally {
      await listener.query('delete from graphile_worker._private_job_queues where queue_name = $1', [queue]);
      await listener.end();
    }
  });

  it('drops, on its hourly job, the queues of an organization with nothing waiting in them, and keeps those with a job', async () => {
    const connection = server.orm.em.fork().getConnection();
    const queuesOf = async (organizationId: string) =>
      (
        await connection.execute<{ queue_name: string }[]>(`select queue_name from graphile_worker._private_job_queues where queue_name like ? order by 1`, [
          `org:${organizationId}:%`,
        ])
      ).map((row) => row.queue_name);
    // B's delivery ran in one of B's queues; one more queue of B holds a job due in an hour.
    expect((await queuesOf(organizationB)).length).toBeGreaterThan(0);
    const kept = `org:${organizationB}:1`;
    const [{ id }] = await connection.execute(
      `select id from graphile_worker.add_job('deliver-webhook', '{}'::json, queue_name => ?, run_at => now() + interval '1 hour')`,
      [kept],
    );
    try {
      await connection.execute(`select graphile_worker.add_job(?)`, [FORGET_IDLE_QUEUES_JOB]);
      await until('B’s idle queues dropped', async () => (await queuesOf(organizationB)).length === 1, 20_000);
      expect(await queuesOf(organizationB)).toEqual([kept]);
    } finally {
      await connection.execute('delete from graphile_worker._private_jobs where id = ?', [id]);
    }
  }, 60_000);
});

describe('WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION', () => {
  function expectCapConflict(answer: { status: number; text: string; body: Row }): void {
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body).toMatchObject({ error: 'Conflict', status: 409 });
    expect(answer.body.message).toBe(
      `the organization already has ${DEFAULT_MAX_ENDPOINTS} webhook endpoints, the limit of WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION (${DEFAULT_MAX_ENDPOINTS}): delete an endpoint before creating another`,
    );
  }

  const countOf = async (owner: Caller, organizationId: string) =>
    (await rest(owner, 'GET', `/api/webhook-endpoints?pageSize=100&filter=${encodeURIComponent(`organizationId==${organizationId}`)}`, 200)).content.length;

  it('refuses the 21st endpoint of an organization with 409 naming the limit, on both faces; deleting one makes room; others are unaffected', async () => {
    // A has the 20 endpoints of the fairness test (made up to 20 when that did not run).
    for (let i = await countOf(ownerA, organizationA.id); i < DEFAULT_MAX_ENDPOINTS; i++) await endpoint(ownerA, organizationA.id, `/filler/${i}`, ['nothing']);
    expect(await countOf(ownerA, organizationA.id)).toBe(DEFAULT_MAX_ENDPOINTS);
    const body = { organizationId: organizationA.id, url: receiver.url('/one-too-many') };
    expectCapConflict(await server.request('POST', '/api/webhook-endpoints', { key: ownerA.key, body }));
    // Whoever asks: an administrator too.
    expectCapConflict(await server.request('POST', '/api/webhook-endpoints', { body }));
    const graphql = await server.graphql(
      `mutation($input: WebhookEndpointCreateRequest!) { createWebhookEndpoint(input: $input) { id } }`,
      { input: body },
      ownerA.key,
    );
    expect(graphql.body.errors?.[0]?.extensions, graphql.text).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(graphql.body.errors[0].message).toContain(`WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION (${DEFAULT_MAX_ENDPOINTS})`);
    expect(graphql.body.data ?? null).toBeNull();
    expect(await countOf(ownerA, organizationA.id)).toBe(DEFAULT_MAX_ENDPOINTS);

    // Another organization is not limited by A's endpoints.
    await endpoint(ownerB, organizationB, '/quiet-2', ['task_updated']);

    const [first] = (await rest(ownerA, 'GET', `/api/webhook-endpoints?pageSize=1&filter=${encodeURIComponent(`organizationId==${organizationA.id}`)}`, 200))
      .content;
    await rest(ownerA, 'DELETE', `/api/webhook-endpoints/${first.id}`, 204);
    await rest(ownerA, 'POST', '/api/webhook-endpoints', 201, body);
    expectCapConflict(await server.request('POST', '/api/webhook-endpoints', { key: ownerA.key, body }));
    expect(await countOf(ownerA, organizationA.id)).toBe(DEFAULT_MAX_ENDPOINTS);
  });

  it('lets concurrent creates in one organization not overshoot the limit', async () => {
    const owner = await newCaller('FairOwnerC');
    const organizationId = (await createOrganization(server, { name: unique('RacingOrg') }, owner.key)).id;
    const answers = await Promise.all(
      Array.from({ length: DEFAULT_MAX_ENDPOINTS + 5 }, (_, i) =>
        server.request('POST', '/api/webhook-endpoints', {
          key: owner.key,
          body: { organizationId, url: receiver.url(`/race/${i}`), eventTypes: ['nothing'] },
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(DEFAULT_MAX_ENDPOINTS);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
    expect(await countOf(owner, organizationId)).toBe(DEFAULT_MAX_ENDPOINTS);
  });
});

describe('a delivery’s lastError', () => {
  it('names the reason (refused by the egress policy, a timeout, a status) but never what a host name resolved to', async () => {
    const type = unique('reasons');
    const hooks = {
      private: await endpoint(ownerB, organizationB, '/private', [type], receiver.url('/private', INTERNAL_HOST)),
      loopback: await endpoint(ownerB, organizationB, '/loopback', [type], receiver.url('/loopback', 'localhost')),
      slow: await endpoint(ownerB, organizationB, '/hangs', [type]),
      failing: await endpoint(ownerB, organizationB, '/fails', [type]),
    };
    receiver.register('/hangs', hooks.slow.signingSecret, () => 'hang');
    receiver.register('/fails', hooks.failing.signingSecret, () => 503);
    await rest(ownerB, 'POST', '/api/events', 201, { organizationId: organizationB, eventType: type, eventDetail: {} });

    const settled = async (hook: Row) => {
      let delivery: Row | undefined;
      await until(`a first attempt to ${hook.url}`, async () => ((delivery = (await deliveriesOf(ownerB, hook.id))[0]), (delivery?.attempts ?? 0) > 0), 30_000);
      return delivery!;
    };
    const [refusedPrivate, refusedLoopback, timedOut, failed] = await Promise.all(Object.values(hooks).map(settled));
    expect(refusedPrivate).toMatchObject({
      status: 'FAILED',
      lastStatusCode: null,
      lastError: `refused by the egress policy: ${INTERNAL_HOST} resolves to a private address`,
    });
    expect(refusedLoopback).toMatchObject({
      status: 'FAILED',
      lastStatusCode: null,
      lastError: 'refused by the egress policy: localhost resolves to a loopback address',
    });
    expect(timedOut).toMatchObject({ status: 'RETRYING', lastStatusCode: null });
    expect(timedOut.lastError).toMatch(/^the upstream did not answer within \d+ s$/);
    expect(failed).toMatchObject({ status: 'RETRYING', lastStatusCode: 503, lastError: 'the endpoint answered 503' });
    for (const delivery of [refusedPrivate, refusedLoopback, timedOut, failed]) {
      expect(delivery.lastError).not.toContain(INTERNAL_ADDRESS);
      expect(delivery.lastError).not.toMatch(/127\.0\.0\.1|::1/);
    }
    // The request was never made to the refused targets.
    expect(receiver.to('/private')).toEqual([]);
    expect(receiver.to('/loopback')).toEqual([]);
  }, 60_000);
});
