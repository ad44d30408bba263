import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The specification's error body: {error: reason phrase, message, status}, never a stack trace. */
function expectError(answer: Answer, status: number, mentions?: RegExp): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(answer.body).toMatchObject({ error: STATUS_CODES[status], status });
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(answer.body)) expect(['error', 'message', 'status', 'details', 'currentChangeSequence']).toContain(key);
  expect(answer.text).not.toMatch(/\n\s+at |<html|<!DOCTYPE/i);
  if (mentions) expect(answer.body.message).toMatch(mentions);
}

async function get(path: string) {
  const answer = await server.request('GET', path);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

async function post(path: string, body: unknown) {
  const answer = await server.request('POST', path, { body });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

async function put(path: string, body: unknown) {
  const answer = await server.request('PUT', path, { body });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

const createUser = (body: Record<string, unknown> = {}) => post('/api/users', { email: `${unique('user')}@example.com`, ...body });

async function rowOf(table: string, id: string): Promise<Record<string, unknown> | undefined> {
  const rows = await server.orm.em.fork().getConnection().execute(`select * from "${table}" where id = ?`, [id]);
  return rows[0];
}

describe('create, update and delete answers', () => {
  let org: any;
  let project: any;
  let team: any;
  let user: any;

  beforeAll(async () => {
    org = await createOrganization(server);
    project = await createProject(server, org.id);
    team = await post('/api/teams', { name: unique('Team'), organizationId: org.id });
    user = await createUser();
  });

  const bodies: [string, () => Record<string, unknown>][] = [
    ['organizations', () => ({ name: unique('Org') })],
    ['users', () => ({ email: `${unique('user')}@example.com` })],
    ['teams', () => ({ name: unique('Team'), organizationId: org.id })],
    ['team-members', () => ({ teamId: team.id, userId: user.id })],
    ['projects', () => ({ name: unique('Project'), organizationId: org.id })],
    ['project-statuses', () => ({ status: unique('Live'), organizationId: org.id })],
    ['task-statuses', () => ({ label: unique('Review'), organizationId: org.id })],
    ['tasks', () => ({ projectId: project.id, title: 'A task' })],
    ['labels', () => ({ name: unique('label'), organizationId: org.id })],
  ];

  it.each(bodies)('POST /api/%s answers 201, a Location header and the created resource', async (path, body) => {
    const answer = await server.request('POST', `/api/${path}`, { body: body() });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.id).toMatch(UUID);
    expect(answer.body.uuid).toMatch(UUID);
    expect(answer.body.changeSequence).toBe(0);
    expect(answer.body.createdOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const location = answer.headers.get('location');
    expect(location).toBeTruthy();
    const locationPath = new URL(location!, server.url).pathname;
    expect(locationPath).toBe(`/api/${path}/${answer.body.id}`);
    expect(await get(locationPath)).toEqual(answer.body);
  });

  it('PUT answers 200 with the updated resource', async () => {
    const created = await createProject(server, org.id, { name: 'Before' });
    const answer = await server.request('PUT', `/api/projects/${created.id}`, { body: { name: 'After' } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: created.id, name: 'After', changeSequence: 1 });
    expect(await get(`/api/projects/${created.id}`)).toEqual(answer.body);
  });

  it('DELETE answers 204 with an empty body', async () => {
    const label = await post('/api/labels', { name: unique('label'), organizationId: org.id });
    const answer = await server.request('DELETE', `/api/labels/${label.id}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
  });
});

describe('soft and hard delete', () => {
  let org: any;
  let project: any;
  let admin: any;

  beforeAll(async () => {
    org = await createOrganization(server);
    project = await createProject(server, org.id);
    const admins = await get(`/api/users?filter=${encodeURIComponent("email=='admin@localhost'")}`);
    admin = admins.content[0];
  });

  async function expectHidden(path: string, id: string): Promise<void> {
    expectError(await server.request('GET', `/api/${path}/${id}`), 404);
    expectError(await server.request('GET', `/api/${path}/${id}/sequence`), 404);
    expectError(await server.request('PUT', `/api/${path}/${id}`, { body: { changeSequence: null } }), 404);
    expectError(await server.request('DELETE', `/api/${path}/${id}`), 404);
    const listed = await get(`/api/${path}?filter=${encodeURIComponent(`id==${id}`)}`);
    expect(listed.totalElements).toBe(0);
    expect(listed.content).toEqual([]);
  }

  const softCases: [string, string, () => Promise<any>][] = [
    ['projects', 'project', () => createProject(server, org.id)],
    ['tasks', 'task', () => createTask(server, project.id)],
    ['task-statuses', 'task_status', () => post('/api/task-statuses', { label: unique('Status'), organizationId: org.id })],
  ];

  it.each(softCases)('soft-deletes %s: hidden from list and get, the row kept with deleted, date and user stamped', async (path, table, make) => {
    const item = await make();
    const visible = await get(`/api/${path}?filter=${encodeURIComponent(`id==${item.id}`)}`);
    expect(visible.totalElements).toBe(1);
    const answer = await server.request('DELETE', `/api/${path}/${item.id}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    await expectHidden(path, item.id);
    const row = await rowOf(table, item.id);
    expect(row).toBeDefined();
    expect(row!.deleted).toBe(true);
    expect(row!.deleted_date).not.toBeNull();
    expect(Number.isNaN(new Date(row!.deleted_date as string).getTime())).toBe(false);
    expect(row!.delete_user_id).toBe(admin.id);
    expect(row!.delete_user_email).toBe('admin@localhost');
  });

  it('archives organizations: hidden from list and get afterwards, the row kept', async () => {
    const doomed = await createOrganization(server);
    expect((await get(`/api/organizations?filter=${encodeURIComponent(`slug=='${doomed.slug}'`)}`)).totalElements).toBe(1);
    const answer = await server.request('DELETE', `/api/organizations/${doomed.id}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    await expectHidden('organizations', doomed.id);
    expect((await get(`/api/organizations?filter=${encodeURIComponent(`slug=='${doomed.slug}'`)}`)).totalElements).toBe(0);
    const row = await rowOf('organization', doomed.id);
    expect(row?.archived).toBe(true);
  });

  const hardCases: [string, string, () => Promise<any>][] = [
    ['labels', 'label', () => post('/api/labels', { name: unique('label'), organizationId: org.id })],
    ['teams', 'team', () => post('/api/teams', { name: unique('Team'), organizationId: org.id })],
    ['project-statuses', 'project_status', () => post('/api/project-statuses', { status: unique('Live'), organizationId: org.id })],
  ];

  it.each(hardCases)('hard-deletes %s: gone from list, get and the database', async (path, table, make) => {
    const item = await make();
    const answer = await server.request('DELETE', `/api/${path}/${item.id}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    await expectHidden(path, item.id);
    expect(await rowOf(table, item.id)).toBeUndefined();
  });

  it('deleting a project status clears it from the projects that used it', async () => {
    const status = await post('/api/project-statuses', { status: unique('Live'), organizationId: org.id });
    const withStatus = await createProject(server, org.id, { statusId: status.id });
    expect(withStatus.status?.id).toBe(status.id);
    expect((await server.request('DELETE', `/api/project-statuses/${status.id}`)).status).toBe(204);
    const after = await get(`/api/projects/${withStatus.id}`);
    expect(after.statusId).toBeNull();
    expect(after.status).toBeNull();
  });
});

describe('rule 1: an explicit false or 0 persists, also over a server default', () => {
  let org: any;

  beforeAll(async () => {
    org = await createOrganization(server);
  });

  it('organization publicAccess false on update', async () => {
    const created = await createOrganization(server, { publicAccess: true });
    expect(created.publicAccess).toBe(true);
    const updated = await put(`/api/organizations/${created.id}`, { publicAccess: false });
    expect(updated.publicAccess).toBe(false);
    expect(updated.changeSequence).toBe(1);
    expect((await get(`/api/organizations/${created.id}`)).publicAccess).toBe(false);
  });

  it('organization publicAccess false on create', async () => {
    const created = await createOrganization(server, { publicAccess: false, supportAccess: false });
    expect((await get(`/api/organizations/${created.id}`)).publicAccess).toBe(false);
  });

  it('a nullable boolean (enterpriseOrganization) keeps an explicit false, distinct from null', async () => {
    const created = await createOrganization(server, { enterpriseOrganization: false });
    expect((await get(`/api/organizations/${created.id}`)).enterpriseOrganization).toBe(false);
    const omitted = await createOrganization(server);
    expect(omitted.enterpriseOrganization).toBeNull();
    const on = await put(`/api/organizations/${omitted.id}`, { enterpriseOrganization: true });
    expect(on.enterpriseOrganization).toBe(true);
    const off = await put(`/api/organizations/${omitted.id}`, { enterpriseOrganization: false });
    expect(off.enterpriseOrganization).toBe(false);
    expect(off.changeSequence).toBe(2);
    const cleared = await put(`/api/organizations/${omitted.id}`, { enterpriseOrganization: null });
    expect(cleared.enterpriseOrganization).toBeNull();
    expect(cleared.changeSequence).toBe(3);
  });

  it('organizationStatus defaults to ACTIVE, and an explicit empty value is kept over the default', async () => {
    const defaulted = await createOrganization(server);
    expect(defaulted.organizationStatus).toBe('ACTIVE');
    const suspended = await createOrganization(server, { organizationStatus: 'SUSPENDED' });
    expect((await get(`/api/organizations/${suspended.id}`)).organizationStatus).toBe('SUSPENDED');
    const empty = await createOrganization(server, { organizationStatus: '' });
    expect((await get(`/api/organizations/${empty.id}`)).organizationStatus).toBe('');
    const cleared = await put(`/api/organizations/${defaulted.id}`, { organizationStatus: '' });
    expect(cleared.organizationStatus).toBe('');
    expect((await get(`/api/organizations/${defaulted.id}`)).organizationStatus).toBe('');
  });

  it('user active (server default true) sent as false on create', async () => {
    const defaulted = await createUser();
    expect(defaulted.active).toBe(true);
    const inactive = await createUser({ active: false });
    expect(inactive.active).toBe(false);
    expect((await get(`/api/users/${inactive.id}`)).active).toBe(false);
  });

  it('user active false on update', async () => {
    const user = await createUser();
    const updated = await put(`/api/users/${user.id}`, { active: false });
    expect(updated.active).toBe(false);
    expect((await get(`/api/users/${user.id}`)).active).toBe(false);
  });

  it('project status production false on create and on update', async () => {
    const off = await post('/api/project-statuses', { status: unique('Draft'), production: false, organizationId: org.id });
    expect((await get(`/api/project-statuses/${off.id}`)).production).toBe(false);
    const on = await post('/api/project-statuses', { status: unique('Live'), production: true, organizationId: org.id });
    expect(on.production).toBe(true);
    const updated = await put(`/api/project-statuses/${on.id}`, { production: false });
    expect(updated.production).toBe(false);
    expect((await get(`/api/project-statuses/${on.id}`)).production).toBe(false);
  });

  it('task priority 0 on create and on update', async () => {
    const project = await createProject(server, org.id);
    const zero = await createTask(server, project.id, { priority: 0 });
    expect((await get(`/api/tasks/${zero.id}`)).priority).toBe(0);
    const five = await createTask(server, project.id, { priority: 5 });
    expect(five.priority).toBe(5);
    const updated = await put(`/api/tasks/${five.id}`, { priority: 0 });
    expect(updated.priority).toBe(0);
    expect(updated.changeSequence).toBe(1);
    expect((await get(`/api/tasks/${five.id}`)).priority).toBe(0);
  });

  it('task status statusType default OPEN and sequence 0 explicitly', async () => {
    const status = await post('/api/task-statuses', { label: unique('Status'), organizationId: org.id, sequence: 3, statusType: 'DONE' });
    const updated = await put(`/api/task-statuses/${status.id}`, { sequence: 0 });
    expect(updated.sequence).toBe(0);
    expect(updated.statusType).toBe('DONE');
    expect((await get(`/api/task-statuses/${status.id}`)).sequence).toBe(0);
  });
});

describe('rule 2: omitted fields are left unchanged', () => {
  it('an update of one field keeps every other field', async () => {
    const org = await createOrganization(server);
    const owner = await createUser();
    const project = await createProject(server, org.id, {
      name: 'Kept name',
      description: 'Kept description',
      color: '#123456',
      ownerId: owner.id,
      options: { taskOptions: { showNewTask: true } },
    });
    const updated = await put(`/api/projects/${project.id}`, { notes: 'new notes' });
    expect(updated.notes).toBe('new notes');
    const { notes: _n, changeSequence: _c, updatedOn: _u, searchText: _s, ...rest } = updated;
    const { notes: _n2, changeSequence: _c2, updatedOn: _u2, searchText: _s2, ...before } = project;
    expect(rest).toEqual(before);
    expect(updated.changeSequence).toBe(1);
  });

  it('an update of the organization keeps its other fields', async () => {
    const org = await createOrganization(server, { description: 'd', publicAccess: true, properties: { a: 1 } });
    const updated = await put(`/api/organizations/${org.id}`, { name: unique('Renamed') });
    expect(updated).toMatchObject({ slug: org.slug, description: 'd', publicAccess: true, properties: { a: 1 }, organizationStatus: 'ACTIVE' });
  });
});

describe('rule 3: null clears a nullable field; null for a non-nullable field is 400', () => {
  let org: any;

  beforeAll(async () => {
    org = await createOrganization(server);
  });

  it('null clears project ownerId', async () => {
    const owner = await createUser();
    const project = await createProject(server, org.id, { ownerId: owner.id });
    expect(project.ownerId).toBe(owner.id);
    expect(project.owner?.id).toBe(owner.id);
    const cleared = await put(`/api/projects/${project.id}`, { ownerId: null });
    expect(cleared.ownerId).toBeNull();
    expect(cleared.owner).toBeNull();
    expect((await get(`/api/projects/${project.id}`)).ownerId).toBeNull();
  });

  it('null for the relation object (owner: null) clears it too', async () => {
    const owner = await createUser();
    const project = await createProject(server, org.id, { ownerId: owner.id });
    const cleared = await put(`/api/projects/${project.id}`, { owner: null });
    expect(cleared.ownerId).toBeNull();
  });

  it('null clears organization properties and features', async () => {
    const created = await createOrganization(server, { properties: { region: 'eu' }, features: { beta: true } });
    expect(created.properties).toEqual({ region: 'eu' });
    const cleared = await put(`/api/organizations/${created.id}`, { properties: null });
    expect(cleared.properties).toBeNull();
    expect(cleared.features).toEqual({ beta: true });
    expect((await get(`/api/organizations/${created.id}`)).properties).toBeNull();
  });

  it('null clears a task dueDate', async () => {
    const project = await createProject(server, org.id);
    const task = await createTask(server, project.id, { dueDate: '2030-01-02T03:04:05.000Z' });
    expect(task.dueDate).toBe('2030-01-02T03:04:05.000Z');
    const cleared = await put(`/api/tasks/${task.id}`, { dueDate: null });
    expect(cleared.dueDate).toBeNull();
  });

  it.each([
    ['projects', 'name'],
    ['projects', 'description'],
    ['projects', 'options'],
    ['organizations', 'publicAccess'],
    ['organizations', 'organizationStatus'],
    ['organizations', 'slug'],
    ['tasks', 'priority'],
    ['tasks', 'properties'],
  ])('PUT /api/%s with %s: null is 400 naming the field, and nothing is written', async (path, field) => {
    const project = await createProject(server, org.id);
    const target = path === 'projects' ? project : path === 'organizations' ? await createOrganization(server) : await createTask(server, project.id);
    expectError(await server.request('PUT', `/api/${path}/${target.id}`, { body: { [field]: null, color: 'changed' } }), 400, new RegExp(field));
    const after = await get(`/api/${path}/${target.id}`);
    expect(after.changeSequence).toBe(0);
    expect(after[field]).toEqual(target[field]);
  });

  it('null for a non-nullable field on create is 400 naming the field', async () => {
    expectError(await server.request('POST', '/api/projects', { body: { name: unique('P'), organizationId: org.id, description: null } }), 400, /description/);
    expectError(await server.request('POST', '/api/organizations', { body: { name: unique('O'), publicAccess: null } }), 400, /publicAccess/);
    expectError(await server.request('POST', '/api/users', { body: { email: `${unique('u')}@example.com`, active: null } }), 400, /active/);
  });

  it('a value of the wrong type is 400 naming the field', async () => {
    const project = await createProject(server, org.id);
    const task = await createTask(server, project.id);
    expectError(await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 'high' } }), 400, /priority/);
    expectError(await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 1.5 } }), 400, /priority/);
    expectError(await server.request('PUT', `/api/projects/${project.id}`, { body: { name: 42 } }), 400, /name/);
    expectError(await server.request('PUT', `/api/organizations/${org.id}`, { body: { publicAccess: 'false' } }), 400, /publicAccess/);
    expectError(await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 2147483648 } }), 400, /priority/);
    expectError(await server.request('PUT', `/api/tasks/${task.id}`, { body: { dueDate: 'next week' } }), 400, /dueDate/);
    expect((await get(`/api/tasks/${task.id}`)).changeSequence).toBe(0);
  });

  it('an impossible calendar date is 400 naming the field, not stored as another day', async () => {
    const project = await createProject(server, org.id);
    const answer = await server.request('POST', '/api/tasks', { body: { projectId: project.id, dueDate: '2030-02-31T00:00:00.000Z' } });
    expectError(answer, 400, /dueDate/);
  });
});

