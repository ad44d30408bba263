import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { logger } from '../src/logging/logger';
import { generateApiKey } from '../src/modules/access/api-keys';
import type { WebhookSettings } from '../src/modules/webhooks/settings';
import { childDataDir, startChildServer, type ChildServer } from './reliability/support/child-server';
import { scratchDatabase, type ScratchDatabase } from './reliability/support/database';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { freePort, until } from './support/server-process';
import { startServer, unique, type TestServer } from './support/server';
import { WebhookReceiver, type Behaviour, type ReceivedWebhook } from './support/webhook-receiver';

/**
 * Webhooks against a real receiver on 127.0.0.1 that verifies every request with the `standardwebhooks`
 * package: endpoints (owners write, members read, the secret shown once), the delivery of each event
 * type, filters, retries on the (shortened) schedule under one webhook-id, rollbacks, a receiver down
 * and back, the egress guard, disabling, rotation, redelivery, the test event, and a server killed
 * mid-delivery. The suite has a database of its own, so that no other suite's worker runs its jobs.
 */

/** The production schedule's shape, shortened: the first wait long enough to watch RETRYING, the rest quick. */
const FAST: Partial<WebhookSettings> = { retryDelaysMs: [800, 300, 300, 300, 300, 300, 300], timeoutMs: 1_000, maxConsecutiveFailures: 1_000 };

let database: ScratchDatabase;
let server: TestServer;
let receiver: WebhookReceiver;
const { newCaller, rest } = callersOf(() => server);
let owner: Caller;
let member: Caller;
let outsider: Caller;
let organizationId: string;
let projectA: string;
let projectB: string;

function startWebhookServer(settings: Partial<WebhookSettings>): Promise<TestServer> {
  return startServer({ databaseUrl: database.url, workerConcurrency: 4, egress: { privateHostAllowlist: ['127.0.0.1'] }, webhooks: settings });
}

beforeAll(async () => {
  database = await scratchDatabase('platform_webhooks');
  server = await startWebhookServer(FAST);
  receiver = await WebhookReceiver.start();
  [owner, member, outsider] = await Promise.all([newCaller('HookOwner'), newCaller('HookMember'), newCaller('HookOutsider')]);
  organizationId = (await createOrganization(server, { name: unique('HookOrg') }, owner.key)).id;
  await createOrganization(server, { name: unique('OtherHookOrg') }, outsider.key);
  const team = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Readers'), organizationId });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: team.id, userId: member.id });
  projectA = (await createProject(server, organizationId, {}, owner.key)).id;
  projectB = (await createProject(server, organizationId, {}, owner.key)).id;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
  await database?.drop();
});

type Row = Record<string, any>;

/** A new endpoint (as the owner) whose requests the receiver verifies with its secret. */
async function endpoint(path: string, body: Row = {}, behaviour?: Behaviour, url = receiver.url(path)): Promise<Row> {
  const created = await rest(owner, 'POST', '/api/webhook-endpoints', 201, { organizationId, url, ...body });
  receiver.register(path, created.signingSecret, behaviour);
  return created;
}

/** An event of a type of its own, created through the API (as integrations do). */
async function customEvent(eventType: string, body: Row = {}): Promise<Row> {
  return rest(owner, 'POST', '/api/events', 201, { organizationId, eventType, eventDetail: { n: 1 }, ...body });
}

async function deliveriesOf(endpointId: string, caller: Caller | null = owner): Promise<Row[]> {
  const page = await rest(caller, 'GET', `/api/webhook-deliveries?pageSize=100&filter=${encodeURIComponent(`endpointId==${endpointId}`)}`, 200);
  return page.content;
}

async function waitFor<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  let value!: T;
  await until(
    what,
    async () => {
      value = await read();
      return done(value);
    },
    timeoutMs,
  );
  return value;
}

/** Until no dispatch is waiting and no delivery attempt is due: everything asked for so far has been tried. */
async function queueSettled(): Promise<void> {
  const connection = server.orm.em.fork().getConnection();
  await waitFor(
    'a settled job queue',
    async () =>
      Number(
        (
          await connection.execute(
            `select count(*) as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
              where t.identifier = 'dispatch-webhooks' or (t.identifier = 'deliver-webhook' and j.run_at <= now())`,
          )
        )[0].n,
      ),
    (n) => n === 0,
  );
}

