import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Task groups (docs/operations.md): the memberTask filter, the task's
 * taskGroupId reference, and the history written with every create, update and delete, on both faces.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let outsider: Caller;
let organizationId: string;
let projectId: string;
let otherProjectId: string;
let theirProjectId: string;

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Groups');
  outsider = await newCaller('GroupsOutsider');
  organizationId = (await createOrganization(server, { name: unique('GroupsOrg') }, member.key)).id;
  projectId = (await createProject(server, organizationId, {}, member.key)).id;
  otherProjectId = (await createProject(server, organizationId, {}, member.key)).id;
  const theirOrganizationId = (await createOrganization(server, { name: unique('TheirGroupsOrg') }, outsider.key)).id;
  theirProjectId = (await createProject(server, theirOrganizationId, {}, outsider.key)).id;
});
afterAll(() => server.close());

const newGroup = (body: Record<string, unknown> = {}, caller = member, project = projectId) =>
  rest(caller, 'POST', '/api/task-groups', 201, { name: unique('Group'), projectId: project, ...body });

const newTask = (body: Record<string, unknown>, caller = member, project = projectId) =>
  createTask(server, project, { title: unique('Task'), ...body }, caller.key);

/** The names of the groups of `project` a filter matches, as `caller` lists them. */
async function matching(filter: string, caller = member, project = projectId): Promise<string[]> {
  const query = encodeURIComponent(`projectId==${project};(${filter})`);
  const page = await rest(caller, 'GET', `/api/task-groups?filter=${query}&pageSize=100&sort=name:asc`, 200);
  return page.content.map((g: { name: string }) => g.name);
}

async function historyOf(groupId: string, query = '', caller = member): Promise<any> {
  return rest(caller, 'GET', `/api/task-groups/${groupId}/history${query}`, 200);
}