describe('rule 4: echoing a GET body back as a PUT changes nothing', () => {
  let org: any;

  beforeAll(async () => {
    org = await createOrganization(server, { properties: { a: { b: [1, 2] } }, features: { x: true }, supportAccessExpiresAt: '2031-05-06T07:08:09.123Z' });
  });

  async function echo(path: string, id: string): Promise<void> {
    const before = await get(`/api/${path}/${id}`);
    const answer = await put(`/api/${path}/${id}`, before);
    expect(answer.changeSequence).toBe(before.changeSequence);
    expect(answer.updatedOn).toBe(before.updatedOn);
    expect(answer).toEqual(before);
    expect(await get(`/api/${path}/${id}`)).toEqual(before);
    expect((await server.request('GET', `/api/${path}/${id}/sequence`)).body).toBe(before.changeSequence);
  }

  it('for an organization', async () => {
    await echo('organizations', org.id);
  });

  it('for a project with an owner, a status and nested options', async () => {
    const owner = await createUser();
    const status = await post('/api/project-statuses', { status: unique('Live'), organizationId: org.id });
    const project = await createProject(server, org.id, {
      ownerId: owner.id,
      statusId: status.id,
      options: { taskOptions: { showNewTask: false, showTakeNext: true }, options: [{ name: 'x', required: false }] },
      dataFlow: { edges: [], nodes: [{ id: 'n', position: { x: 0, y: 1.5 } }] },
    });
    await echo('projects', project.id);
  });

  it('for a task with dates and properties, after an update', async () => {
    const project = await createProject(server, org.id);
    const task = await createTask(server, project.id, { title: 'Echo', dueDate: '2030-01-01T00:00:00.000Z', properties: { k: [1, { z: null }] } });
    await put(`/api/tasks/${task.id}`, { priority: 3 });
    await echo('tasks', task.id);
  });

  it('for a user, a team, a label, a task status and a project status', async () => {
    const user = await createUser({ preferences: { showOnboarding: false } });
    await echo('users', user.id);
    await echo('teams', (await post('/api/teams', { name: unique('Team'), organizationId: org.id })).id);
    await echo('labels', (await post('/api/labels', { name: unique('label'), organizationId: org.id })).id);
    await echo('task-statuses', (await post('/api/task-statuses', { label: unique('Status'), organizationId: org.id })).id);
    await echo('project-statuses', (await post('/api/project-statuses', { status: unique('S'), organizationId: org.id, production: true })).id);
    const team = await post('/api/teams', { name: unique('Team'), organizationId: org.id });
    await echo('team-members', (await post('/api/team-members', { teamId: team.id, userId: user.id })).id);
  });
});