function expectVerified(requests: ReceivedWebhook[]): void {
  for (const request of requests) expect(request.verified, `${request.path} ${request.id} verifies`).toBe(true);
}

describe('webhook endpoints', () => {
  it('answers the signing secret once, on create; never on reads, REST or GraphQL', async () => {
    const created = await endpoint('/secret-shown-once', { description: 'CRM', eventTypes: ['task_created'] });
    expect(created).toMatchObject({
      organizationId,
      projectId: null,
      url: receiver.url('/secret-shown-once'),
      eventTypes: ['task_created'],
      enabled: true,
      description: 'CRM',
      consecutiveFailures: 0,
      disabledAt: null,
      changeSequence: 0,
    });
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.signingSecret.slice('whsec_'.length), 'base64')).toHaveLength(24);

    const read = await rest(owner, 'GET', `/api/webhook-endpoints/${created.id}`, 200);
    expect(read.signingSecret ?? null).toBeNull();
    const listed = await rest(member, 'GET', '/api/webhook-endpoints?pageSize=100', 200);
    expect(listed.content.map((e: Row) => e.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.signingSecret);
    const graphql = await server.graphqlData(
      `query($id: ID!) { webhookEndpoint(id: $id) { id url signingSecret } webhookEndpoints(pageSize: 100) { content { id signingSecret } } }`,
      { id: created.id },
      owner.key,
    );
    expect(graphql.webhookEndpoint).toEqual({ id: created.id, url: created.url, signingSecret: null });
    expect(graphql.webhookEndpoints.content.every((e: Row) => e.signingSecret === null)).toBe(true);

    // Stored sealed with the secrets key, as organization secrets are.
    const [row] = await server.orm.em.getConnection().execute('select sealed_secret from webhook_endpoint where id = ?', [created.id]);
    expect(row.sealed_secret).toMatch(/^v1:/);
    expect(row.sealed_secret).not.toContain(created.signingSecret.slice('whsec_'.length));
  });

  it('lets owners create, change and delete endpoints; members read; other organizations see nothing', async () => {
    const created = await endpoint('/access', {});
    const body = { organizationId, url: receiver.url('/by-member') };
    await rest(member, 'POST', '/api/webhook-endpoints', 403, body);
    await rest(member, 'PUT', `/api/webhook-endpoints/${created.id}`, 403, { description: 'no' });
    await rest(member, 'DELETE', `/api/webhook-endpoints/${created.id}`, 403);
    await rest(member, 'POST', `/api/webhook-endpoints/${created.id}/rotate-secret`, 403);
    await rest(member, 'POST', `/api/webhook-endpoints/${created.id}/test`, 403);
    expect((await rest(member, 'GET', `/api/webhook-endpoints/${created.id}`, 200)).id).toBe(created.id);

    const foreign = await server.request('GET', `/api/webhook-endpoints/${created.id}`, { key: outsider.key });
    expect([403, 404]).toContain(foreign.status);
    expect((await rest(outsider, 'GET', '/api/webhook-endpoints?pageSize=100', 200)).content).toEqual([]);
    await rest(outsider, 'POST', '/api/webhook-endpoints', 403, body);
    const graphql = await server.graphqlData(`{ webhookEndpoints(pageSize: 100) { totalElements } }`, undefined, outsider.key);
    expect(graphql.webhookEndpoints.totalElements).toBe(0);

    // The project an endpoint listens to is chosen on create: an update's projectId is ignored.
    const changed = await rest(owner, 'PUT', `/api/webhook-endpoints/${created.id}`, 200, { description: 'Changed', projectId: projectA });
    expect(changed).toMatchObject({ description: 'Changed', projectId: null, changeSequence: 1 });
    expect(changed.signingSecret ?? null).toBeNull();
    await rest(owner, 'POST', '/api/webhook-endpoints', 400, { organizationId, url: 'ftp://example.com/hook' });
    await rest(owner, 'PUT', `/api/webhook-endpoints/${created.id}`, 400, { url: 'not a url' });
    await rest(owner, 'DELETE', `/api/webhook-endpoints/${created.id}`, 204);
    await rest(owner, 'GET', `/api/webhook-endpoints/${created.id}`, 404);
  });
});

