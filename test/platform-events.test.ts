import type { FormattedExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Every platform event carries the organization of its subject, also one of no project (a document
 * family locked with no status and no linked task): who sees it, how lists filter it, the triggers
 * that hear (or do not hear) it, its live delivery, and the writes clients make on events.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let outsider: Caller;
let organizationId: string;
let organizationSlug: string;
let projectId: string;
let storeId: string;
let reviewed: any;
const opened: Client[] = [];

beforeAll(async () => {
  server = await startServer({ workerConcurrency: 2 });
  member = await newCaller('Events');
  outsider = await newCaller('EventsOutsider');
  const organization = await createOrganization(server, { name: unique('EventsOrg') }, member.key);
  organizationId = organization.id;
  organizationSlug = organization.slug;
  await createOrganization(server, { name: unique('EventsOther') }, outsider.key);
  projectId = (await createProject(server, organizationId, {}, member.key)).id;
  storeId = (await rest(member, 'POST', '/api/document-stores', 201, { name: unique('Store'), organizationId })).id;
  reviewed = await rest(member, 'POST', '/api/document-statuses', 201, { status: 'Reviewed', projectId });
});
afterAll(async () => {
  await Promise.all(opened.splice(0).map((client) => client.dispose()));
  await server?.close();
});

const q = encodeURIComponent;
const newFamily = (body: Record<string, unknown> = {}) =>
  rest(member, 'POST', '/api/document-families', 201, { documentStoreId: storeId, path: unique('doc'), ...body });

async function lockedFamily(body: Record<string, unknown> = {}): Promise<any> {
  const family = await newFamily(body);
  await rest(member, 'PUT', `/api/document-families/${family.id}/lock`, 200);
  return family;
}

/** The events of `filter` as `caller` sees them. */
async function events(filter: string, caller: Caller = member): Promise<any[]> {
  return (await rest(caller, 'GET', `/api/events?filter=${q(filter)}&pageSize=100`, 200)).content;
}

async function lockEventsOf(familyId: string, filter = 'eventType==document_locked'): Promise<any[]> {
  return (await events(filter)).filter((e) => e.eventDetail?.documentFamilyId === familyId);
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('an event of no project', () => {
  it('is recorded once when a family with no status and no linked task is locked, with its organization and projectId null', async () => {
    const family = await lockedFamily();
    const recorded = await lockEventsOf(family.id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      eventType: 'document_locked',
      eventDetail: { documentFamilyId: family.id },
      organizationId,
      projectId: null,
      project: null,
      notified: false,
      dateTime: expect.any(String),
    });
    expect(await rest(member, 'GET', `/api/events/${recorded[0].id}`, 200)).toEqual(recorded[0]);
  });

  it('is seen by members of its organization (REST and GraphQL), not by a member of another organization', async () => {
    const family = await lockedFamily();
    const [event] = await lockEventsOf(family.id);

    const read = await server.graphqlData(
      `query($id: ID!, $f: String) { platformEvent(id: $id) { id organizationId projectId project { id } eventType }
                                     events(filter: $f) { totalElements content { id organizationId projectId } } }`,
      { id: event.id, f: `id==${event.id}` },
      member.key,
    );
    expect(read.platformEvent).toEqual({ id: event.id, organizationId, projectId: null, project: null, eventType: 'document_locked' });
    expect(read.events).toEqual({ totalElements: 1, content: [{ id: event.id, organizationId, projectId: null }] });
    const nested = await server.graphqlData(
      `query($o: ID!, $f: String) { organization(id: $o) { events(filter: $f) { content { id organization { id } } } } }`,
      { o: organizationId, f: `id==${event.id}` },
      member.key,
    );
    expect(nested.organization.events.content).toEqual([{ id: event.id, organization: { id: organizationId } }]);

    await rest(outsider, 'GET', `/api/events/${event.id}`, 403);
    expect(await events(`id==${event.id}`, outsider)).toEqual([]);
    expect(await events(`organizationId==${organizationId}`, outsider)).toEqual([]);
    const foreign = await server.graphql(`query($id: ID!) { platformEvent(id: $id) { id } }`, { id: event.id }, outsider.key);
    expect(foreign.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
    const listed = await server.graphqlData(`query($f: String) { events(filter: $f) { totalElements } }`, { f: `id==${event.id}` }, outsider.key);
    expect(listed.events.totalElements).toBe(0);
  });

  it("is listed by organizationId, and not among a project's events", async () => {
    const family = await lockedFamily();
    const [event] = await lockEventsOf(family.id, `organizationId==${organizationId};eventType==document_locked`);
    expect(event).toMatchObject({ organizationId, projectId: null });
    expect(await lockEventsOf(family.id, `projectId==${projectId}`)).toEqual([]);
    const other = await createOrganization(server, { name: unique('EventsEmpty') }, member.key);
    expect(await events(`organizationId==${other.id}`)).toEqual([]);
  });
});

describe('events of a project', () => {
  it('carry the organization of the project: task events and document_locked of a family with a status', async () => {
    const task = await createTask(server, projectId, { title: unique('Task') }, member.key);
    await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 200, { reason: 'done' });
    const taskEvents = (await events(`projectId==${projectId}`)).filter((e) => e.eventDetail?.taskId === task.id);
    expect(taskEvents.map((e) => e.eventType).sort()).toEqual(['task_created', 'task_locked', 'task_unlocked']);
    for (const event of taskEvents) expect(event).toMatchObject({ organizationId, projectId, project: { id: projectId } });

    const family = await lockedFamily({ documentStatusId: reviewed.id });
    expect(await lockEventsOf(family.id)).toEqual([
      expect.objectContaining({ organizationId, projectId, project: expect.objectContaining({ id: projectId }) }),
    ]);
    const both = await events(`organizationId==${organizationId};projectId==${projectId};eventType==task_created`);
    expect(both.map((e) => e.eventDetail.taskId)).toContain(task.id);
  });

  it('created through the API take the organization of their project, or name it and no project', async () => {
    const inProject = await rest(member, 'POST', '/api/events', 201, { projectId, eventType: 'integration_event', eventDetail: { n: 1 } });
    expect(inProject).toMatchObject({ projectId, organizationId, project: { id: projectId } });
    expect(await rest(member, 'GET', `/api/events/${inProject.id}`, 200)).toEqual(inProject);

    const loose = await rest(member, 'POST', '/api/events', 201, { organizationId, eventType: 'integration_event' });
    expect(loose).toMatchObject({ projectId: null, organizationId, project: null, notified: false });

    const neither = await rest(member, 'POST', '/api/events', 400, { eventType: 'integration_event' });
    expect(neither.details?.[0]?.field).toBe('organizationId');
    const other = await createOrganization(server, { name: unique('EventsSecond') }, member.key);
    const mismatched = await rest(member, 'POST', '/api/events', 400, { projectId, organizationId: other.id, eventType: 'integration_event' });
    expect(mismatched.details?.[0]?.field).toBe('projectId');
    const refused = await rest(outsider, 'POST', '/api/events', 403, { projectId, eventType: 'integration_event' });
    expect(refused.details?.[0]?.field).toBe('projectId');

    const viaGraphql = await server.graphqlData(
      `mutation($o: ID) { createPlatformEvent(input: { organizationId: $o, eventType: "gql_loose" }) { id organizationId projectId project { id } } }`,
      { o: organizationId },
      member.key,
    );
    expect(viaGraphql.createPlatformEvent).toMatchObject({ organizationId, projectId: null, project: null });
  });
});

describe('writes on events', () => {
  it('PUT changes notified (also of an event of no project), DELETE removes it', async () => {
    const family = await lockedFamily();
    const [event] = await lockEventsOf(family.id);
    const updated = await rest(member, 'PUT', `/api/events/${event.id}`, 200, { notified: true });
    expect(updated).toMatchObject({ id: event.id, notified: true, organizationId, projectId: null, changeSequence: event.changeSequence + 1 });
    expect((await events(`organizationId==${organizationId};notified==true`)).map((e) => e.id)).toContain(event.id);
    expect((await events(`organizationId==${organizationId};notified==false`)).map((e) => e.id)).not.toContain(event.id);
    await rest(outsider, 'PUT', `/api/events/${event.id}`, 403, { notified: false });

    const task = await createTask(server, projectId, { title: unique('Task') }, member.key);
    const [created] = (await events(`projectId==${projectId};eventType==task_created`)).filter((e) => e.eventDetail.taskId === task.id);
    expect((await rest(member, 'PUT', `/api/events/${created.id}`, 200, { notified: true })).notified).toBe(true);

    await rest(outsider, 'DELETE', `/api/events/${event.id}`, 403);
    await rest(member, 'DELETE', `/api/events/${event.id}`, 204);
    await rest(member, 'GET', `/api/events/${event.id}`, 404);
    await rest(member, 'DELETE', `/api/events/${created.id}`, 204);
    await rest(member, 'GET', `/api/events/${created.id}`, 404);
  });
});

describe('triggers', () => {
  it('a project trigger on document_locked fires for the event of its project, never for the event of no project', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const status = await rest(member, 'POST', '/api/document-statuses', 201, { status: 'Triggered', projectId: project.id });
    const plan = await rest(member, 'POST', '/api/activity-plans', 201, { name: unique('Plan'), organizationId, steps: [] });
    const trigger = await rest(member, 'POST', '/api/triggers', 201, {
      name: unique('Trigger'),
      projectId: project.id,
      eventKind: 'document_locked',
      activityPlanRef: `activity-plan://${organizationSlug}/${plan.slug}`,
      inputMapping: { familyId: 'documentFamily.id' },
    });

    const loose = await lockedFamily();
    const [looseEvent] = await lockEventsOf(loose.id);
    expect(looseEvent.projectId).toBeNull();
    // Even asked to evaluate it, the queue finds no trigger to fire for an event of no project.
    const connection = server.orm.em.fork().getConnection();
    await connection.execute(`select graphile_worker.add_job('evaluate-triggers', json_build_object('eventId', ?::text), max_attempts => 1)`, [looseEvent.id]);
    const inProject = await lockedFamily({ documentStatusId: status.id });

    const activitiesOf = async () => (await rest(member, 'GET', `/api/activities?pageSize=100&filter=${q(`projectId==${project.id}`)}`, 200)).content as any[];
    const [fired] = await waitFor('the trigger to fire', activitiesOf, (rows) => rows.length > 0);
    expect(fired).toMatchObject({ startedByTriggerId: trigger.id, inputs: { familyId: inProject.id } });
    await waitFor(
      'the evaluation of the event of no project',
      async () =>
        Number((await connection.execute(`select count(*) as n from graphile_worker._private_jobs where payload->>'eventId' = ?`, [looseEvent.id]))[0].n),
      (n) => n === 0,
    );
    expect((await activitiesOf()).map((a) => a.inputs.familyId)).toEqual([inProject.id]);
  });
});