describe('rule 5: server-owned and ownership fields in an update body are ignored', () => {
  let org: any;
  let other: any;

  beforeAll(async () => {
    org = await createOrganization(server);
    other = await createOrganization(server);
  });

  it('id, uuid, createdOn, organizationId and deleted on a project', async () => {
    const project = await createProject(server, org.id);
    const updated = await put(`/api/projects/${project.id}`, {
      id: randomUUID(),
      uuid: randomUUID(),
      createdOn: '2001-01-01T00:00:00.000Z',
      updatedOn: '2001-01-01T00:00:00.000Z',
      organizationId: other.id,
      organization: { id: other.id },
      deleted: true,
      deletedDate: '2001-01-01T00:00:00.000Z',
      createdByUserId: randomUUID(),
      name: 'Renamed',
    });
    expect(updated).toMatchObject({
      id: project.id,
      uuid: project.uuid,
      createdOn: project.createdOn,
      organizationId: org.id,
      deleted: false,
      deletedDate: null,
      name: 'Renamed',
      changeSequence: 1,
    });
    expect(updated.organization.id).toBe(org.id);
    const again = await get(`/api/projects/${project.id}`);
    expect(again).toMatchObject({ id: project.id, uuid: project.uuid, organizationId: org.id, deleted: false });
  });

  it('a body of ignored fields only changes nothing', async () => {
    const project = await createProject(server, org.id);
    const updated = await put(`/api/projects/${project.id}`, { id: randomUUID(), organizationId: other.id, deleted: true, changeSequence: 0 });
    expect(updated).toEqual(project);
  });

  it('projectId on a task', async () => {
    const first = await createProject(server, org.id);
    const second = await createProject(server, org.id);
    const task = await createTask(server, first.id);
    const updated = await put(`/api/tasks/${task.id}`, { projectId: second.id, project: { id: second.id }, title: 'moved?' });
    expect(updated.projectId).toBe(first.id);
    expect(updated.title).toBe('moved?');
  });

  it('organizationId on a label, a team and a task status', async () => {
    for (const [path, body] of [
      ['labels', { name: unique('label'), organizationId: org.id }],
      ['teams', { name: unique('Team'), organizationId: org.id }],
      ['task-statuses', { label: unique('Status'), organizationId: org.id }],
    ] as const) {
      const item = await post(`/api/${path}`, body);
      const updated = await put(`/api/${path}/${item.id}`, { organizationId: other.id, color: 'red' });
      expect(updated.organizationId, path).toBe(org.id);
    }
  });

  it('archived on an organization, and changeSequence never written from the body', async () => {
    const target = await createOrganization(server);
    const updated = await put(`/api/organizations/${target.id}`, { archived: true, description: 'still here' });
    expect(updated.description).toBe('still here');
    expect(updated.changeSequence).toBe(1);
    expect((await get(`/api/organizations/${target.id}`)).archived).not.toBe(true);
  });

  it('a soft-deleted flag of false does not bring back a deleted task', async () => {
    const project = await createProject(server, org.id);
    const task = await createTask(server, project.id);
    expect((await server.request('DELETE', `/api/tasks/${task.id}`)).status).toBe(204);
    expectError(await server.request('PUT', `/api/tasks/${task.id}`, { body: { deleted: false } }), 404);
    expectError(await server.request('GET', `/api/tasks/${task.id}`), 404);
  });
});