describe('delivery', () => {
  it('delivers every platform event type, signed, with the event as GET /api/events/{id} answers it', async () => {
    const hook = await endpoint('/every-type', {});
    const task = await createTask(server, projectA, { title: 'Hooked' }, owner.key);
    await rest(owner, 'PUT', `/api/tasks/${task.id}`, 200, { statusSlug: 'done' });
    await rest(owner, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    await rest(owner, 'PUT', `/api/tasks/${task.id}/unlock`, 200, { reason: 'done' });
    const activity = await rest(owner, 'POST', '/api/activities', 201, { projectId: projectA, title: 'Review' });
    await rest(owner, 'PUT', `/api/activities/${activity.id}`, 200, { status: 'COMPLETED' });
    const store = await rest(owner, 'POST', '/api/document-stores', 201, { name: unique('Store'), organizationId });
    const family = await rest(owner, 'POST', '/api/document-families', 201, { documentStoreId: store.id, name: 'Contract' });
    await rest(owner, 'PUT', `/api/document-families/${family.id}/lock`, 200);
    const set = await rest(owner, 'POST', '/api/knowledge-sets', 201, { name: unique('Set'), organizationId, projectId: projectA });
    await rest(owner, 'PUT', `/api/knowledge-sets/${set.id}`, 200, { description: 'Updated' });
    const custom = await customEvent('invoice_paid', { projectId: projectA });

    const types = [
      'task_created',
      'task_status_changed',
      'task_locked',
      'task_unlocked',
      'activity_completed',
      'document_locked',
      'knowledge_set_updated',
      'invoice_paid',
    ];
    const requests = await waitFor(
      'every event type delivered',
      () => receiver.to('/every-type'),
      (received) => types.every((type) => received.some((r) => r.payload?.type === type)),
    );
    expectVerified(requests);
    for (const request of requests) {
      const { type, timestamp, data } = request.payload!;
      expect(Object.keys(request.payload!).sort()).toEqual(['data', 'timestamp', 'type']);
      expect(data).toEqual(await rest(member, 'GET', `/api/events/${data.id}`, 200));
      expect(type).toBe(data.eventType);
      expect(timestamp).toBe(data.dateTime);
      expect(Math.abs(Number(request.timestamp) - Date.now() / 1000)).toBeLessThan(60);
      expect(request.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    expect(requests.find((r) => r.payload!.type === 'invoice_paid')!.payload!.data.id).toBe(custom.id);

    // The log: one delivery per event, its id the webhook-id.
    await queueSettled();
    const deliveries = await deliveriesOf(hook.id, member);
    expect(deliveries).toHaveLength(requests.length);
    for (const request of requests) {
      const delivery = deliveries.find((d) => d.id === request.id)!;
      expect(delivery).toMatchObject({
        organizationId,
        endpointId: hook.id,
        eventId: request.payload!.data.id,
        eventType: request.payload!.type,
        status: 'SUCCEEDED',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      });
      expect(delivery.lastDurationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(delivery.deliveredAt)).not.toBeNaN();
    }
    await rest(owner, 'DELETE', `/api/webhook-endpoints/${hook.id}`, 204);
  });

  it('sends an endpoint only the types it lists and, when it names one, its project’s events', async () => {
    const locks = await endpoint('/only-locks', { eventTypes: ['task_locked'] });
    const ofA = await endpoint('/only-project-a', { projectId: projectA });
    const createdInB = await endpoint('/created-in-b', { projectId: projectB, eventTypes: ['task_created'] });
    const inA = await createTask(server, projectA, {}, owner.key);
    await rest(owner, 'PUT', `/api/tasks/${inA.id}/lock`, 200);
    const inB = await createTask(server, projectB, {}, owner.key);
    await rest(owner, 'PUT', `/api/tasks/${inB.id}/lock`, 200);
    await customEvent('organization_wide');
    await until(
      'the filtered deliveries',
      () => receiver.to('/created-in-b').length >= 1 && receiver.to('/only-locks').length >= 2 && receiver.to('/only-project-a').length >= 2,
    );
    await queueSettled();

    const seen = (path: string) =>
      receiver
        .to(path)
        .map((r) => `${r.payload!.type} ${r.payload!.data.eventDetail?.taskId ?? ''}`.trim())
        .sort();
    expect(seen('/only-locks')).toEqual([`task_locked ${inA.id}`, `task_locked ${inB.id}`].sort());
    expect(seen('/only-project-a')).toEqual([`task_created ${inA.id}`, `task_locked ${inA.id}`].sort());
    expect(seen('/created-in-b')).toEqual([`task_created ${inB.id}`]);
    for (const hook of [locks, ofA, createdInB]) await rest(owner, 'DELETE', `/api/webhook-endpoints/${hook.id}`, 204);
  });

  it('retries after 500s on the schedule, under the same webhook-id, until a 2xx', async () => {
    const type = unique('flaky');
    const hook = await endpoint('/flaky', { eventTypes: [type] }, (n) => (n < 2 ? 500 : 204));
    await customEvent(type);
    const retrying = await waitFor(
      'the first failure',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'RETRYING',
    );
    expect(retrying[0]).toMatchObject({ attempts: 1, lastStatusCode: 500, lastError: 'the endpoint answered 500', deliveredAt: null });
    expect(Date.parse(retrying[0].nextAttemptAt)).toBeGreaterThan(Date.now() - 1_000);
    const [delivered] = await waitFor(
      'the delivery',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'SUCCEEDED',
    );
    expect(delivered).toMatchObject({ attempts: 3, lastStatusCode: 204, lastError: null, nextAttemptAt: null });
    const requests = receiver.to('/flaky');
    expect(requests).toHaveLength(3);
    expectVerified(requests);
    expect(new Set(requests.map((r) => r.id))).toEqual(new Set([delivered.id]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
  });

  it('retries an attempt that times out, under the same webhook-id', async () => {
    const type = unique('slow');
    const hook = await endpoint('/slow', { eventTypes: [type] }, (n) => (n === 0 ? 'hang' : 204));
    await customEvent(type);
    const [delivered] = await waitFor(
      'the delivery',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'SUCCEEDED',
    );
    expect(delivered).toMatchObject({ attempts: 2, lastStatusCode: 204 });
    const requests = receiver.to('/slow');
    expect(requests.map((r) => r.id)).toEqual([delivered.id, delivered.id]);
    expectVerified(requests);
  });

  it('delivers nothing for an event whose change was rolled back', async () => {
    const hook = await endpoint('/rolled-back', { projectId: projectA, eventTypes: ['task_locked'] });
    const task = await createTask(server, projectA, {}, owner.key);
    const connection = server.orm.em.getConnection();
    // The task's UPDATE fails inside the transaction that already holds its task_locked event.
    await connection.execute(`create or replace function refuse_task_update() returns trigger language plpgsql as $$
      begin if new.id = '${task.id}' then raise exception 'refused' using errcode = '23505'; end if; return new; end $$`);
    await connection.execute('create trigger refuse_task_update before update on task for each row execute function refuse_task_update()');
    try {
      await rest(owner, 'PUT', `/api/tasks/${task.id}/lock`, 409);
    } finally {
      await connection.execute('drop trigger refuse_task_update on task');
      await connection.execute('drop function refuse_task_update()');
    }
    await queueSettled();
    expect(await deliveriesOf(hook.id)).toEqual([]);
    expect(receiver.to('/rolled-back')).toEqual([]);

    await rest(owner, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    await waitFor(
      'the committed lock',
      () => receiver.to('/rolled-back'),
      (received) => received.length === 1,
    );
    await rest(owner, 'DELETE', `/api/webhook-endpoints/${hook.id}`, 204);
  });

  it('delivers everything to a receiver that was down for a while, each event once after deduplication', async () => {
    const port = await freePort();
    const type = unique('outage');
    const hook = await endpoint('/outage', { eventTypes: [type] }, undefined, `http://127.0.0.1:${port}/outage`);
    const events = [];
    for (let n = 0; n < 5; n++) events.push(await customEvent(type, { eventDetail: { n } }));
    const failing = await waitFor(
      'the failed first attempts',
      () => deliveriesOf(hook.id),
      (ds) => ds.length === 5 && ds.every((d) => d.status === 'RETRYING'),
    );
    expect(failing.every((d) => d.lastStatusCode === null && /could not be reached/.test(d.lastError))).toBe(true);

    const back = await WebhookReceiver.start(port);
    try {
      back.register('/outage', hook.signingSecret);
      const delivered = await waitFor(
        'every delivery',
        () => deliveriesOf(hook.id),
        (ds) => ds.every((d) => d.status === 'SUCCEEDED'),
      );
      expectVerified(back.received);
      expect([...back.processed.values()].map((r) => r.payload!.data.id).sort()).toEqual(events.map((e) => e.id).sort());
      expect([...back.processed.keys()].sort()).toEqual(delivered.map((d) => d.id).sort());
    } finally {
      await back.close();
    }
  });

  it('fails a delivery the egress guard refuses, without making the request', async () => {
    const type = unique('refused');
    // localhost is not on the allowlist (127.0.0.1 is): it resolves to a loopback address.
    const hook = await endpoint('/refused', { eventTypes: [type] }, undefined, receiver.url('/refused', 'localhost'));
    await customEvent(type);
    const [failed] = await waitFor(
      'the refusal',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'FAILED',
    );
    expect(failed).toMatchObject({ attempts: 1, lastStatusCode: null, nextAttemptAt: null, deliveredAt: null });
    // The reason, never the address the name resolved to (members read the log).
    expect(failed.lastError).toBe('refused by the egress policy: localhost resolves to a loopback address');
    expect(receiver.to('/refused')).toEqual([]);
  });
});

describe('operations', () => {
  it('rotates the signing secret: the new one verifies, the old one no longer does', async () => {
    const type = unique('rotated');
    const hook = await endpoint('/rotated', { eventTypes: [type] });
    const rotated = await rest(owner, 'POST', `/api/webhook-endpoints/${hook.id}/rotate-secret`, 200);
    expect(rotated.signingSecret).toMatch(/^whsec_/);
    expect(rotated.signingSecret).not.toBe(hook.signingSecret);
    expect((await rest(owner, 'GET', `/api/webhook-endpoints/${hook.id}`, 200)).signingSecret ?? null).toBeNull();
    const graphql = await server.graphqlData(`mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { id signingSecret } }`, { id: hook.id }, owner.key);
    expect(graphql.rotateWebhookEndpointSecret.signingSecret).toMatch(/^whsec_/);
    const secret = graphql.rotateWebhookEndpointSecret.signingSecret;
    receiver.register('/rotated', secret);

    await customEvent(type);
    const [request] = await waitFor(
      'the delivery',
      () => receiver.to('/rotated'),
      (received) => received.length === 1,
    );
    expect(request.verified).toBe(true);
    const headers = { 'webhook-id': request.id, 'webhook-timestamp': request.timestamp, 'webhook-signature': request.signature };
    for (const old of [hook.signingSecret, rotated.signingSecret]) expect(() => new Webhook(old).verify(request.body, headers)).toThrow();
  });

  it('redelivers a delivery under the same webhook-id; owners only', async () => {
    const type = unique('again');
    const hook = await endpoint('/again', { eventTypes: [type] });
    await customEvent(type);
    const [first] = await waitFor(
      'the delivery',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'SUCCEEDED',
    );
    await rest(member, 'POST', `/api/webhook-deliveries/${first.id}/redeliver`, 403);
    const foreign = await server.request('POST', `/api/webhook-deliveries/${first.id}/redeliver`, { key: outsider.key });
    expect([403, 404]).toContain(foreign.status);
    const again = await rest(owner, 'POST', `/api/webhook-deliveries/${first.id}/redeliver`, 202);
    expect(again).toMatchObject({ id: first.id, status: 'PENDING' });
    const [delivered] = await waitFor(
      'the redelivery',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'SUCCEEDED' && d.attempts === 2,
    );
    expect(delivered.id).toBe(first.id);
    const requests = receiver.to('/again');
    expect(requests.map((r) => r.id)).toEqual([first.id, first.id]);
    expectVerified(requests);
    expect(requests[1].body).toBe(requests[0].body);
  });

  it('sends a webhook.test event whatever the endpoint listens to', async () => {
    const hook = await endpoint('/tested', { eventTypes: ['task_locked'], projectId: projectB });
    const delivery = await rest(owner, 'POST', `/api/webhook-endpoints/${hook.id}/test`, 202);
    expect(delivery).toMatchObject({ endpointId: hook.id, eventId: null, eventType: 'webhook.test', status: 'PENDING', attempts: 0 });
    const [request] = await waitFor(
      'the test event',
      () => receiver.to('/tested'),
      (received) => received.length === 1,
    );
    expect(request.verified).toBe(true);
    expect(request.id).toBe(delivery.id);
    expect(request.payload).toMatchObject({
      type: 'webhook.test',
      data: { eventType: 'webhook.test', organizationId, projectId: projectB, eventDetail: { endpointId: hook.id } },
    });
    const graphql = await server.graphqlData(`mutation($id: ID!) { testWebhookEndpoint(id: $id) { id eventType } }`, { id: hook.id }, owner.key);
    expect(graphql.testWebhookEndpoint.eventType).toBe('webhook.test');
    await waitFor(
      'the second test event',
      () => receiver.to('/tested'),
      (received) => received.length === 2,
    );
  });

  it('serves the delivery log read-only, to members, within their organization', async () => {
    const hook = await endpoint('/log', {});
    const delivery = await rest(owner, 'POST', `/api/webhook-endpoints/${hook.id}/test`, 202);
    await waitFor(
      'the test event',
      () => deliveriesOf(hook.id),
      ([d]) => d?.status === 'SUCCEEDED',
    );
    const read = await rest(member, 'GET', `/api/webhook-deliveries/${delivery.id}`, 200);
    expect(Object.keys(read)).toEqual(
      expect.arrayContaining([
        'endpointId',
        'eventId',
        'eventType',
        'status',
        'attempts',
        'lastStatusCode',
        'lastError',
        'lastDurationMs',
        'nextAttemptAt',
        'deliveredAt',
      ]),
    );
    expect(read).not.toHaveProperty('payload');
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const path = method === 'POST' ? '/api/webhook-deliveries' : `/api/webhook-deliveries/${delivery.id}`;
      expect((await server.request(method, path, { body: {} })).status, `${method} ${path}`).toBe(405);
    }
    expect((await rest(outsider, 'GET', '/api/webhook-deliveries?pageSize=100', 200)).content).toEqual([]);
    const graphql = await server.graphqlData(
      `query($filter: String) { webhookDeliveries(filter: $filter) { content { id status attempts lastStatusCode lastDurationMs deliveredAt endpoint { id } } } }`,
      { filter: `endpointId==${hook.id}` },
      member.key,
    );
    expect(graphql.webhookDeliveries.content).toEqual([
      expect.objectContaining({ id: delivery.id, status: 'SUCCEEDED', attempts: 1, lastStatusCode: 204, endpoint: { id: hook.id } }),
    ]);
    await rest(owner, 'DELETE', `/api/webhook-endpoints/${hook.id}`, 204);
  });

  it('purges deliveries older than 30 days (the job the hourly schedule runs)', async () => {
    const hook = await endpoint('/purged', {});
    const old = await rest(owner, 'POST', `/api/webhook-endpoints/${hook.id}/test`, 202);
    const recent = await rest(owner, 'POST', `/api/webhook-endpoints/${hook.id}/test`, 202);
    await waitFor(
      'both delivered',
      () => deliveriesOf(hook.id),
      (ds) => ds.length === 2 && ds.every((d) => d.status === 'SUCCEEDED'),
    );
    const connection = server.orm.em.fork().getConnection();
    await connection.execute(`update webhook_delivery set created_on = now() - interval '30 days 1 minute' where id = ?`, [old.id]);
    await connection.execute(`select graphile_worker.add_job('purge-webhook-deliveries')`);
    const kept = await waitFor(
      'the purge',
      () => deliveriesOf(hook.id),
      (ds) => ds.length === 1,
    );
    expect(kept.map((d) => d.id)).toEqual([recent.id]);
    await rest(owner, 'DELETE', `/api/webhook-endpoints/${hook.id}`, 204);
  });

  it('disables an endpoint after WEBHOOK_MAX_CONSECUTIVE_FAILURES failed attempts, with a warning', async () => {
    await server.close();
    server = await startWebhookServer({ ...FAST, maxConsecutiveFailures: 3 });
    const warn = vi.spyOn(logger, 'warn');
    try {
      const type = unique('broken');
      const hook = await endpoint('/broken', { eventTypes: [type] }, () => 500);
      await customEvent(type);
      const disabled = await waitFor(
        'the endpoint disabled',
        () => rest(owner, 'GET', `/api/webhook-endpoints/${hook.id}`, 200),
        (e) => e.enabled === false,
      );
      expect(disabled.consecutiveFailures).toBe(3);
      expect(Date.parse(disabled.disabledAt)).not.toBeNaN();
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ endpointId: hook.id }), expect.stringContaining('disabled'));
      // Its retry finds the endpoint disabled: the delivery fails without a fourth request.
      const [failed] = await waitFor(
        'the delivery failed',
        () => deliveriesOf(hook.id),
        ([d]) => d?.status === 'FAILED',
      );
      expect(failed).toMatchObject({ attempts: 3, lastError: 'the endpoint is disabled' });
      expect(receiver.to('/broken')).toHaveLength(3);
      await rest(owner, 'POST', `/api/webhook-endpoints/${hook.id}/test`, 409);
      await rest(owner, 'POST', `/api/webhook-deliveries/${failed.id}/redeliver`, 409);

      const enabled = await rest(owner, 'PUT', `/api/webhook-endpoints/${hook.id}`, 200, { enabled: true });
      expect(enabled).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledAt: null });
    } finally {
      warn.mockRestore();
    }
  });
});

