import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../src/catalog/registry';
import { tenantKeyOf } from '../src/model/tenant-keys';
import { createRecord } from './support/resource-bodies';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, type TestServer } from './support/server';
import { tenantKeyViolations } from './support/tenant-keys';

/**
 * Every row below an organization carries that organization's id and whether a parent hides it, in
 * columns of its own table, kept by the database: set from the parent when the row is inserted (by any
 * path), refused when it would change, and re-derived for the descendants when a parent is deleted,
 * archived or restored, also while rows are being created under it.
 */
let server: TestServer;
let db: pg.Client;

beforeAll(async () => {
  server = await startServer();
  db = new pg.Client({ connectionString: inject('databaseUrl') });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await server?.close();
});

type Row = Record<string, any>;

async function stored(table: string, id: string): Promise<Row> {
  const { rows } = await db.query(`select * from "${table}" where id = $1`, [id]);
  return rows[0];
}

const status = async (path: string) => (await server.request('GET', path)).status;

describe('the tenant key', () => {
  it('is set on create for every resource below an organization (REST and GraphQL), and no row anywhere disagrees with its parent', async () => {
    const org = await createOrganization(server);
    const keyed = resources.filter((r) => tenantKeyOf(r)?.parent && r.operations.create);
    expect(keyed.length).toBeGreaterThan(30);
    for (const resource of keyed) {
      const created = await createRecord(server, resource, { organizationId: org.id });
      const row = await stored(server.orm.getMetadata().get(resource.entity.name).tableName, created.id);
      expect(row[tenantKeyOf(resource)!.column], resource.path).toBe(org.id);
      expect(row.parent_hidden, resource.path).toBe(false);
    }
    const project = await createProject(server, org.id);
    const viaGraphql = await server.graphqlData(`mutation($input: TaskCreateRequest!) { createTask(input: $input) { id } }`, {
      input: { projectId: project.id, title: 'Through GraphQL' },
    });
    expect((await stored('task', viaGraphql.createTask.id)).tenant_id).toBe(org.id);
    expect(await tenantKeyViolations(server.orm)).toEqual([]);
  });

  it('cannot move a row to another organization: the API answers 400 and the database refuses it too', async () => {
    const [a, b] = [await createOrganization(server), await createOrganization(server)];
    const [teamA, teamB] = [a, b].map(async (org) => (await server.request('POST', '/api/teams', { body: { name: 'Crew', organizationId: org.id } })).body);
    const user = (await server.request('POST', '/api/users', { body: { email: `mover-${Date.now()}@example.test` } })).body;
    const member = await server.request('POST', '/api/team-members', { body: { teamId: (await teamA).id, userId: user.id } });
    expect(member.status, member.text).toBe(201);
    const moved = await server.request('PUT', `/api/team-members/${member.body.id}`, { body: { teamId: (await teamB).id } });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.body.message).toMatch(/teamId/);
    expect((await stored('team_member', member.body.id)).tenant_id).toBe(a.id);

    const task = await createTask(server, (await createProject(server, a.id)).id);
    const elsewhere = await createProject(server, b.id);
    await expect(db.query('update task set project_id = $1 where id = $2', [elsewhere.id, task.id])).rejects.toMatchObject({ code: '23514' });
    expect((await stored('task', task.id)).tenant_id).toBe(a.id);
  });
});

describe('liveness through parents', () => {
  it('hides the rows below a deleted project three levels down, below an archived organization, and shows them again on restore', async () => {
    const org = await createOrganization(server);
    const project = await createProject(server, org.id);
    const task = await createTask(server, project.id);
    const activity = await server.request('POST', '/api/task-activities', { body: { taskId: task.id, text: 'noted' } });
    expect(activity.status, activity.text).toBe(201);
    const paths = [`/api/tasks/${task.id}`, `/api/task-activities/${activity.body.id}`];
    for (const path of paths) expect(await status(path)).toBe(200);

    expect((await server.request('DELETE', `/api/projects/${project.id}`)).status).toBe(204);
    for (const path of paths) expect(await status(path)).toBe(404);
    expect((await stored('task_activity', activity.body.id)).parent_hidden).toBe(true);
    const listed = await server.request('GET', `/api/tasks?filter=${encodeURIComponent(`projectId==${project.id}`)}`);
    expect(listed.body.totalElements).toBe(0);

    // Restored by an operator: the flags follow in the same statement's transaction.
    await db.query('update project set deleted = false where id = $1', [project.id]);
    for (const path of paths) expect(await status(path)).toBe(200);
    expect((await stored('task_activity', activity.body.id)).parent_hidden).toBe(false);

    expect((await server.request('DELETE', `/api/organizations/${org.id}`)).status).toBe(204);
    for (const path of [`/api/projects/${project.id}`, ...paths]) expect(await status(path)).toBe(404);
    await db.query('update organization set archived = false where id = $1', [org.id]);
    for (const path of [`/api/projects/${project.id}`, ...paths]) expect(await status(path)).toBe(200);
    expect(await tenantKeyViolations(server.orm)).toEqual([]);
  });

  it('hides a task created while its project is being deleted, whichever of the two commits first', async () => {
    const org = await createOrganization(server);
    const deleter = new pg.Client({ connectionString: inject('databaseUrl') });
    await deleter.connect();
    try {
      // The delete first: the API's insert waits for it, then finds its project deleted.
      const first = await createProject(server, org.id);
      await deleter.query('begin');
      await deleter.query('update project set deleted = true where id = $1', [first.id]);
      const creating = server.request('POST', '/api/tasks', { body: { projectId: first.id, title: 'Late arrival' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await deleter.query('commit');
      const late = await creating;
      expect(late.status, late.text).toBe(201);
      expect((await stored('task', late.body.id)).parent_hidden).toBe(true);
      expect(await status(`/api/tasks/${late.body.id}`)).toBe(404);

      // The insert first: the delete waits for it, then hides the new row as well.
      const second = await createProject(server, org.id);
      await deleter.query('begin');
      const { rows } = await deleter.query(
        `insert into task (id, uuid, created_on, updated_on, change_sequence, deleted, title, description, project_id, priority, locked, properties, document_family_ids)
         values (gen_random_uuid(), gen_random_uuid(), now(), now(), 0, false, 'Early', '', $1, 0, false, '{}', '[]') returning id`,
        [second.id],
      );
      const deleting = server.request('DELETE', `/api/projects/${second.id}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await deleter.query('commit');
      expect((await deleting).status).toBe(204);
      expect((await stored('task', rows[0].id)).parent_hidden).toBe(true);
      expect(await status(`/api/tasks/${rows[0].id}`)).toBe(404);
    } finally {
      await deleter.end();
    }
  });
});
