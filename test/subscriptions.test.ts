import type { FormattedExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { generateApiKey } from '../src/modules/access/api-keys';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';
import { startServerProcess } from './support/server-process';

/**
 * Live updates: GraphQL subscriptions over graphql-ws at /graphql, fed by PostgreSQL notifications
 * raised in the transaction of each change. Two servers share the run's database: what is written
 * through one is delivered by the other.
 */
let writer: TestServer;
let reader: TestServer;
let member: Caller;
let outsider: Caller;
let organizationId: string;
let outsiderOrganizationId: string;
const opened: Client[] = [];

interface Caller {
  id: string;
  key: string;
  tokenId: string;
}

async function newCaller(): Promise<Caller> {
  const user = await createUser(writer);
  const token = await writer.request('POST', '/api/access-tokens', { body: { name: unique('live'), userId: user.id } });
  expect(token.status, token.text).toBe(201);
  return { id: user.id, key: token.body.token, tokenId: token.body.id };
}

beforeAll(async () => {
  // One after the other: each bootstraps the administrator on the shared database.
  writer = await startServer();
  reader = await startServer();
  [member, outsider] = await Promise.all([newCaller(), newCaller()]);
  organizationId = (await createOrganization(writer, {}, member.key)).id;
  outsiderOrganizationId = (await createOrganization(writer, {}, outsider.key)).id;
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.dispose()));
});

afterAll(async () => {
  await Promise.all([writer?.close(), reader?.close()]);
});

interface Connection {
  client: Client;
  /** Resolves with the close event's code and reason when the socket closes. */
  closed: Promise<{ code: number; reason: string }>;
}

/** A graphql-ws client of `server` with these connection parameters (connected at once, never retrying). */
function connect(server: { url: string }, connectionParams: Record<string, unknown>): Connection {
  let onClosed!: (event: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => undefined,
    on: { closed: (event) => onClosed(event as { code: number; reason: string }) },
  });
  opened.push(client);
  return { client, closed };
}

/** What one subscription has received: results in order, then completion or an error. */
class Subscription {
  readonly results: FormattedExecutionResult<Record<string, any>, unknown>[] = [];
  completed = false;
  error?: unknown;
  private wake?: () => void;
  readonly stop: () => void;

  constructor(client: Client, query: string, variables: Record<string, unknown>) {
    this.stop = client.subscribe<Record<string, any>>(
      { query, variables },
      {
        next: (result) => this.push(() => this.results.push(result)),
        error: (error) => this.push(() => (this.error = error)),
        complete: () => this.push(() => (this.completed = true)),
      },
    );
  }