describe('a server killed with SIGKILL mid-delivery', () => {
  const adminKey = generateApiKey();
  let crashDatabase: ScratchDatabase;
  let dataDir: ReturnType<typeof childDataDir>;
  const children: ChildServer[] = [];

  beforeAll(async () => {
    crashDatabase = await scratchDatabase('platform_webhooks_crash');
    dataDir = childDataDir();
  });
  afterAll(async () => {
    for (const child of children) await child.kill();
    await crashDatabase?.drop();
    dataDir?.remove();
  });

  async function start(): Promise<ChildServer> {
    const child = await startChildServer({
      databaseUrl: crashDatabase.url,
      adminKey,
      dataDir: dataDir.path,
      env: { BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST: '127.0.0.1' },
    });
    children.push(child);
    return child;
  }

  it('delivers after a restart, under the same webhook-id', async () => {
    let server = await start();
    const organization = await server.request('POST', '/api/organizations', { body: { name: unique('CrashHooks') } });
    expect(organization.status, organization.text).toBe(201);
    const created = await server.request('POST', '/api/webhook-endpoints', {
      body: { organizationId: organization.body.id, url: receiver.url('/crash'), eventTypes: ['crash_test'] },
    });
    expect(created.status, created.text).toBe(201);
    // The first request is held open; the server dies while it waits for the answer.
    receiver.register('/crash', created.body.signingSecret, (n) => (n === 0 ? 'hang' : 204));
    const first = new Promise<ReceivedWebhook>((resolve) => (receiver.onRequest = (r) => r.path === '/crash' && resolve(r)));
    const event = await server.request('POST', '/api/events', { body: { organizationId: organization.body.id, eventType: 'crash_test' } });
    expect(event.status, event.text).toBe(201);
    const inFlight = await first;
    receiver.onRequest = undefined;
    await server.kill();

    server = await start();
    await waitFor(
      'the delivery after the restart',
      () => receiver.to('/crash'),
      (received) => received.length >= 2,
      60_000,
    );
    const requests = receiver.to('/crash');
    expectVerified(requests);
    expect(new Set(requests.map((r) => r.id))).toEqual(new Set([inFlight.id]));
    expect(requests[1].payload!.data.id).toBe(event.body.id);
    const delivery = await waitFor(
      'the delivery recorded',
      async () => (await server.request('GET', `/api/webhook-deliveries/${inFlight.id}`)).body,
      (d) => d?.status === 'SUCCEEDED',
    );
    expect(delivery).toMatchObject({ eventId: event.body.id, lastStatusCode: 204 });
  }, 120_000);
});
