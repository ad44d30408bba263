import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { callersOf, type Caller } from './support/callers';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const { newCaller, rest, resolvedLevels } = callersOf(() => server);

const q = (filter: string) => encodeURIComponent(filter);

describe('events, channels, messages, data objects, linked deltas, applied knowledge sets and task document families', () => {
  let member: Caller;
  let organization: { id: string; slug: string };

  beforeAll(async () => {
    member = await newCaller('Collaboration');
    organization = await createOrganization(server, {}, member.key);
  });

  /** A document store of the organization and a family in it. */
  async function newFamily(path = 'in/a.pdf') {
    const store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId: organization.id, name: unique('Store') });
    return rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path });
  }

  it('keeps project -> channel -> message and an event over REST, embedding the event project', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const task = await createTask(server, project.id, { title: 'Review' }, member.key);
    const channel = await rest(member, 'POST', '/api/channels', 201, { projectId: project.id, name: 'general', taskId: task.id, ownerId: member.id });
    expect(channel).toMatchObject({
      projectId: project.id,
      name: 'general',
      taskId: task.id,
      workspaceId: null,
      ownerId: member.id,
      isPrivate: false,
      changeSequence: 0,
    });
    expect(await rest(member, 'GET', `/api/channels/${channel.id}`, 200)).toEqual(channel);

    const message = await rest(member, 'POST', '/api/messages', 201, {
      channelId: channel.id,
      role: 'USER',
      content: 'Hello',
      userId: member.id,
      context: { taskId: task.id },
    });
    expect(message).toMatchObject({
      channelId: channel.id,
      role: 'USER',
      content: 'Hello',
      userId: member.id,
      assistantId: null,
      context: { taskId: task.id },
    });
    expect(await rest(member, 'GET', `/api/messages/${message.id}`, 200)).toEqual(message);
    const listed = await rest(member, 'GET', `/api/messages?filter=${q(`channelId=='${channel.id}'`)}`, 200);
    expect(listed.content).toEqual([message]);
    expect(await rest(member, 'PUT', `/api/messages/${message.id}`, 200, message)).toEqual(message);
    expect(await rest(member, 'PUT', `/api/messages/${message.id}`, 200, { role: 'SYSTEM', content: 'Edited' })).toMatchObject({
      role: 'SYSTEM',
      content: 'Edited',
      changeSequence: 1,
    });

    const before = Date.now();
    const event = await rest(member, 'POST', '/api/events', 201, { projectId: project.id, eventType: 'custom_event', eventDetail: [1, 'two', { three: 3 }] });
    expect(event).toMatchObject({
      projectId: project.id,
      project: { id: project.id, name: project.name },
      eventType: 'custom_event',
      eventDetail: [1, 'two', { three: 3 }],
      notified: false,
    });
    expect(Date.parse(event.dateTime)).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse(event.dateTime)).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(await rest(member, 'GET', `/api/events/${event.id}`, 200)).toEqual(event);
    const dateTime = '2026-11-25T10:00:00.000Z';
    const scalar = await rest(member, 'POST', '/api/events', 201, {
      projectId: project.id,
      eventType: 'custom_event',
      eventDetail: 42,
      dateTime,
      notified: true,
    });
    expect(scalar).toMatchObject({ eventDetail: 42, dateTime, notified: true, project: { id: project.id } });
    const text = await rest(member, 'PUT', `/api/events/${scalar.id}`, 200, { eventDetail: 'done', notified: false });
    expect(text).toMatchObject({ eventDetail: 'done', notified: false, changeSequence: 1 });
    const unnotified = await rest(member, 'GET', `/api/events?filter=${q(`projectId=='${project.id}';notified==false;eventType==custom_event`)}`, 200);
    expect(unnotified.content.map((e: any) => e.id).sort()).toEqual([event.id, scalar.id].sort());
    // The server recorded the task's creation among the project's events too.
    const recorded = await rest(member, 'GET', `/api/events?filter=${q(`projectId=='${project.id}';eventType==task_created`)}`, 200);
    expect(recorded.content.map((e: any) => e.eventDetail)).toEqual([{ taskId: task.id }]);
    expect((await rest(member, 'POST', '/api/events', 400, { projectId: project.id })).details?.[0]?.field).toBe('eventType');

    await rest(member, 'DELETE', `/api/messages/${message.id}`, 204);
    await rest(member, 'GET', `/api/messages/${message.id}`, 404);
    await rest(member, 'DELETE', `/api/events/${event.id}`, 204);
    await rest(member, 'GET', `/api/events/${event.id}`, 404);
  });

  it('refuses an unknown message role with 400 naming role', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const channel = await rest(member, 'POST', '/api/channels', 201, { projectId: project.id, name: 'roles' });
    const refused = await rest(member, 'POST', '/api/messages', 400, { channelId: channel.id, role: 'ROBOT', content: 'x' });
    const detail = refused.details?.find((d: any) => d.field === 'role');
    expect(detail, JSON.stringify(refused)).toBeDefined();
    for (const value of ['USER', 'ASSISTANT', 'SYSTEM', 'TOOL']) expect(detail.message).toContain(value);
    expect((await rest(member, 'POST', '/api/messages', 400, { channelId: channel.id })).details?.some((d: any) => d.field === 'role')).toBe(true);
    const message = await rest(member, 'POST', '/api/messages', 201, { channelId: channel.id, role: 'TOOL' });
    expect((await rest(member, 'PUT', `/api/messages/${message.id}`, 400, { role: 'robot' })).details?.[0]?.field).toBe('role');
  });

  it('keeps project -> channel -> message and an event over GraphQL', async () => {
    const gql = (query: string, variables?: Record<string, unknown>) => server.graphqlData(query, variables, member.key);
    const project = await createProject(server, organization.id, {}, member.key);
    const { createChannel: channel } = await gql(
      `mutation($p: ID!) { createChannel(input: { projectId: $p, name: "gql", isPrivate: true }) { id projectId name isPrivate project { id } } }`,
      {
        p: project.id,
      },
    );
    expect(channel).toMatchObject({ projectId: project.id, name: 'gql', isPrivate: true, project: { id: project.id } });
    const { createMessage: message } = await gql(
      `mutation($c: ID!, $ctx: JSON) { createMessage(input: { channelId: $c, role: ASSISTANT, content: "Hi", context: $ctx }) { id channelId role content context channel { id } } }`,
      { c: channel.id, ctx: { a: [1] } },
    );
    expect(message).toMatchObject({ channelId: channel.id, role: 'ASSISTANT', content: 'Hi', context: { a: [1] }, channel: { id: channel.id } });
    const { createPlatformEvent: event } = await gql(
      `mutation($p: ID!, $d: JSON) { createPlatformEvent(input: { projectId: $p, eventType: "gql_event", eventDetail: $d }) { id eventType eventDetail notified dateTime project { id name } } }`,
      { p: project.id, d: ['x', 2] },
    );
    expect(event).toMatchObject({ eventType: 'gql_event', eventDetail: ['x', 2], notified: false, project: { id: project.id, name: project.name } });
    expect(event.dateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const read = await gql(`query($id: ID!) { platformEvent(id: $id) { id eventDetail } events(filter: "eventType=='gql_event'") { content { id } } }`, {
      id: event.id,
    });
    expect(read.platformEvent).toEqual({ id: event.id, eventDetail: ['x', 2] });
    expect(read.events.content.map((e: any) => e.id)).toContain(event.id);
    const { updatePlatformEvent: updated } = await gql(
      `mutation($id: ID!) { updatePlatformEvent(id: $id, input: { notified: true, eventDetail: 7 }) { notified eventDetail changeSequence } }`,
      {
        id: event.id,
      },
    );
    expect(updated).toEqual({ notified: true, eventDetail: 7, changeSequence: 1 });
    const { updateMessage } = await gql(`mutation($id: ID!) { updateMessage(id: $id, input: { content: "Edited" }) { content changeSequence } }`, {
      id: message.id,
    });
    expect(updateMessage).toEqual({ content: 'Edited', changeSequence: 1 });
    const bad = await server.graphql(`mutation($c: ID!) { createMessage(input: { channelId: $c, role: ROBOT }) { id } }`, { c: channel.id }, member.key);
    expect(bad.status).toBe(400);
    expect((await gql(`mutation($id: ID!) { deleteMessage(id: $id) }`, { id: message.id })).deleteMessage).toBe(true);
    expect((await gql(`mutation($id: ID!) { deletePlatformEvent(id: $id) }`, { id: event.id })).deletePlatformEvent).toBe(true);
  });

  it('keeps data objects in a tree and linked deltas with their states', async () => {
    const family = await newFamily();
    const root = await rest(member, 'POST', '/api/data-objects', 201, {
      documentFamilyId: family.id,
      path: 'invoice',
      taxonomyRef: 'acme/invoice',
      attributes: { total: 12 },
    });
    expect(root).toMatchObject({ documentFamilyId: family.id, parentId: null, path: 'invoice', taxonomyRef: 'acme/invoice', attributes: { total: 12 } });
    const child = await rest(member, 'POST', '/api/data-objects', 201, { documentFamilyId: family.id, parentId: root.id, path: 'invoice/line' });
    expect(child).toMatchObject({ parentId: root.id, attributes: {} });
    const tree = await server.graphqlData(`query($id: ID!) { dataObject(id: $id) { id children { content { id path } } } }`, { id: root.id }, member.key);
    expect(tree.dataObject).toEqual({ id: root.id, children: { content: [{ id: child.id, path: 'invoice/line' }] } });
    await rest(member, 'DELETE', `/api/data-objects/${root.id}`, 204);
    await rest(member, 'GET', `/api/data-objects/${child.id}`, 404);

    // Applying the operations is test/linked-deltas.test.ts's; here the stored delta and its server-owned state.
    const delta = await rest(member, 'POST', '/api/linked-deltas', 201, {
      documentFamilyId: family.id,
      operations: [{ op: 'create', path: 'a', attributes: {} }],
    });
    expect(delta).toMatchObject({
      documentFamilyId: family.id,
      operations: [{ op: 'create', path: 'a', attributes: {} }],
      state: 'APPLIED',
      errorMessage: null,
    });
    await rest(member, 'PUT', `/api/linked-deltas/${delta.id}`, 405, { state: 'APPLIED_PARTIAL', errorMessage: 'one dropped' });
    expect((await rest(member, 'POST', '/api/linked-deltas', 400, { documentFamilyId: family.id, operations: {} })).details?.[0]?.field).toBe('operations');
  });

  it('embeds documentFamily and snapshot in an applied knowledge set', async () => {
    const family = await newFamily('in/contract.pdf');
    const set = await rest(member, 'POST', '/api/knowledge-sets', 201, { organizationId: organization.id, name: unique('Rules') });
    const snapshot = await rest(member, 'POST', '/api/knowledge-set-snapshots', 201, { knowledgeSetId: set.id, version: 3, changeReason: 'initial' });
    const appliedAt = '2026-11-25T10:00:00.000Z';
    const applied = await rest(member, 'POST', '/api/applied-knowledge-sets', 201, {
      documentFamilyId: family.id,
      knowledgeSetId: set.id,
      snapshotId: snapshot.id,
      appliedAt,
      appliedBy: 'user@example.test',
      status: 'ACTIVE',
      trigger: 'MANUAL',
      confidence: 0.75,
    });
    expect(applied).toMatchObject({
      documentFamilyId: family.id,
      documentFamily: { id: family.id, path: 'in/contract.pdf' },
      knowledgeSetId: set.id,
      snapshotId: snapshot.id,
      snapshot: { id: snapshot.id, version: 3, changeReason: 'initial', knowledgeSetId: set.id },
      appliedAt,
      supersededAt: null,
      appliedBy: 'user@example.test',
      sourceContentObjectId: null,
      supersededById: null,
      status: 'ACTIVE',
      trigger: 'MANUAL',
      confidence: 0.75,
    });
    expect(await rest(member, 'GET', `/api/applied-knowledge-sets/${applied.id}`, 200)).toEqual(applied);
    const cleared = await rest(member, 'PUT', `/api/applied-knowledge-sets/${applied.id}`, 200, { snapshotId: null });
    expect(cleared).toMatchObject({ snapshotId: null, snapshot: null, documentFamily: { id: family.id } });
    const viaGraphql = await server.graphqlData(
      `query($id: ID!) { appliedKnowledgeSet(id: $id) { id documentFamily { id } snapshot { id } } }`,
      { id: applied.id },
      member.key,
    );
    expect(viaGraphql.appliedKnowledgeSet).toEqual({ id: applied.id, documentFamily: { id: family.id }, snapshot: null });
  });

  it('links a family to a task once: a second link is 409', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const task = await createTask(server, project.id, { title: 'Check' }, member.key);
    const family = await newFamily();
    const link = await rest(member, 'POST', '/api/task-document-families', 201, { taskId: task.id, documentFamilyId: family.id, role: 'INPUT' });
    expect(link).toMatchObject({ taskId: task.id, documentFamilyId: family.id, role: 'INPUT' });
    expect(await rest(member, 'POST', '/api/task-document-families', 409, { taskId: task.id, documentFamilyId: family.id, role: 'OUTPUT' })).toMatchObject({
      status: 409,
    });
    const other = await createTask(server, project.id, { title: 'Other' }, member.key);
    await rest(member, 'POST', '/api/task-document-families', 201, { taskId: other.id, documentFamilyId: family.id });
    await rest(member, 'DELETE', `/api/task-document-families/${link.id}`, 204);
    await rest(member, 'POST', '/api/task-document-families', 201, { taskId: task.id, documentFamilyId: family.id, role: 'OUTPUT' });
  });

  it('reads project -> channels -> messages with one SQL statement per level', async () => {
    const project = await createProject(server, organization.id, { name: unique('Nest') }, member.key);
    const channels: any[] = [];
    for (const name of ['c-one', 'c-two']) {
      const channel = await rest(member, 'POST', '/api/channels', 201, { projectId: project.id, name });
      const messages: any[] = [];
      for (const content of ['m-1', 'm-2', 'm-3']) {
        const message = await rest(member, 'POST', '/api/messages', 201, { channelId: channel.id, role: 'USER', content });
        messages.push({ id: message.id, content, role: 'USER' });
      }
      channels.push({ id: channel.id, name, messages: { content: messages } });
    }
    const levels = [
      `project(id: $id) { id }`,
      `project(id: $id) { id channels(sort: "name:asc") { content { id name } } }`,
      `project(id: $id) { id channels(sort: "name:asc") { content { id name messages(sort: "content:asc") { content { id content role } } } } }`,
    ];
    const counts: number[] = [];
    let deepest: any;
    for (const selection of levels) {
      const run = await resolvedLevels(selection, { id: project.id }, member.key);
      counts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.project).toEqual({ id: project.id, channels: { content: channels } });
    expect(counts[1] - counts[0], `statements: ${counts}`).toBe(1);
    expect(counts[2] - counts[1], `statements: ${counts}`).toBe(1);
  });

  it('answers 403 to a member of another organization reading a message', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const channel = await rest(member, 'POST', '/api/channels', 201, { projectId: project.id, name: 'private' });
    const message = await rest(member, 'POST', '/api/messages', 201, { channelId: channel.id, role: 'USER', content: 'secret' });
    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    expect(await rest(stranger, 'GET', `/api/messages/${message.id}`, 403)).toMatchObject({ status: 403 });
    const listed = await rest(stranger, 'GET', `/api/messages?filter=${q(`id=='${message.id}'`)}`, 200);
    expect(listed.totalElements).toBe(0);
    const viaGraphql = await server.graphql(`query($id: ID!) { message(id: $id) { id } }`, { id: message.id }, stranger.key);
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    await rest(stranger, 'PUT', `/api/messages/${message.id}`, 403, { content: 'mine' });
    await rest(stranger, 'POST', '/api/messages', 403, { channelId: channel.id, role: 'USER' });
    expect((await rest(member, 'GET', `/api/messages/${message.id}`, 200)).content).toBe('secret');
  });
});