describe('rule 6: changeSequence and optimistic locking', () => {
  let org: any;

  beforeAll(async () => {
    org = await createOrganization(server);
  });

  it('is 0 on create, whatever the create body says', async () => {
    const project = await createProject(server, org.id, { changeSequence: 7 });
    expect(project.changeSequence).toBe(0);
    expect((await get(`/api/projects/${project.id}`)).changeSequence).toBe(0);
  });

  it('goes up by one per update that changes something, and not for one that changes nothing', async () => {
    const project = await createProject(server, org.id, { name: 'One' });
    expect((await put(`/api/projects/${project.id}`, { name: 'Two' })).changeSequence).toBe(1);
    expect((await put(`/api/projects/${project.id}`, { name: 'Two' })).changeSequence).toBe(1);
    expect((await put(`/api/projects/${project.id}`, {})).changeSequence).toBe(1);
    expect((await put(`/api/projects/${project.id}`, { name: 'Three', notes: 'n' })).changeSequence).toBe(2);
    expect((await get(`/api/projects/${project.id}`)).changeSequence).toBe(2);
  });

  it('GET /sequence answers the bare integer', async () => {
    const project = await createProject(server, org.id);
    const zero = await server.request('GET', `/api/projects/${project.id}/sequence`);
    expect(zero.status).toBe(200);
    expect(zero.text.trim()).toBe('0');
    expect(zero.body).toBe(0);
    await put(`/api/projects/${project.id}`, { name: 'changed' });
    await put(`/api/projects/${project.id}`, { name: 'changed again' });
    const two = await server.request('GET', `/api/projects/${project.id}/sequence`);
    expect(two.text.trim()).toBe('2');
    expect(two.body).toBe(2);
    const orgSequence = await server.request('GET', `/api/organizations/${org.id}/sequence`);
    expect(orgSequence.status).toBe(200);
    expect(typeof orgSequence.body).toBe('number');
  });

  it('accepts the current changeSequence, including 0 on a never-updated resource', async () => {
    const project = await createProject(server, org.id);
    const first = await put(`/api/projects/${project.id}`, { changeSequence: 0, name: 'first' });
    expect(first.changeSequence).toBe(1);
    const second = await put(`/api/projects/${project.id}`, { changeSequence: 1, name: 'second' });
    expect(second.changeSequence).toBe(2);
  });

  it('refuses a stale changeSequence (0 after one update) with 409 and the current sequence', async () => {
    const project = await createProject(server, org.id, { name: 'Original' });
    await put(`/api/projects/${project.id}`, { notes: 'first update' });
    const answer = await server.request('PUT', `/api/projects/${project.id}`, { body: { changeSequence: 0, name: 'Lost update' } });
    expectError(answer, 409);
    expect(Object.keys(answer.body).sort()).toEqual(['currentChangeSequence', 'error', 'message', 'status']);
    expect(answer.body).toEqual({ error: 'Conflict', message: answer.body.message, status: 409, currentChangeSequence: 1 });
    const after = await get(`/api/projects/${project.id}`);
    expect(after.name).toBe('Original');
    expect(after.changeSequence).toBe(1);
  });

  it('refuses a changeSequence ahead of the current one', async () => {
    const task = await createTask(server, (await createProject(server, org.id)).id);
    const answer = await server.request('PUT', `/api/tasks/${task.id}`, { body: { changeSequence: 5, priority: 1 } });
    expectError(answer, 409);
    expect(answer.body.currentChangeSequence).toBe(0);
  });

  it('refuses a stale changeSequence even when the body changes nothing', async () => {
    const project = await createProject(server, org.id);
    const updated = await put(`/api/projects/${project.id}`, { notes: 'x' });
    const answer = await server.request('PUT', `/api/projects/${project.id}`, { body: { ...updated, changeSequence: 0 } });
    expectError(answer, 409);
    expect(answer.body.currentChangeSequence).toBe(1);
  });

  it('skips locking when changeSequence is omitted or null', async () => {
    const project = await createProject(server, org.id);
    await put(`/api/projects/${project.id}`, { notes: 'a' });
    await put(`/api/projects/${project.id}`, { notes: 'b' });
    expect((await put(`/api/projects/${project.id}`, { notes: 'c' })).changeSequence).toBe(3);
    expect((await put(`/api/projects/${project.id}`, { notes: 'd', changeSequence: null })).changeSequence).toBe(4);
  });

  it.each([['abc'], [-1], [1.5], [true], [{}]])('refuses changeSequence %j with 400 naming it', async (value) => {
    const project = await createProject(server, org.id);
    expectError(await server.request('PUT', `/api/projects/${project.id}`, { body: { changeSequence: value, notes: 'x' } }), 400, /changeSequence/);
  });

  it('lets exactly one of two concurrent updates with the same changeSequence win', async () => {
    const project = await createProject(server, org.id);
    const answers = await Promise.all(
      ['left', 'right'].map((name) => server.request('PUT', `/api/projects/${project.id}`, { body: { changeSequence: 0, name } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!;
    const loser = answers.find((a) => a.status === 409)!;
    expect(loser.body.currentChangeSequence).toBe(1);
    const after = await get(`/api/projects/${project.id}`);
    expect(after.name).toBe(winner.body.name);
    expect(after.changeSequence).toBe(1);
  });

  it('applies to organizations with the same 409 body', async () => {
    const target = await createOrganization(server);
    await put(`/api/organizations/${target.id}`, { description: 'one' });
    const answer = await server.request('PUT', `/api/organizations/${target.id}`, { body: { changeSequence: 0, description: 'two' } });
    expectError(answer, 409);
    expect(answer.body.currentChangeSequence).toBe(1);
  });
});

describe('rule 7: the body must be one JSON object without repeated keys', () => {
  let org: any;

  beforeAll(async () => {
    org = await createOrganization(server);
  });

  const notObjects: [string, string][] = [
    ['an array', '[]'],
    ['an array of objects', '[{"name":"x"}]'],
    ['a string', '"organization"'],
    ['a number', '42'],
    ['a boolean', 'true'],
    ['null', 'null'],
    ['malformed JSON', '{"name": "x",'],
    ['text that is not JSON', 'name=x'],
    ['an empty body', ''],
  ];

  it.each(notObjects)('POST with %s is 400', async (_what, text) => {
    const slug = unique('never');
    const answer = await server.request('POST', '/api/organizations', { body: text === '' ? undefined : text.replace('"x"', `"${slug}"`) });
    expectError(answer, 400);
  });

  it.each(notObjects)('PUT with %s is 400 and writes nothing', async (_what, text) => {
    const answer = await server.request('PUT', `/api/organizations/${org.id}`, { body: text === '' ? undefined : text });
    expectError(answer, 400);
    expect((await get(`/api/organizations/${org.id}`)).changeSequence).toBe(0);
  });

  it('an empty string body with a JSON content type is 400', async () => {
    const answer = await server.request('POST', '/api/labels', { body: '' });
    expectError(answer, 400);
  });

  it.each([
    ['case-variant keys', `{"name":"a","Name":"b"}`],
    ['case-variant keys in upper case', `{"publicAccess":true,"PUBLICACCESS":false}`],
    ['exact duplicate keys', `{"name":"a","name":"b"}`],
  ])('POST with %s is 400', async (_what, text) => {
    const answer = await server.request('POST', '/api/organizations', { body: text.replace('{', `{"slug":"${unique('dup')}",`) });
    expectError(answer, 400, /name|publicAccess|PUBLICACCESS|Name/i);
  });

  it.each([
    ['case-variant keys', `{"description":"a","Description":"b"}`],
    ['exact duplicate keys', `{"description":"a","description":"b"}`],
  ])('PUT with %s is 400 and writes nothing', async (_what, text) => {
    const answer = await server.request('PUT', `/api/organizations/${org.id}`, { body: text });
    expectError(answer, 400, /description/i);
    const after = await get(`/api/organizations/${org.id}`);
    expect(after.description).toBe(org.description);
    expect(after.changeSequence).toBe(0);
  });

  it('accepts case-variant keys inside a free-form JSON value (they are not fields)', async () => {
    const answer = await server.request('POST', '/api/organizations', {
      body: `{"name":"${unique('Org')}","properties":{"Region":"eu","region":"us"}}`,
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.properties).toEqual({ Region: 'eu', region: 'us' });
  });

  it('ignores unknown fields', async () => {
    const created = await post('/api/organizations', { name: unique('Org'), nonsense: 1, alsoUnknown: { a: 1 } });
    expect(created).not.toHaveProperty('nonsense');
  });
});

describe('rule 8: uniqueness is 409, a missing reference is 400', () => {
  let org: any;
  let other: any;

  beforeAll(async () => {
    org = await createOrganization(server);
    other = await createOrganization(server);
  });

  it('an organization slug already taken is 409, on create and on update', async () => {
    const slug = unique('taken');
    await createOrganization(server, { slug });
    expectError(await server.request('POST', '/api/organizations', { body: { name: unique('Org'), slug } }), 409);
    const second = await createOrganization(server);
    expectError(await server.request('PUT', `/api/organizations/${second.id}`, { body: { slug } }), 409);
    expect((await get(`/api/organizations/${second.id}`)).slug).toBe(second.slug);
  });

  it('a label name twice in one organization is 409, in another organization it is fine', async () => {
    const name = unique('urgent');
    await post('/api/labels', { name, organizationId: org.id });
    expectError(await server.request('POST', '/api/labels', { body: { name, organizationId: org.id } }), 409);
    await post('/api/labels', { name, organizationId: other.id });
    const listed = await get(`/api/labels?filter=${encodeURIComponent(`name=='${name}'`)}`);
    expect(listed.totalElements).toBe(2);
  });

  it('renaming a label onto a taken name is 409', async () => {
    const name = unique('taken-label');
    await post('/api/labels', { name, organizationId: org.id });
    const second = await post('/api/labels', { name: unique('label'), organizationId: org.id });
    expectError(await server.request('PUT', `/api/labels/${second.id}`, { body: { name } }), 409);
  });

  it('the same (teamId, userId) twice is 409, on create and on update', async () => {
    const team = await post('/api/teams', { name: unique('Team'), organizationId: org.id });
    const user = await createUser();
    const another = await createUser();
    await post('/api/team-members', { teamId: team.id, userId: user.id });
    expectError(await server.request('POST', '/api/team-members', { body: { teamId: team.id, userId: user.id } }), 409);
    const second = await post('/api/team-members', { teamId: team.id, userId: another.id });
    expectError(await server.request('PUT', `/api/team-members/${second.id}`, { body: { userId: user.id } }), 409);
    expect((await get(`/api/team-members/${second.id}`)).userId).toBe(another.id);
  });

  it('a project with an organizationId that does not exist is 400 naming organizationId', async () => {
    expectError(await server.request('POST', '/api/projects', { body: { name: unique('P'), organizationId: randomUUID() } }), 400, /organizationId/);
  });

  it('a project with an organization object that does not exist is 400', async () => {
    expectError(await server.request('POST', '/api/projects', { body: { name: unique('P'), organization: { id: randomUUID() } } }), 400, /organization/);
  });

  it('a missing owner or status on a project is 400 naming the field, on create and on update', async () => {
    expectError(await server.request('POST', '/api/projects', { body: { name: unique('P'), organizationId: org.id, ownerId: randomUUID() } }), 400, /ownerId/);
    const project = await createProject(server, org.id);
    expectError(await server.request('PUT', `/api/projects/${project.id}`, { body: { statusId: randomUUID() } }), 400, /statusId/);
    expect((await get(`/api/projects/${project.id}`)).changeSequence).toBe(0);
  });

  it('a relation object naming a missing record on update is 400 naming the field', async () => {
    const project = await createProject(server, org.id);
    expectError(await server.request('PUT', `/api/projects/${project.id}`, { body: { owner: { id: randomUUID() } } }), 400, /owner/);
    expectError(await server.request('PUT', `/api/projects/${project.id}`, { body: { owner: 'someone' } }), 400, /owner/);
  });

  it('a task in a project that does not exist (or was deleted) is 400 naming projectId', async () => {
    expectError(await server.request('POST', '/api/tasks', { body: { projectId: randomUUID() } }), 400, /projectId/);
    const deleted = await createProject(server, org.id);
    expect((await server.request('DELETE', `/api/projects/${deleted.id}`)).status).toBe(204);
    expectError(await server.request('POST', '/api/tasks', { body: { projectId: deleted.id } }), 400, /projectId/);
  });

  it('a label in an archived organization is 400 naming organizationId', async () => {
    const archived = await createOrganization(server);
    expect((await server.request('DELETE', `/api/organizations/${archived.id}`)).status).toBe(204);
    expectError(await server.request('POST', '/api/labels', { body: { name: unique('l'), organizationId: archived.id } }), 400, /organizationId/);
  });

  it('a team member with a user that does not exist is 400 naming userId', async () => {
    const team = await post('/api/teams', { name: unique('Team'), organizationId: org.id });
    expectError(await server.request('POST', '/api/team-members', { body: { teamId: team.id, userId: randomUUID() } }), 400, /userId/);
    expectError(await server.request('POST', '/api/team-members', { body: { teamId: randomUUID(), userId: (await createUser()).id } }), 400, /teamId/);
  });

  it('a reference that is not a UUID is 400 naming the field', async () => {
    expectError(await server.request('POST', '/api/projects', { body: { name: unique('P'), organizationId: 'not-a-uuid' } }), 400, /organizationId/);
  });
});

describe('path ids', () => {
  let org: any;

  beforeAll(async () => {
    org = await createOrganization(server);
  });

  it.each([['organizations'], ['projects'], ['tasks'], ['labels'], ['teams'], ['team-members'], ['users'], ['task-statuses'], ['project-statuses']])(
    '/api/%s/{id}: a non-UUID id is 400, an unknown UUID is 404',
    async (path) => {
      for (const bad of ['not-a-uuid', '123', '00000000-0000-0000-0000-00000000000g']) {
        expectError(await server.request('GET', `/api/${path}/${bad}`), 400, /id/);
        expectError(await server.request('GET', `/api/${path}/${bad}/sequence`), 400, /id/);
        expectError(await server.request('PUT', `/api/${path}/${bad}`, { body: {} }), 400, /id/);
        expectError(await server.request('DELETE', `/api/${path}/${bad}`), 400, /id/);
      }
      const missing = randomUUID();
      expectError(await server.request('GET', `/api/${path}/${missing}`), 404);
      expectError(await server.request('GET', `/api/${path}/${missing}/sequence`), 404);
      expectError(await server.request('PUT', `/api/${path}/${missing}`, { body: {} }), 404);
      expectError(await server.request('DELETE', `/api/${path}/${missing}`), 404);
    },
  );

  it('an id in upper case finds the resource', async () => {
    const body = await get(`/api/organizations/${org.id.toUpperCase()}`);
    expect(body.id).toBe(org.id);
  });
});

describe('required fields', () => {
  it('TaskCreateRequest requires only projectId', async () => {
    const org = await createOrganization(server);
    const project = await createProject(server, org.id);
    const task = await post('/api/tasks', { projectId: project.id });
    expect(task).toMatchObject({
      projectId: project.id,
      title: '',
      description: '',
      priority: 0,
      statusSlug: null,
      locked: false,
      deleted: false,
      changeSequence: 0,
    });
    expect(task).not.toHaveProperty('project');
  });

  it('embeds the related objects the specification shows, and only those', async () => {
    const org = await createOrganization(server);
    const project = await createProject(server, org.id);
    const fetched = await get(`/api/projects/${project.id}`);
    expect(fetched.organization).toMatchObject({ id: org.id, slug: org.slug });
    expect(fetched).toHaveProperty('owner');
    expect(fetched).toHaveProperty('status');
    const task = await post('/api/tasks', { projectId: project.id, title: 'plain' });
    const read = await get(`/api/tasks/${task.id}`);
    expect(read.projectId).toBe(project.id);
    for (const relation of ['project', 'assignee', 'parentTask']) expect(read).not.toHaveProperty(relation);
    const team = await post('/api/teams', { name: 'Embedding', organizationId: org.id });
    expect((await get(`/api/teams/${team.id}`)).organization.id).toBe(org.id);
    const me = await get('/api/account/me');
    const member = await post('/api/team-members', { teamId: team.id, userId: me.id });
    expect(member.team.id).toBe(team.id);
    expect(member.user.id).toBe(me.id);
  });

  it('a task without projectId is 400 naming projectId, and only projectId', async () => {
    const answer = await server.request('POST', '/api/tasks', { body: { title: 'orphan' } });
    expectError(answer, 400, /projectId/);
    if (answer.body.details) expect(answer.body.details.map((d: any) => d.field)).toEqual(['projectId']);
    expectError(await server.request('POST', '/api/tasks', { body: {} }), 400, /projectId/);
  });

  it('a project without organizationId or name is 400 naming each', async () => {
    const answer = await server.request('POST', '/api/projects', { body: {} });
    expectError(answer, 400, /name/);
    expect(answer.body.message).toMatch(/organizationId/);
  });
});

describe('error body shape', () => {
  it('is {error, message, status} for 400, 401, 404 and 409 alike, without a stack trace', async () => {
    const org = await createOrganization(server);
    expectError(await server.request('GET', '/api/projects?pageSize=0'), 400);
    expectError(await server.request('GET', '/api/projects?filter=nonsense==1'), 400);
    expectError(await server.request('POST', '/api/projects', { body: '{oops' }), 400);
    expectError(await server.request('GET', '/api/projects', { key: null }), 401);
    expectError(await server.request('GET', '/api/projects', { key: 'not-a-key' }), 401);
    expectError(await server.request('GET', `/api/projects/${randomUUID()}`), 404);
    expectError(await server.request('GET', '/api/no-such-resource'), 404);
    expectError(await server.request('POST', '/api/organizations', { body: { name: unique('Org'), slug: org.slug } }), 409);
  });

  it('answers 400, not 500, for a string the database cannot store (NUL character)', async () => {
    const answer = await server.request('POST', '/api/organizations', { body: { name: `bad\u0000name ${unique('x')}` } });
    expectError(answer, 400, /name/);
    const org = await createOrganization(server);
    expectError(await server.request('PUT', `/api/organizations/${org.id}`, { body: { description: 'nul\u0000here' } }), 400, /description/);
  });

  it('carries details naming each invalid field when validation fails', async () => {
    const answer = await server.request('POST', '/api/organizations', { body: { name: '', publicAccess: 'yes' } });
    expectError(answer, 400);
    expect(answer.body.message).toMatch(/name/);
    expect(answer.body.message).toMatch(/publicAccess/);
  });
});