/** What one subscription has received, in order. */
class Received {
  readonly rows: any[] = [];
  error?: unknown;
  constructor(client: Client, query: string, variables: Record<string, unknown>) {
    client.subscribe<Record<string, any>>(
      { query, variables },
      {
        next: (result: FormattedExecutionResult<Record<string, any>>) => {
          if (result.data?.platformEventRecorded) this.rows.push(result.data.platformEventRecorded);
          if (result.errors) this.error = result.errors;
        },
        error: (error) => (this.error = error),
        complete: () => undefined,
      },
    );
  }
}

describe('platformEventRecorded', () => {
  it("delivers a project's events, and an event of no project recorded meanwhile to no project's subscribers", async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const status = await rest(member, 'POST', '/api/document-statuses', 201, { status: 'Live', projectId: project.id });
    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': member.key },
      retryAttempts: 0,
    });
    opened.push(client);
    const subscription = new Received(
      client,
      `subscription($p: ID!) { platformEventRecorded(projectId: $p) { id eventType eventDetail projectId organizationId project { id } } }`,
      { p: project.id },
    );
    // Live once a probe event has been delivered.
    const probes = new Set<string>();
    await waitFor(
      'the subscription to be live',
      async () => {
        probes.add((await rest(member, 'POST', '/api/events', 201, { projectId: project.id, eventType: 'probe' })).id);
        return subscription.rows.some((row) => probes.has(row.id));
      },
      Boolean,
    );

    const loose = await lockedFamily();
    const inProject = await lockedFamily({ documentStatusId: status.id });
    const delivered = await waitFor(
      'the document_locked event',
      async () => subscription.rows.filter((row) => row.eventType === 'document_locked'),
      (rows) => rows.length > 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(subscription.error).toBeUndefined();
    expect(delivered).toEqual([
      {
        id: expect.any(String),
        eventType: 'document_locked',
        eventDetail: { documentFamilyId: inProject.id },
        projectId: project.id,
        organizationId,
        project: { id: project.id },
      },
    ]);
    expect(subscription.rows.some((row) => row.eventDetail?.documentFamilyId === loose.id)).toBe(false);
  });
});
