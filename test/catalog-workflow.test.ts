import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskGroupHistoryEntry } from '../src/entities';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { callersOf, type Caller } from './support/callers';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const { newCaller, rest, resolvedLevels } = callersOf(() => server);

/** A history entry written straight to the database: the API never creates them. */
async function seedHistory(projectId: string, taskGroupId: string, action = 'CREATE') {
  const em = server.orm.em.fork();
  const now = new Date();
  const entry = em.create(TaskGroupHistoryEntry, {
    id: randomUUID(),
    uuid: randomUUID(),
    createdOn: now,
    updatedOn: now,
    changeSequence: 0,
    taskGroupId,
    projectId,
    action,
    changes: { name: 'Intake' },
    actorId: 'someone',
    occurredAt: now,
  });
  await em.persist(entry).flush();
  return entry.id;
}

const q = (filter: string) => encodeURIComponent(filter);

describe('task groups, task-group history, task activities, activity plans, activities, triggers, project templates, service bridges and models', () => {
  let member: Caller;
  let organization: { id: string; slug: string };

  beforeAll(async () => {
    member = await newCaller('Workflow');
    organization = await createOrganization(server, {}, member.key);
  });

  it('answers 405 with an Allow header to the writes task-group history and task activities do not have', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const group = await rest(member, 'POST', '/api/task-groups', 201, { projectId: project.id, name: 'Intake', priority: 2 });
    const entryId = await seedHistory(project.id, group.id);

    const post = await server.request('POST', '/api/task-group-history', {
      body: { projectId: project.id, taskGroupId: group.id, action: 'CREATE' },
      key: member.key,
    });
    expect(post.status, post.text).toBe(405);
    expect(post.body).toMatchObject({ error: 'Method Not Allowed', status: 405 });
    expect(typeof post.body.message).toBe('string');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    for (const method of ['PUT', 'DELETE']) {
      const answer = await server.request(method, `/api/task-group-history/${entryId}`, { body: method === 'PUT' ? {} : undefined, key: member.key });
      expect(answer.status, answer.text).toBe(405);
      expect(answer.body).toMatchObject({ error: 'Method Not Allowed', status: 405 });
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
    }
    // Reading works, and the entry is unchanged.
    const entry = await rest(member, 'GET', `/api/task-group-history/${entryId}`, 200);
    expect(entry).toMatchObject({
      id: entryId,
      taskGroupId: group.id,
      projectId: project.id,
      action: 'CREATE',
      changes: { name: 'Intake' },
      actorId: 'someone',
      changeSequence: 0,
    });
    // Beside the entry the server wrote when the group was created (newest first).
    const listed = await rest(member, 'GET', `/api/task-group-history?filter=${q(`taskGroupId==${group.id}`)}`, 200);
    expect(listed.content.map((e: any) => e.actorId)).toEqual(['someone', member.id]);
    expect(listed.content[0].id).toBe(entryId);
    const viaGraphql = await server.graphqlData(
      `query($id: ID!, $filter: String) { taskGroupHistoryEntry(id: $id) { id action } taskGroupHistory(filter: $filter) { totalElements } }`,
      { id: entryId, filter: `taskGroupId==${group.id};actorId=='someone'` },
      member.key,
    );
    expect(viaGraphql).toEqual({ taskGroupHistoryEntry: { id: entryId, action: 'CREATE' }, taskGroupHistory: { totalElements: 1 } });

    // The entry outlives its group.
    await rest(member, 'DELETE', `/api/task-groups/${group.id}`, 204);
    await rest(member, 'GET', `/api/task-group-history/${entryId}`, 200);

    const task = await createTask(server, project.id, {}, member.key);
    const activity = await rest(member, 'POST', '/api/task-activities', 201, { taskId: task.id, type: 'COMMENT', text: 'Looks good' });
    expect(activity).toMatchObject({ taskId: task.id, type: 'COMMENT', text: 'Looks good', actorId: member.id, actorType: 'API_KEY', details: {} });
    const put = await server.request('PUT', `/api/task-activities/${activity.id}`, { body: { text: 'Edited' }, key: member.key });
    expect(put.status, put.text).toBe(405);
    expect(put.body).toMatchObject({ error: 'Method Not Allowed', status: 405 });
    expect(put.headers.get('allow')).toBe('GET, HEAD, DELETE');
    expect((await rest(member, 'GET', `/api/task-activities/${activity.id}`, 200)).text).toBe('Looks good');
    await rest(member, 'DELETE', `/api/task-activities/${activity.id}`, 204);
  });

  it('declares no GraphQL mutation a collection does not have: asking for one is a validation 400', async () => {
    const mutations = [
      ['createTaskGroupHistoryEntry', 'mutation { createTaskGroupHistoryEntry(input: {}) { id } }'],
      ['updateTaskGroupHistoryEntry', `mutation { updateTaskGroupHistoryEntry(id: "${randomUUID()}", input: {}) { id } }`],
      ['deleteTaskGroupHistoryEntry', `mutation { deleteTaskGroupHistoryEntry(id: "${randomUUID()}") }`],
      ['updateTaskActivity', `mutation { updateTaskActivity(id: "${randomUUID()}", input: {}) { id } }`],
    ];
    for (const [name, mutation] of mutations) {
      const answer = await server.graphql(mutation, undefined, member.key);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors?.[0]?.extensions, answer.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
      expect(answer.body.errors[0].message).toContain(name);
    }
    const schema = await server.graphqlData('{ __schema { mutationType { fields { name } } } }', undefined, member.key);
    const names = schema.__schema.mutationType.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['createTaskActivity', 'deleteTaskActivity', 'createTaskGroup', 'updateTaskGroup', 'deleteTaskGroup']));
    for (const [name] of mutations) expect(names).not.toContain(name);
  });

  it('refuses a task activity whose type is not a TaskActivityType, naming type', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const task = await createTask(server, project.id, {}, member.key);
    const refused = await rest(member, 'POST', '/api/task-activities', 400, { taskId: task.id, type: 'SHOUTED', text: 'x' });
    expect(refused.details?.[0]?.field).toBe('type');
    expect(refused.message).toContain('type');
    const unnamed = await rest(member, 'POST', '/api/task-activities', 201, { taskId: task.id, text: 'x' });
    expect(unnamed.type).toBe('COMMENT');
    await rest(member, 'DELETE', `/api/task-activities/${unnamed.id}`, 204);
    // The server writes the other types (and the actor): a client adds comments.
    const serverType = await rest(member, 'POST', '/api/task-activities', 400, { taskId: task.id, type: 'LOCKED', text: 'x' });
    expect(serverType.details?.[0]?.field).toBe('type');
    const comment = await rest(member, 'POST', '/api/task-activities', 201, {
      taskId: task.id,
      type: 'COMMENT',
      text: 'Looks good',
      actorType: 'SYSTEM',
      actorId: 'someone',
    });
    expect(comment).toMatchObject({ type: 'COMMENT', text: 'Looks good', actorType: 'API_KEY', actorId: member.id });
    const listed = await rest(member, 'GET', `/api/task-activities?filter=${q(`taskId==${task.id}`)}`, 200);
    // Newest first: the comment, then the CREATED activity of the task.
    expect(listed.content.map((a: any) => a.type)).toEqual(['COMMENT', 'CREATED']);
  });

  it('lets administrators write models and every member read them', async () => {
    const plain = await newCaller('Plain');
    await createOrganization(server, {}, plain.key);
    const name = unique('model');
    const model = await rest(null, 'POST', '/api/models', 201, {
      name,
      provider: 'acme',
      upstreamModel: 'acme-large-2',
      supports_tools: true,
      supports_vision: false,
      supports_documents: true,
      reasoning_output: false,
    });
    expect(model).toMatchObject({
      name,
      provider: 'acme',
      upstreamModel: 'acme-large-2',
      supports_tools: true,
      supports_vision: false,
      supports_documents: true,
      reasoning_output: false,
      enabled: true,
    });
    expect(await rest(plain, 'GET', `/api/models/${model.id}`, 200)).toEqual(model);
    const listed = await rest(plain, 'GET', `/api/models?filter=${q(`name=='${name}'`)}`, 200);
    expect(listed.content).toEqual([model]);
    const viaGraphql = await server.graphqlData(
      `query($id: ID!) { modelCatalogEntry(id: $id) { name supports_tools reasoning_output enabled } }`,
      { id: model.id },
      plain.key,
    );
    expect(viaGraphql.modelCatalogEntry).toEqual({ name, supports_tools: true, reasoning_output: false, enabled: true });

    expect(await rest(plain, 'POST', '/api/models', 403, { name: unique('mine') })).toMatchObject({ status: 403, error: 'Forbidden' });
    await rest(plain, 'PUT', `/api/models/${model.id}`, 403, { enabled: false });
    await rest(plain, 'DELETE', `/api/models/${model.id}`, 403);
    const gql = await server.graphql(`mutation { createModelCatalogEntry(input: { name: "${unique('gql')}" }) { id } }`, undefined, plain.key);
    expect(gql.body.errors?.[0]?.extensions, gql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });

    await rest(null, 'POST', '/api/models', 409, { name });
    expect(await rest(null, 'PUT', `/api/models/${model.id}`, 200, { enabled: false })).toMatchObject({ enabled: false, changeSequence: 1 });
    await rest(null, 'DELETE', `/api/models/${model.id}`, 204);
    await rest(plain, 'GET', `/api/models/${model.id}`, 404);
  });

  it('keeps activity plans, activities, triggers, project templates and service bridges with their defaults and scoped slugs', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const steps = [{ ref: 'extract', name: 'Extract', stepType: 'LLM', options: { model: 'x' }, executionPolicy: { retries: 2 } }];
    const plan = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: 'Review Flow', steps });
    expect(plan).toMatchObject({ name: 'Review Flow', slug: 'review-flow', steps, deleted: false });
    const again = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: 'Review Flow' });
    expect(again.slug).toBe('review-flow-1');

    const activity = await rest(member, 'POST', '/api/activities', 201, { projectId: project.id, activityPlanId: plan.id, title: 'Run 1' });
    expect(activity).toMatchObject({
      status: 'PENDING',
      inputs: {},
      steps: [],
      startedByTriggerId: null,
      startedOn: null,
      completedOn: null,
      errorDetails: null,
    });
    const bad = await rest(member, 'POST', '/api/activities', 400, { projectId: project.id, status: 'DONE' });
    expect(bad.details?.[0]?.field).toBe('status');
    expect(await rest(member, 'PUT', `/api/activities/${activity.id}`, 200, { status: 'FAILED', errorDetails: { reason: 'timeout' } })).toMatchObject({
      status: 'FAILED',
      errorDetails: { reason: 'timeout' },
    });

    const trigger = await rest(member, 'POST', '/api/triggers', 201, {
      projectId: project.id,
      name: 'On Create',
      eventKind: 'task_created',
      activityPlanRef: `activity-plan://${organization.slug}/${plan.slug}`,
    });
    expect(trigger).toMatchObject({ slug: 'on-create', enabled: true, eventFilter: null, inputMapping: null });

    const template = await rest(member, 'POST', '/api/project-templates', 201, {
      organizationId: organization.id,
      name: 'Contracts',
      taskStatuses: [{ slug: 'open', label: 'Open', color: '#fff', statusType: 'OPEN' }],
      publicAccess: true,
    });
    expect(template).toMatchObject({ slug: 'contracts', options: [], documentStatuses: [], activityPlans: [], triggers: [], publicAccess: true });

    const bridge = await rest(member, 'POST', '/api/service-bridges', 201, {
      organizationId: organization.id,
      name: 'CRM',
      baseUrl: 'https://crm.example.test',
      defaultHeaders: [{ name: 'X-Tenant', value: 'acme' }],
      endpoints: [{ name: 'lookup', method: 'GET', path: '/customers/{id}', requestSchema: {}, headers: [] }],
    });
    expect(bridge).toMatchObject({ slug: 'crm', agentCallable: false, defaultHeaders: [{ name: 'X-Tenant', value: 'acme' }] });
    await rest(member, 'DELETE', `/api/service-bridges/${bridge.id}`, 204);
    await rest(member, 'GET', `/api/service-bridges/${bridge.id}`, 404);
  });

  it('reads project -> taskGroups with one SQL statement per level', async () => {
    const project = await createProject(server, organization.id, { name: unique('Nest') }, member.key);
    const groups: any[] = [];
    for (const name of ['g-one', 'g-two', 'g-three']) {
      const group = await rest(member, 'POST', '/api/task-groups', 201, { projectId: project.id, name, priority: 1 });
      groups.push({ id: group.id, name, priority: 1 });
    }
    const levels = [`project(id: $id) { id }`, `project(id: $id) { id taskGroups(sort: "name:asc") { content { id name priority } } }`];
    const counts: number[] = [];
    let deepest: any;
    for (const selection of levels) {
      const run = await resolvedLevels(selection, { id: project.id }, member.key);
      counts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.project).toEqual({ id: project.id, taskGroups: { content: [...groups].sort((a, b) => a.name.localeCompare(b.name)) } });
    expect(counts[1] - counts[0], `statements: ${counts}`).toBe(1);
  });

  it('answers 403 to a member of another organization reading or changing a trigger', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const plan = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: 'Private Flow' });
    const activityPlanRef = `activity-plan://${organization.slug}/${plan.slug}`;
    const trigger = await rest(member, 'POST', '/api/triggers', 201, { projectId: project.id, name: 'Private', eventKind: 'task_created', activityPlanRef });
    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    expect(await rest(stranger, 'GET', `/api/triggers/${trigger.id}`, 403)).toMatchObject({ status: 403 });
    expect((await rest(stranger, 'GET', `/api/triggers?filter=${q(`id==${trigger.id}`)}`, 200)).totalElements).toBe(0);
    const viaGraphql = await server.graphql(`query($id: ID!) { trigger(id: $id) { id } }`, { id: trigger.id }, stranger.key);
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    await rest(stranger, 'PUT', `/api/triggers/${trigger.id}`, 403, { enabled: false });
    await rest(stranger, 'DELETE', `/api/triggers/${trigger.id}`, 403);
    await rest(stranger, 'POST', '/api/triggers', 403, { projectId: project.id, name: 'mine', eventKind: 'x', activityPlanRef: 'x' });
    expect((await rest(member, 'GET', `/api/triggers/${trigger.id}`, 200)).enabled).toBe(true);
  });
});