describe('the memberTask filter', () => {
  let project: string;
  let alpha: any;
  let beta: any;

  beforeAll(async () => {
    // A project of its own, so that its groups are the only ones the filters can meet.
    project = (await createProject(server, organizationId, {}, member.key)).id;
    alpha = await newGroup({ name: 'alpha', priority: 1 }, member, project);
    beta = await newGroup({ name: 'beta', priority: 7 }, member, project);
    await newGroup({ name: 'gamma', priority: 7 }, member, project);
    await newTask({ title: 'draft the report', priority: 5, statusSlug: 'open', taskGroupId: alpha.id }, member, project);
    await newTask({ title: 'send the report', priority: 1, statusSlug: 'done', taskGroupId: alpha.id }, member, project);
    await newTask({ title: 'file the invoice', priority: 1, statusSlug: 'open', taskGroupId: beta.id }, member, project);
    await newTask({ title: 'not in a group', priority: 9 }, member, project);
  });

  it('matches a group when one of its tasks meets the condition, on any task field', async () => {
    expect(await matching(`memberTask.title=='draft the report'`, member, project)).toEqual(['alpha']);
    expect(await matching(`memberTask.statusSlug=='open'`, member, project)).toEqual(['alpha', 'beta']);
    expect(await matching(`memberTask.priority>4`, member, project)).toEqual(['alpha']);
    expect(await matching(`memberTask.title=like='*report*'`, member, project)).toEqual(['alpha']);
    expect(await matching(`memberTask.priority>8`, member, project)).toEqual([]);
    expect(await matching(`memberTask.statusSlug=in=('done','blocked')`, member, project)).toEqual(['alpha']);
  });

  it("combines with the group's own fields by and/or, in either spelling", async () => {
    expect(await matching(`memberTask.statusSlug=='open' and priority==7`, member, project)).toEqual(['beta']);
    expect(await matching(`memberTask.statusSlug=='open';priority==7`, member, project)).toEqual(['beta']);
    expect(await matching(`memberTask.priority>4 or name=='gamma'`, member, project)).toEqual(['alpha', 'gamma']);
    expect(await matching(`memberTask.priority>4,name=='gamma'`, member, project)).toEqual(['alpha', 'gamma']);
    expect(await matching(`(name=='beta' or name=='gamma') and memberTask.title=like='*invoice*'`, member, project)).toEqual(['beta']);
  });

  it('asks conditions joined by and of one and the same task', async () => {
    // alpha has a task of priority 5 and a done task, but no done task of priority 5.
    expect(await matching(`memberTask.statusSlug=='done';memberTask.priority==5`, member, project)).toEqual([]);
    expect(await matching(`memberTask.statusSlug=='done';memberTask.priority==1`, member, project)).toEqual(['alpha']);
    expect(await matching(`memberTask.statusSlug=='done',memberTask.title=='file the invoice'`, member, project)).toEqual(['alpha', 'beta']);
  });

  it('never matches a deleted task', async () => {
    const group = await newGroup({ name: 'delta' }, member, project);
    const task = await newTask({ title: 'soon deleted', taskGroupId: group.id }, member, project);
    expect(await matching(`memberTask.title=='soon deleted'`, member, project)).toEqual(['delta']);
    await rest(member, 'DELETE', `/api/tasks/${task.id}`, 204);
    expect(await matching(`memberTask.title=='soon deleted'`, member, project)).toEqual([]);
  });

  it("never matches another tenant's task, even one that names the group", async () => {
    const group = await newGroup({ name: 'epsilon' }, member, project);
    const theirs = await newTask({ title: 'their secret task' }, outsider, theirProjectId);
    // The API refuses such a reference; written beneath it, the filter still does not look at their task.
    await server.orm.em.getConnection().execute(`update task set task_group_id = ? where id = ?`, [group.id, theirs.id]);
    expect(await matching(`memberTask.title=='their secret task'`, member, project)).toEqual([]);
    const page = await rest(outsider, 'GET', `/api/task-groups?filter=${encodeURIComponent(`memberTask.title=='their secret task'`)}`, 200);
    expect(page.content).toEqual([]);
    await server.orm.em.getConnection().execute(`update task set task_group_id = null where id = ?`, [theirs.id]);
  });

  it("never shows another tenant's groups, whatever their tasks", async () => {
    const theirs = await newGroup({ name: 'theirs' }, outsider, theirProjectId);
    await newTask({ title: 'shared words', taskGroupId: theirs.id }, outsider, theirProjectId);
    const page = await rest(member, 'GET', `/api/task-groups?filter=${encodeURIComponent(`memberTask.title=='shared words'`)}`, 200);
    expect(page.content).toEqual([]);
    expect((await rest(outsider, 'GET', `/api/task-groups?filter=${encodeURIComponent(`memberTask.title=='shared words'`)}`, 200)).content).toHaveLength(1);
  });

  it('is one EXISTS subquery in the statement of the page, loading no task', async () => {
    const path = `/api/task-groups?filter=${encodeURIComponent(`projectId==${project};memberTask.statusSlug=='open';priority==7`)}`;
    await rest(member, 'GET', path, 200);
    const statements = await server.fewestQueries(() => rest(member, 'GET', path, 200));
    const texts = statements.map((s) => s.text.toLowerCase());
    const page = texts.find((t) => t.includes('from "task_group"'));
    expect(page, texts.join('\n')).toMatch(/exists \(select 1 from "task" as "inv0"/);
    expect(texts.filter((t) => /from "task" as "(?!inv0)/.test(t) || t.startsWith('select "e0".* from "task"'))).toEqual([]);
    expect(statements.length).toBeLessThanOrEqual(2);
  });

  it('follows references of the task too, and pages the count the same way', async () => {
    const project2 = await rest(member, 'GET', `/api/projects/${project}`, 200);
    const page = await rest(member, 'GET', `/api/task-groups?pageSize=1&filter=${encodeURIComponent(`memberTask.project.name=='${project2.name}'`)}`, 200);
    expect(page.totalElements).toBe(2);
    expect(page.content).toHaveLength(1);
  });

  it('refuses what names no task field, naming filter', async () => {
    for (const filter of [`memberTask=='x'`, `memberTask.nope=='x'`, `memberTask.priority=='high'`, `memberTasks.title=='x'`, `memberTask.properties=='x'`]) {
      const refused = await rest(member, 'GET', `/api/task-groups?filter=${encodeURIComponent(filter)}`, 400);
      expect(refused.details[0].field, filter).toBe('filter');
    }
    const refused = await rest(member, 'GET', `/api/task-groups?filter=${encodeURIComponent(`memberTask.nope=='x'`)}`, 400);
    expect(refused.message).toContain('memberTask.nope');
    const sorted = await rest(member, 'GET', `/api/task-groups?sort=memberTask.title:asc`, 400);
    expect(sorted.details[0].field).toBe('sort');
  });

  it('works in GraphQL, with TaskGroup.tasks', async () => {
    const data = await server.graphqlData(
      `query($f: String) { taskGroups(filter: $f, sort: "name:asc") { content { name tasks(sort: "title:asc") { content { title } } } } }`,
      { f: `projectId==${project};memberTask.statusSlug=='done'` },
      member.key,
    );
    expect(data.taskGroups.content).toEqual([{ name: 'alpha', tasks: { content: [{ title: 'draft the report' }, { title: 'send the report' }] } }]);
  });
});

describe('a task names its group', () => {
  it('accepts a live group of the same project, as taskGroupId or taskGroup: {id}, and clears it with null', async () => {
    const group = await newGroup();
    const task = await newTask({ taskGroupId: group.id });
    expect(task.taskGroupId).toBe(group.id);
    const other = await newGroup();
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}`, 200, { taskGroup: { id: other.id } })).taskGroupId).toBe(other.id);
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}`, 200, { taskGroupId: null })).taskGroupId).toBeNull();
  });

  it("refuses a group of another project, a deleted or unknown one (400 naming taskGroupId) and another tenant's (403)", async () => {
    const elsewhere = await newGroup({}, member, otherProjectId);
    const deleted = await newGroup();
    await rest(member, 'DELETE', `/api/task-groups/${deleted.id}`, 204);
    for (const id of [elsewhere.id, deleted.id, randomUUID()]) {
      const refused = await rest(member, 'POST', '/api/tasks', 400, { projectId, taskGroupId: id });
      expect(refused.details[0].field).toBe('taskGroupId');
    }
    const task = await newTask({});
    const moved = await rest(member, 'PUT', `/api/tasks/${task.id}`, 400, { taskGroupId: elsewhere.id });
    expect(moved.details[0].field).toBe('taskGroupId');
    const theirs = await newGroup({}, outsider, theirProjectId);
    const forbidden = await rest(member, 'POST', '/api/tasks', 403, { projectId, taskGroupId: theirs.id });
    expect(forbidden.details[0].field).toBe('taskGroupId');
    const malformed = await rest(member, 'POST', '/api/tasks', 400, { projectId, taskGroupId: 'not-a-uuid' });
    expect(malformed.details[0].field).toBe('taskGroupId');
  });
});