  private push(record: () => void): void {
    record();
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Waits until `done` holds (checked at every message), or fails after `ms`. */
  async until(done: () => boolean, ms = 10_000, what = 'the subscription'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: nothing matching within ${ms} ms; received ${JSON.stringify(this.results)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The data of the first result (from `from` on) whose row `match` accepts; waits for it. */
  async received<T = any>(field: string, match: (row: any) => boolean, ms?: number): Promise<T> {
    const found = () => this.results.find((result) => result.data?.[field] && match(result.data[field]));
    await this.until(() => found() !== undefined || this.completed || this.error !== undefined, ms, field);
    const result = found();
    if (!result) throw new Error(`${field}: ended without a match (${JSON.stringify(this.error ?? 'completed')})`);
    return result.data![field] as T;
  }

  rows(field: string): any[] {
    return this.results.filter((result) => result.data?.[field]).map((result) => result.data![field]);
  }
}

/**
 * A subscription to `projectId`'s task changes, known to be live: the subscribe message is processed
 * in the background, so tasks are created (through `via`) until one of them is delivered.
 */
async function liveTaskSubscription(connection: Connection, projectId: string, via: TestServer, key: string): Promise<Subscription> {
  const subscription = new Subscription(connection.client, TASK_CHANGED, { projectId });
  await untilLive(subscription, 'taskChanged', async () => (await createTask(via, projectId, { title: unique('probe') }, key)).id);
  return subscription;
}

/** Makes changes with `probe` (which answers the changed row's id) until `subscription` delivers one of them. */
async function untilLive(subscription: Subscription, field: string, probe: () => Promise<string>): Promise<void> {
  const probes = new Set<string>();
  const deadline = Date.now() + 15_000;
  for (;;) {
    probes.add(await probe());
    try {
      await subscription.received(field, (row) => probes.has(row.id), 500);
      return;
    } catch (error) {
      if (Date.now() > deadline || subscription.completed || subscription.error) throw error;
    }
  }
}

const TASK_CHANGED = `subscription($projectId: ID!) { taskChanged(projectId: $projectId) { id title priority deleted changeSequence projectId project { id name } } }`;
const EVENT_RECORDED = `subscription($projectId: ID!, $eventTypes: [String!]) { platformEventRecorded(projectId: $projectId, eventTypes: $eventTypes) { id eventType eventDetail projectId } }`;
const ACTIVITY_CHANGED = `subscription($id: ID!) { activityChanged(id: $id) { id title status changeSequence } }`;

/** Gives other deliveries time to arrive (after a control subscriber has received what they would). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('taskChanged', () => {
  it('delivers through one server what was written through the other: create, update, delete, in commit order', async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    const subscription = await liveTaskSubscription(connect(reader, { 'x-api-key': member.key }), project.id, writer, member.key);

    const task = await createTask(writer, project.id, { title: 'live one' }, member.key);
    const updated = await writer.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 7 }, key: member.key });
    expect(updated.status, updated.text).toBe(200);
    const viaGraphql = await writer.graphqlData(`mutation($id: ID!) { updateTask(id: $id, input: { title: "renamed" }) { id } }`, { id: task.id }, member.key);
    expect(viaGraphql.updateTask.id).toBe(task.id);
    expect((await writer.request('DELETE', `/api/tasks/${task.id}`, { key: member.key })).status).toBe(204);

    await subscription.received('taskChanged', (row) => row.id === task.id && row.deleted === true);
    const changes = subscription.rows('taskChanged').filter((row) => row.id === task.id);
    // Each delivery reads the row as it is then: a later change may already show in an earlier delivery.
    expect(changes.length).toBeGreaterThanOrEqual(1);
    expect(changes.map((row) => row.changeSequence)).toEqual([...changes.map((row) => row.changeSequence)].sort((a, b) => a - b));
    expect(changes[changes.length - 1]).toEqual({
      id: task.id,
      title: 'renamed',
      priority: 7,
      deleted: true,
      changeSequence: 3,
      projectId: project.id,
      project: { id: project.id, name: project.name },
    });
  });

  it('delivers every change when the subscriber keeps up: one delivery per committed change', async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    const subscription = await liveTaskSubscription(connect(reader, { 'x-api-key': member.key }), project.id, writer, member.key);
    const task = await createTask(writer, project.id, { title: 'counted' }, member.key);
    await subscription.received('taskChanged', (row) => row.id === task.id);
    for (const priority of [1, 2, 3]) {
      expect((await writer.request('PUT', `/api/tasks/${task.id}`, { body: { priority }, key: member.key })).status).toBe(200);
      await subscription.received('taskChanged', (row) => row.id === task.id && row.priority === priority);
    }
    expect(
      subscription
        .rows('taskChanged')
        .filter((row) => row.id === task.id)
        .map((row) => row.priority),
    ).toEqual([0, 1, 2, 3]);
  });

  it('announces nothing for a change that was rolled back', async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    const subscription = await liveTaskSubscription(connect(reader, { 'x-api-key': member.key }), project.id, writer, member.key);
    const task = await createTask(writer, project.id, { title: 'kept' }, member.key);
    await subscription.received('taskChanged', (row) => row.id === task.id);
    const em = writer.orm.em.fork();
    await expect(
      em.transactional(async (tx) => {
        await tx.getConnection().execute('update task set title = ? where id = ?', ['never committed', task.id], 'run', tx.getTransactionContext());
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await writer.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 5 }, key: member.key })).status).toBe(200);
    await subscription.received('taskChanged', (row) => row.id === task.id && row.priority === 5);
    // The next delivery after the create is the committed update: the rolled-back one raised nothing.
    expect(
      subscription
        .rows('taskChanged')
        .filter((row) => row.id === task.id)
        .map((row) => row.priority),
    ).toEqual([0, 5]);
  });
});

describe('tenancy', () => {
  it('answers FORBIDDEN on the subscription for a project the caller may not read, and keeps the connection open', async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    const connection = connect(reader, { 'x-api-key': outsider.key });
    const refused = new Subscription(connection.client, TASK_CHANGED, { projectId: project.id });
    await refused.until(() => refused.completed || refused.error !== undefined);
    const errors = refused.results[0]?.errors ?? (refused.error as any[]);
    expect(errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN', status: 403 }) })]);

    // The same connection goes on serving what the outsider may read.
    const own = await createProject(writer, outsiderOrganizationId, {}, outsider.key);
    await liveTaskSubscription(connection, own.id, writer, outsider.key);
    const activity = await writer.request('POST', '/api/activities', { body: { projectId: project.id, title: unique('Activity') }, key: member.key });
    const refusedActivity = new Subscription(connection.client, ACTIVITY_CHANGED, { id: activity.body.id });
    await refusedActivity.until(() => refusedActivity.completed || refusedActivity.error !== undefined);
    expect(refusedActivity.results[0]?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it("delivers nothing of another organization's rows, also to a subscriber who loses access after subscribing", async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    // A plain member of the organization, through a team, who is removed after subscribing.
    const leaver = await newCaller();
    const team = await writer.request('POST', '/api/teams', { body: { name: unique('Team'), organizationId }, key: member.key });
    const membership = await writer.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: leaver.id } });
    expect(membership.status, membership.text).toBe(201);

    const control = await liveTaskSubscription(connect(reader, { 'x-api-key': member.key }), project.id, writer, member.key);
    const leaving = await liveTaskSubscription(connect(reader, { 'x-api-key': leaver.key }), project.id, writer, member.key);
    // The outsider follows a project of its own organization: nothing of the member's reaches it.
    const own = await createProject(writer, outsiderOrganizationId, {}, outsider.key);
    const stranger = await liveTaskSubscription(connect(reader, { 'x-api-key': outsider.key }), own.id, writer, outsider.key);
    const strangerSeen = stranger.results.length;

    expect((await writer.request('DELETE', `/api/team-members/${membership.body.id}`)).status).toBe(204);
    const after = await createTask(writer, project.id, { title: 'after leaving' }, member.key);
    await control.received('taskChanged', (row) => row.id === after.id);
    await settle();
    expect(leaving.rows('taskChanged').map((row) => row.id)).not.toContain(after.id);
    expect(stranger.results).toHaveLength(strangerSeen);
  });
});

describe('credentials', () => {
  it('closes a connection without valid credentials with 4401', async () => {
    for (const params of [{}, { 'x-api-key': 'not-a-key' }, { authorization: 'Bearer not.a.token' }]) {
      const connection = connect(reader, params);
      expect((await connection.closed).code, JSON.stringify(params)).toBe(4401);
    }
  });

  it('accepts the credentials as a Basic authorization or in a headers object, as over HTTP', async () => {
    const user = await writer.request('GET', '/api/account/me', { key: member.key });
    const basic = `Basic ${Buffer.from(`${user.body.email}:${member.key}`).toString('base64')}`;
    const project = await createProject(writer, organizationId, {}, member.key);
    await liveTaskSubscription(connect(reader, { authorization: basic }), project.id, writer, member.key);
    await liveTaskSubscription(connect(reader, { headers: { 'X-Api-Key': member.key } }), project.id, writer, member.key);
  });

  it('closes the connection with 4401 once its API key is revoked', async () => {
    const caller = await newCaller();
    const team = await writer.request('POST', '/api/teams', { body: { name: unique('Team'), organizationId }, key: member.key });
    expect((await writer.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: caller.id } })).status).toBe(201);
    const project = await createProject(writer, organizationId, {}, member.key);
    const connection = connect(reader, { 'x-api-key': caller.key });
    await liveTaskSubscription(connection, project.id, writer, member.key);
    expect((await writer.request('DELETE', `/api/access-tokens/${caller.tokenId}`)).status).toBe(204);
    await createTask(writer, project.id, { title: 'after revocation' }, member.key);
    expect((await connection.closed).code).toBe(4401);
  });
});

describe('platformEventRecorded', () => {
  it('delivers the events recorded in the project, only of the given types when eventTypes is given', async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    const connection = connect(reader, { 'x-api-key': member.key });
    const all = new Subscription(connection.client, EVENT_RECORDED, { projectId: project.id });
    const filtered = new Subscription(connection.client, EVENT_RECORDED, { projectId: project.id, eventTypes: ['live.wanted'] });
    // Live once a probe event has reached both (the unfiltered one sees the probes too).
    const probe = async () =>
      (
        await writer.request('POST', '/api/events', {
          body: { projectId: project.id, eventType: 'live.wanted', eventDetail: { probe: true } },
          key: member.key,
        })
      ).body.id;
    await untilLive(filtered, 'platformEventRecorded', probe);
    await untilLive(all, 'platformEventRecorded', probe);
    const other = await writer.request('POST', '/api/events', {
      body: { projectId: project.id, eventType: 'live.other', eventDetail: { n: 1 } },
      key: member.key,
    });
    const wanted = await writer.request('POST', '/api/events', {
      body: { projectId: project.id, eventType: 'live.wanted', eventDetail: { n: 2 } },
      key: member.key,
    });
    // A task create records task_created in the same transaction.
    const task = await createTask(writer, project.id, {}, member.key);

    await all.received('platformEventRecorded', (event) => event.eventType === 'task_created' && event.eventDetail?.taskId === task.id);
    await filtered.received('platformEventRecorded', (event) => event.id === wanted.body.id);
    await settle();
    const allIds = all.rows('platformEventRecorded').map((event) => event.id);
    expect(allIds).toContain(other.body.id);
    expect(allIds.indexOf(other.body.id)).toBeLessThan(allIds.indexOf(wanted.body.id));
    expect(new Set(filtered.rows('platformEventRecorded').map((event) => event.eventType))).toEqual(new Set(['live.wanted']));
    expect(filtered.rows('platformEventRecorded').find((event) => event.id === wanted.body.id)).toEqual({
      id: wanted.body.id,
      eventType: 'live.wanted',
      eventDetail: { n: 2 },
      projectId: project.id,
    });
  });
});

describe('activityChanged', () => {
  it('delivers each change of the activity, and completes when it is deleted', async () => {
    const project = await createProject(writer, organizationId, {}, member.key);
    const created = await writer.request('POST', '/api/activities', { body: { projectId: project.id, title: 'watched' }, key: member.key });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    const subscription = new Subscription(connect(reader, { 'x-api-key': member.key }).client, ACTIVITY_CHANGED, { id });
    let probes = 0;
    await untilLive(subscription, 'activityChanged', async () => {
      expect((await writer.request('PUT', `/api/activities/${id}`, { body: { title: `probe ${++probes}` }, key: member.key })).status).toBe(200);
      return id;
    });
    expect((await writer.request('PUT', `/api/activities/${id}`, { body: { status: 'RUNNING' }, key: member.key })).status).toBe(200);
    expect(await subscription.received('activityChanged', (row) => row.status === 'RUNNING')).toMatchObject({ id, status: 'RUNNING' });
    expect((await writer.request('DELETE', `/api/activities/${id}`, { key: member.key })).status).toBe(204);
    await subscription.until(() => subscription.completed);
    expect(subscription.error).toBeUndefined();
  });
});

describe('the protocol', () => {
  it('refuses queries over the WebSocket and subscriptions over HTTP, with a message that says where each goes', async () => {
    const connection = connect(reader, { 'x-api-key': member.key });
    const query = new Subscription(connection.client, '{ me { id } }', {});
    await query.until(() => query.error !== undefined || query.completed);
    expect(JSON.stringify(query.error)).toContain('only subscriptions run over the WebSocket');

    const project = await createProject(writer, organizationId, {}, member.key);
    const overHttp = await reader.graphql(TASK_CHANGED, { projectId: project.id }, member.key);
    expect(overHttp.status, overHttp.text).toBe(400);
    expect(overHttp.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('WebSocket'), extensions: { code: 'BAD_REQUEST', status: 400 } });
  });

  it('answers a malformed id as BAD_REQUEST naming the argument, and the connection stays open', async () => {
    const connection = connect(reader, { 'x-api-key': member.key });
    const refused = new Subscription(connection.client, TASK_CHANGED, { projectId: 'nope' });
    await refused.until(() => refused.completed || refused.error !== undefined);
    expect(refused.results[0]?.errors?.[0]).toMatchObject({ message: 'projectId: must be a UUID', extensions: { code: 'BAD_REQUEST' } });
    const project = await createProject(writer, organizationId, {}, member.key);
    await liveTaskSubscription(connection, project.id, writer, member.key);
  });

  it('refuses a subscription nested past the limits before parsing it (BAD_REQUEST naming the limit), and the connection stays open', async () => {
    const connection = connect(reader, { 'x-api-key': member.key });
    const deepLiteral = `subscription { taskChanged(projectId: ${'['.repeat(5_000)}${']'.repeat(5_000)}) { id } }`;
    const refused = new Subscription(connection.client, deepLiteral, {});
    await refused.until(() => refused.completed || refused.error !== undefined);
    const errors = refused.results[0]?.errors ?? (refused.error as any[]);
    expect(errors?.[0]).toMatchObject({ message: 'query: a value is nested deeper than the limit of 64 levels', extensions: { code: 'BAD_REQUEST' } });
    const project = await createProject(writer, organizationId, {}, member.key);
    await liveTaskSubscription(connection, project.id, writer, member.key);
  });
});

describe('shutdown', () => {
  it('closes the subscription connections at once on SIGTERM (1001), and the process exits 0 without waiting for them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-live-'));
    try {
      // The built server on the run's database, running no job (the other suites' jobs are not its to take).
      const process = await startServerProcess({
        DATABASE_URL: inject('databaseUrl'),
        BOOTSTRAP_API_KEY: generateApiKey(),
        DATA_DIR: dataDir,
        WORKER_CONCURRENCY: '0',
        SHUTDOWN_GRACE_SECONDS: '30',
      });
      const project = await createProject(writer, organizationId, {}, member.key);
      const connection = connect(process, { 'x-api-key': member.key });
      await liveTaskSubscription(connection, project.id, writer, member.key);
      const stopped = Date.now();
      const exit = await process.stop();
      expect(exit.code, process.output()).toBe(0);
      expect(exit.at - stopped).toBeLessThan(15_000);
      expect((await connection.closed).code).toBe(1001);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