describe('task group history', () => {
  it('records create, update and delete with the exact changes, the actor and the time, newest first', async () => {
    const before = Date.now();
    const group = await newGroup({ name: 'History', priority: 2, metadata: { k: 1 } });
    await rest(member, 'PUT', `/api/task-groups/${group.id}`, 200, { name: 'History renamed', priority: 3, description: group.description });
    // Changes nothing: no entry.
    await rest(member, 'PUT', `/api/task-groups/${group.id}`, 200, { name: 'History renamed' });
    await rest(member, 'PUT', `/api/task-groups/${group.id}`, 200, { assigneeId: member.id, metadata: { k: 2 } });
    await rest(member, 'DELETE', `/api/task-groups/${group.id}`, 204);

    const history = await historyOf(group.id);
    expect(history.totalElements).toBe(4);
    const entries = history.content;
    expect(entries.map((e: any) => e.action)).toEqual(['DELETE', 'UPDATE', 'UPDATE', 'CREATE']);
    for (const entry of entries) {
      expect(entry).toMatchObject({ taskGroupId: group.id, projectId, actorId: member.id });
      expect(Date.parse(entry.occurredAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(entry.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(entries[3].changes).toEqual({
      name: { from: null, to: 'History' },
      description: { from: null, to: '' },
      projectId: { from: null, to: projectId },
      statusSlug: { from: null, to: null },
      priority: { from: null, to: 2 },
      teamId: { from: null, to: null },
      assigneeId: { from: null, to: null },
      metadata: { from: null, to: { k: 1 } },
    });
    expect(entries[2].changes).toEqual({ name: { from: 'History', to: 'History renamed' }, priority: { from: 2, to: 3 } });
    expect(entries[1].changes).toEqual({ assigneeId: { from: null, to: member.id }, metadata: { from: { k: 1 }, to: { k: 2 } } });
    expect(entries[0].changes).toEqual({ deleted: { from: false, to: true } });
  });

  it("pages, filters and sorts one group's history, still readable after the group is deleted", async () => {
    const group = await newGroup({ name: 'Paged' });
    for (const priority of [1, 2, 3]) await rest(member, 'PUT', `/api/task-groups/${group.id}`, 200, { priority });
    await rest(member, 'DELETE', `/api/task-groups/${group.id}`, 204);
    await rest(member, 'GET', `/api/task-groups/${group.id}`, 404);

    const first = await historyOf(group.id, '?pageSize=2');
    expect(first).toMatchObject({ totalElements: 5, totalPages: 3, number: 0, size: 2, first: true, last: false });
    expect(first.content.map((e: any) => e.action)).toEqual(['DELETE', 'UPDATE']);
    expect(first.content[1].changes).toEqual({ priority: { from: 2, to: 3 } });
    const second = await historyOf(group.id, '?pageSize=2&page=1');
    expect(second.content.map((e: any) => e.changes.priority)).toEqual([
      { from: 1, to: 2 },
      { from: 0, to: 1 },
    ]);
    const updates = await historyOf(group.id, `?filter=${encodeURIComponent("action=='UPDATE'")}&sort=occurredAt:asc`);
    expect(updates.content.map((e: any) => e.changes.priority.to)).toEqual([1, 2, 3]);
    // Only this group's entries, whatever the filter says.
    const other = await newGroup();
    expect((await historyOf(group.id, `?filter=${encodeURIComponent(`taskGroupId==${other.id}`)}`)).content).toEqual([]);
  });

  it("lists every visible entry at /api/task-group-history, never another tenant's", async () => {
    const group = await newGroup();
    const theirs = await newGroup({}, outsider, theirProjectId);
    const mine = await rest(member, 'GET', `/api/task-group-history?filter=${encodeURIComponent(`taskGroupId==${group.id}`)}`, 200);
    expect(mine.content.map((e: any) => e.action)).toEqual(['CREATE']);
    const peek = await rest(member, 'GET', `/api/task-group-history?filter=${encodeURIComponent(`taskGroupId==${theirs.id}`)}`, 200);
    expect(peek.content).toEqual([]);
    const all = await rest(outsider, 'GET', '/api/task-group-history?pageSize=100', 200);
    expect(all.content.every((e: any) => e.projectId === theirProjectId)).toBe(true);
  });

  it("answers 400 for a malformed id or list argument, 404 for no group, 403 for another tenant's group", async () => {
    expect((await rest(member, 'GET', '/api/task-groups/not-a-uuid/history', 400)).details[0].field).toBe('id');
    await rest(member, 'GET', `/api/task-groups/${randomUUID()}/history`, 404);
    const group = await newGroup();
    expect((await rest(member, 'GET', `/api/task-groups/${group.id}/history?pageSize=1000`, 400)).details[0].field).toBe('pageSize');
    expect((await rest(member, 'GET', `/api/task-groups/${group.id}/history?filter=${encodeURIComponent('nope==1')}`, 400)).details[0].field).toBe('filter');
    expect((await rest(member, 'GET', `/api/task-groups/${group.id}/history?sort=nope:asc`, 400)).details[0].field).toBe('sort');
    await rest(outsider, 'GET', `/api/task-groups/${group.id}/history`, 403);
    await rest(member, 'DELETE', `/api/task-groups/${group.id}`, 204);
    await rest(outsider, 'GET', `/api/task-groups/${group.id}/history`, 403);
  });

  it('cannot be written through the API (405 with Allow)', async () => {
    const group = await newGroup();
    const [entry] = (await historyOf(group.id)).content;
    const collection = await server.request('POST', '/api/task-group-history', {
      key: member.key,
      body: { taskGroupId: group.id, projectId, action: 'CREATE' },
    });
    expect(collection.status).toBe(405);
    expect(collection.headers.get('allow')).toBe('GET, HEAD');
    for (const method of ['PUT', 'DELETE']) {
      const item = await server.request(method, `/api/task-group-history/${entry.id}`, { key: member.key, body: {} });
      expect(item.status, method).toBe(405);
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const nested = await server.request(method, `/api/task-groups/${group.id}/history`, { key: member.key, body: {} });
      expect(nested.status, method).toBe(405);
      expect(nested.headers.get('allow')).toBe('GET, HEAD');
    }
    expect((await historyOf(group.id)).totalElements).toBe(1);
  });

  it('leaves no entry and no change behind when the write fails after the entry was written', async () => {
    const group = await newGroup({ name: 'Rolled back' });
    const connection = server.orm.em.getConnection();
    // Fires at commit, after the group's row and its history entry are both written.
    await connection.execute(`create or replace function refuse_group_commit() returns trigger language plpgsql as $$
      begin if new.id = '${group.id}' then raise exception 'refused' using errcode = '23505'; end if; return new; end $$`);
    await connection.execute(`create constraint trigger refuse_group_commit after update on task_group deferrable initially deferred
      for each row execute function refuse_group_commit()`);
    try {
      await rest(member, 'PUT', `/api/task-groups/${group.id}`, 409, { name: 'Never' });
      await rest(member, 'DELETE', `/api/task-groups/${group.id}`, 409);
    } finally {
      await connection.execute('drop trigger refuse_group_commit on task_group');
      await connection.execute('drop function refuse_group_commit()');
    }
    expect((await rest(member, 'GET', `/api/task-groups/${group.id}`, 200)).name).toBe('Rolled back');
    expect((await historyOf(group.id)).content.map((e: any) => e.action)).toEqual(['CREATE']);
  });

  it('fails the change when its entry cannot be written', async () => {
    const connection = server.orm.em.getConnection();
    const name = unique('Unrecorded');
    await connection.execute(`create or replace function refuse_history() returns trigger language plpgsql as $$
      begin if new.changes->'name'->>'to' = '${name}' then raise exception 'refused' using errcode = '23505'; end if; return new; end $$`);
    await connection.execute(`create trigger refuse_history before insert on task_group_history_entry for each row execute function refuse_history()`);
    try {
      await rest(member, 'POST', '/api/task-groups', 409, { name, projectId });
    } finally {
      await connection.execute('drop trigger refuse_history on task_group_history_entry');
      await connection.execute('drop function refuse_history()');
    }
    const page = await rest(member, 'GET', `/api/task-groups?filter=${encodeURIComponent(`name=='${name}'`)}`, 200);
    expect(page.content).toEqual([]);
  });

  it('is served in GraphQL: listHistoryForTaskGroup, taskGroupHistory, and no mutation', async () => {
    const group = await newGroup({ name: 'Graph' });
    await rest(member, 'PUT', `/api/task-groups/${group.id}`, 200, { name: 'Graph 2' });
    await server.graphqlData(`mutation($id: ID!) { deleteTaskGroup(id: $id) }`, { id: group.id }, member.key);
    const data = await server.graphqlData(
      `query($id: ID!) { listHistoryForTaskGroup(id: $id, pageSize: 2) { totalElements content { action changes actorId taskGroupId occurredAt } } }`,
      { id: group.id },
      member.key,
    );
    expect(data.listHistoryForTaskGroup.totalElements).toBe(3);
    expect(data.listHistoryForTaskGroup.content.map((e: any) => [e.action, e.changes])).toEqual([
      ['DELETE', { deleted: { from: false, to: true } }],
      ['UPDATE', { name: { from: 'Graph', to: 'Graph 2' } }],
    ]);
    expect(data.listHistoryForTaskGroup.content[0]).toMatchObject({ actorId: member.id, taskGroupId: group.id });
    const listed = await server.graphqlData(
      `query($f: String) { taskGroupHistory(filter: $f, sort: "occurredAt:asc") { content { action } } }`,
      { f: `taskGroupId==${group.id}` },
      member.key,
    );
    expect(listed.taskGroupHistory.content.map((e: any) => e.action)).toEqual(['CREATE', 'UPDATE', 'DELETE']);
    const refused = await server.graphql(`query { listHistoryForTaskGroup(id: "${randomUUID()}") { totalElements } }`, undefined, member.key);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const forbidden = await server.graphql(`query($id: ID!) { listHistoryForTaskGroup(id: $id) { totalElements } }`, { id: group.id }, outsider.key);
    expect(forbidden.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    const mutation = await server.graphql(`mutation { createTaskGroupHistoryEntry(input: {}) { id } }`, undefined, member.key);
    expect(mutation.status).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('lists listHistoryForTaskGroup and listTaskGroupHistory as reads answering a page, and no history writes', async () => {
    const document = (await server.request('GET', '/v3/api-docs')).body;
    const one = document.paths['/api/task-groups/{id}/history'];
    expect(Object.keys(one)).toEqual(['get', 'head']);
    expect(one.get.operationId).toBe('listHistoryForTaskGroup');
    expect(one.get.parameters.map((p: any) => p.name)).toEqual(['id', 'page', 'pageSize', 'sort', 'filter', 'query', 'If-None-Match']);
    expect(one.get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TaskGroupHistoryEntryPage' });
    const all = document.paths['/api/task-group-history'];
    expect(Object.keys(all)).toEqual(['get', 'head']);
    expect(all.get.operationId).toBe('listTaskGroupHistory');
    expect(Object.keys(document.paths['/api/task-group-history/{id}'])).toEqual(['get', 'head']);
  });
});
