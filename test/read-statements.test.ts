import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ReadPool } from '../src/database/read-pool';
import { resources } from '../src/catalog/registry';
import { collectionPath } from '../src/model/resource';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createRecord, createUser, parentIdOf } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';

/**
 * A row by id is one prepared statement with bound parameters: its tenant and deleted-parent conditions
 * and its embedded objects included. What it answers is what the list (read through the ORM) answers.
 */
let server: TestServer;
let member: { id: string; key: string };
let organizationId: string;

beforeAll(async () => {
  server = await startServer();
  const user = await createUser(server);
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('reads'), userId: user.id } });
  member = { id: user.id, key: token.body.token };
  const org = await createOrganization(server, {}, member.key);
  organizationId = org.id;
});

afterAll(async () => {
  await server?.close();
});

/** Statements of one request made with credentials and memberships already cached (by the same request). */
async function statementsOf(path: string, key: string) {
  await server.request('GET', path, { key });
  let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
  const recorded = await server.fewestQueries(async () => {
    answer = await server.request('GET', path, { key });
  });
  return { answer: answer!, recorded };
}

describe('reads by id', () => {
  it.each(resources.map((r) => [r.path, r] as const))('%s: the same JSON as its list, in one prepared statement', async (path, resource) => {
    const record = await createRecord(server, resource, { organizationId, key: member.key, userId: member.id });
    const base = `/api/${collectionPath(resource, parentIdOf(resource, record))}`;
    const listed = await server.request('GET', `${base}?filter=id==${record.id}`);
    expect(listed.body.content, listed.text).toHaveLength(1);
    const { answer, recorded } = await statementsOf(`${base}/${record.id}`, server.adminKey);
    expect(answer.status, answer.text).toBe(200);
    const expected = { ...listed.body.content[0] };
    if (path === 'access-tokens') delete expected.token; // the key itself is only ever in the create answer
    expect(answer.body).toEqual({ ...expected, ...(path === 'access-tokens' ? { token: null } : {}) });
    expect(recorded).toHaveLength(1);
    expect(recorded[0].text).toContain('$1');
    expect(recorded[0].text).not.toContain(record.id);
    expect(recorded[0].params).toContain(record.id);
  });

  it("embeds a project's organization, owner and status in the same statement, for a member", async () => {
    const status = await server.request('POST', '/api/project-statuses', { body: { status: 'Live', organizationId }, key: member.key });
    const project = await createProject(server, organizationId, { ownerId: member.id, statusId: status.body.id }, member.key);
    const { answer, recorded } = await statementsOf(`/api/projects/${project.id}`, member.key);
    expect(answer.status, answer.text).toBe(200);
    expect(recorded).toHaveLength(1);
    expect(answer.body.organization).toMatchObject({ id: organizationId });
    expect(answer.body.owner).toMatchObject({ id: member.id });
    expect(answer.body.status).toMatchObject({ id: status.body.id, status: 'Live', organization: null });
    expect(answer.body.createdOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(answer.body.organization.createdOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('tells 403 from 404 in the same single statement', async () => {
    const outsider = await createUser(server);
    const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('outsider'), userId: outsider.id } });
    const project = await createProject(server, organizationId, {}, member.key);
    const forbidden = await statementsOf(`/api/projects/${project.id}`, token.body.token);
    expect(forbidden.answer.status).toBe(403);
    expect(forbidden.recorded).toHaveLength(1);
    const missing = await statementsOf(`/api/projects/00000000-0000-4000-8000-000000000000`, token.body.token);
    expect(missing.answer.status).toBe(404);
    expect(missing.recorded).toHaveLength(1);
  });

  it('hides what a deleted parent holds, and an embedded row the caller may not see', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const task = await createTask(server, project.id, {}, member.key);
    expect((await server.request('DELETE', `/api/projects/${project.id}`, { key: member.key })).status).toBe(204);
    expect((await statementsOf(`/api/tasks/${task.id}`, member.key)).answer.status).toBe(404);
    // The owner is a user the member shares no organization with: visible to the administrator only.
    const stranger = await createUser(server);
    const owned = await createProject(server, organizationId, { ownerId: stranger.id });
    expect((await statementsOf(`/api/projects/${owned.id}`, server.adminKey)).answer.body.owner.id).toBe(stranger.id);
    expect((await statementsOf(`/api/projects/${owned.id}`, member.key)).answer.body.owner).toBeNull();
  });

  it('serves GraphQL items from the same statement', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    await server.request('GET', '/api/account/me', { key: member.key });
    const recorded = await server.fewestQueries(async () => {
      const answer = await server.graphql(`query($id: ID!) { project(id: $id) { id name createdOn } }`, { id: project.id }, member.key);
      expect(answer.body.data.project).toEqual({ id: project.id, name: project.name, createdOn: project.createdOn });
    });
    expect(recorded).toHaveLength(1);
  });
});

describe('writes', () => {
  it('update fields no rule watches in one UPDATE that checks tenancy and parents itself, over REST and GraphQL', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const task = await createTask(server, project.id, {}, member.key);
    await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 1 }, key: member.key });
    let answer: any;
    const recorded = await server.fewestQueries(async (attempt) => {
      answer = await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 20 + attempt }, key: member.key });
      expect(answer.status, answer.text).toBe(200);
    });
    expect(recorded.map((s) => s.text.split(' ')[0].toLowerCase())).toEqual(['update']);
    expect(recorded[0].text).toMatch(/^update "task" r0 set .* where r0\."id" = \$1::uuid and .*"tenant_id" = any\(\$2::uuid\[\]\).* returning r0\.\*$/s);
    expect(recorded[0].params).toContain(task.id);
    const stored = (await server.request('GET', `/api/tasks/${task.id}`, { key: member.key })).body;
    expect(answer.body).toMatchObject({ priority: stored.priority, changeSequence: stored.changeSequence, updatedOn: stored.updatedOn });

    const graphql = await server.fewestQueries(async (attempt) => {
      const written = await server.graphql(
        `mutation($id: ID!, $input: TaskUpdateRequest!) { updateTask(id: $id, input: $input) { id priority changeSequence } }`,
        { id: task.id, input: { priority: 40 + attempt } },
        member.key,
      );
      expect(written.body.errors).toBeUndefined();
      expect(written.body.data.updateTask.priority).toBe(40 + attempt);
    });
    expect(graphql.map((s) => s.text.split(' ')[0].toLowerCase())).toEqual(['update']);
  });

  it('write nothing when the values are already stored, and refuse a stale changeSequence with 409', async () => {
    const task = await createTask(server, (await createProject(server, organizationId, {}, member.key)).id, { priority: 5 }, member.key);
    const same = await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 5 }, key: member.key });
    expect(same.status, same.text).toBe(200);
    expect(same.body).toMatchObject({ priority: 5, changeSequence: task.changeSequence, updatedOn: task.updatedOn });

    const stale = await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 6, changeSequence: task.changeSequence + 3 }, key: member.key });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.currentChangeSequence).toBe(task.changeSequence);
    const current = await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 6, changeSequence: task.changeSequence }, key: member.key });
    expect(current.status, current.text).toBe(200);
    expect(current.body).toMatchObject({ priority: 6, changeSequence: task.changeSequence + 1 });
  });

  it('update a field a rule watches in its transaction with one locking read that also checks tenancy and parents', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const task = await createTask(server, project.id, {}, member.key);
    await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 1 }, key: member.key });
    const recorded = await server.fewestQueries(async (attempt) => {
      const answer = await server.request('PUT', `/api/tasks/${task.id}`, { body: { assigneeId: attempt % 2 ? null : member.id }, key: member.key });
      expect(answer.status, answer.text).toBe(200);
    });
    // The ASSIGNED activity is recorded once the change has committed.
    expect(recorded.map((s) => s.text.split(' ')[0].toLowerCase())).toEqual(['begin', 'select', 'update', 'commit', 'insert']);
    expect(recorded[4].text).toMatch(/^insert into "task_activity"/);
    expect(recorded[1].text).toMatch(/for update of r0$/);
    expect(recorded[1].params).toContain(task.id);
  });

  it('refuses in the same way as before: 404 for a missing row, 403 for a row of another organization', async () => {
    const outsider = await createUser(server);
    const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('outsider'), userId: outsider.id } });
    const task = await createTask(server, (await createProject(server, organizationId, {}, member.key)).id, {}, member.key);
    expect((await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 3 }, key: token.body.token })).status).toBe(403);
    expect((await server.request('DELETE', `/api/tasks/${task.id}`, { key: token.body.token })).status).toBe(403);
    expect((await server.request('PUT', '/api/tasks/00000000-0000-4000-8000-000000000000', { body: { priority: 3 }, key: member.key })).status).toBe(404);
    expect((await server.request('GET', `/api/tasks/${task.id}`, { key: member.key })).body.priority).toBe(0);
  });

  it('create a project-scoped row checking its parent once, in one INSERT', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    await server.request('POST', '/api/workspaces', { body: { projectId: project.id, name: 'warm-up' }, key: member.key });
    const recorded = await server.fewestQueries(async () => {
      const answer = await server.request('POST', '/api/workspaces', { body: { projectId: project.id, name: 'counted' }, key: member.key });
      expect(answer.status, answer.text).toBe(201);
    });
    // The project is read once (live, visible, with the organization the workspace joins), then one
    // INSERT, a transaction in itself: a workspace has no rules that write anything else (a task has:
    // its activity and event, in a transaction).
    expect(recorded.map((s) => s.text.split(' ')[0].toLowerCase())).toEqual(['select', 'insert']);
    expect(recorded[0].text).toContain('"__organization"');
    expect(recorded[0].params).toContain(project.id);
  });
});

describe('a task create', () => {
  it('writes the task, then its event with the trigger evaluation job in one statement, then its activity once committed', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    await server.request('POST', '/api/tasks', { body: { projectId: project.id, title: 'warm-up' }, key: member.key });
    const recorded = await server.fewestQueries(async () => {
      const answer = await server.request('POST', '/api/tasks', { body: { projectId: project.id, title: 'counted' }, key: member.key });
      expect(answer.status, answer.text).toBe(201);
    });
    const shape = recorded.map(({ text }) => {
      const insert = /insert into "(\w+)"/.exec(text);
      if (!insert) return text.split(' ')[0].toLowerCase();
      return `insert ${insert[1]}${text.includes('graphile_worker.add_job') ? ' and its job' : ''}`;
    });
    // The project is read (live, visible), then the task, its event and the job go in one statement, a
    // transaction in itself; the activity is written once that has committed.
    expect(shape).toEqual(['select', 'insert task and its job', 'insert task_activity']);
    expect(recorded[1].text).toMatch(/^with w0 as \(insert into "task" .*\), w1 as \(insert into "platform_event" .*graphile_worker\.add_job/s);
  });

  it('writes neither the task nor its event when one of them fails', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const database = new pg.Client({ connectionString: inject('databaseUrl') });
    await database.connect();
    const trigger = `refuse_events_${project.id.replaceAll('-', '_')}`;
    // A failure of the event's INSERT, for this project only (other suites share the database).
    await database.query(`create function ${trigger}() returns trigger language plpgsql as $$ begin raise exception 'no events here'; end $$`);
    await database.query(
      `create trigger ${trigger} before insert on platform_event for each row when (new.project_id = '${project.id}') execute function ${trigger}()`,
    );
    try {
      const answer = await server.request('POST', '/api/tasks', { body: { projectId: project.id, title: 'half' }, key: member.key });
      expect(answer.status).toBe(500);
      const { rows } = await database.query('select count(*)::int as n from task where project_id = $1', [project.id]);
      expect(rows[0].n).toBe(0);
    } finally {
      await database.query(`drop trigger ${trigger} on platform_event`);
      await database.query(`drop function ${trigger}()`);
      await database.end();
    }
    const after = await server.request('POST', '/api/tasks', { body: { projectId: project.id, title: 'whole' }, key: member.key });
    expect(after.status, after.text).toBe(201);
  });
});

describe('list statements', () => {
  it('bind the filter values as parameters, never in the SQL text', async () => {
    const project = await createProject(server, organizationId, { name: unique('Bound') }, member.key);
    const path = `/api/projects?filter=${encodeURIComponent(`name=='${project.name}'`)}&sort=name:desc`;
    const recorded = await server.fewestQueries(async () => {
      const answer = await server.request('GET', path, { key: member.key });
      expect(answer.body.content.map((p: { id: string }) => p.id)).toEqual([project.id]);
    });
    // The page (the total is known from it), then the embedded organizations by id, and the
    // projects' document statuses, for every row of the page at once.
    expect(recorded).toHaveLength(3);
    expect(recorded[0].text).not.toContain(project.name);
    expect(recorded[0].params).toContain(project.name);
  });

  it('are written again when the caller gains access: the same list shows the new organization', async () => {
    const other = await createOrganization(server);
    const project = await createProject(server, other.id);
    const path = `/api/projects?filter=${encodeURIComponent(`organizationId==${other.id}`)}`;
    expect((await server.request('GET', path, { key: member.key })).body.totalElements).toBe(0);
    const team = await server.request('POST', '/api/teams', { body: { name: unique('Late'), organizationId: other.id } });
    expect((await server.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: member.id } })).status).toBe(201);
    const after = await server.request('GET', path, { key: member.key });
    expect(after.body.content.map((p: { id: string }) => p.id)).toEqual([project.id]);
  });
});

describe('list statement counts', () => {
  it('a full page of rows is one statement, in which the database writes the page, its rows and its total', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    for (let i = 0; i < 3; i++) await createTask(server, project.id, { title: `counted ${i}` }, member.key);
    const path = `/api/tasks?pageSize=2&filter=${encodeURIComponent(`projectId==${project.id}`)}`;
    const recorded = await server.fewestQueries(async () => {
      const answer = await server.request('GET', path, { key: member.key });
      expect(answer.body).toMatchObject({ totalElements: 3, numberOfElements: 2 });
    });
    expect(recorded).toHaveLength(1);
    expect(recorded[0].text).toMatch(/count\(\*\)/);
    expect(recorded[0].text).toMatch(/string_agg/);
  });

  it("are prepared by name, the page with its count, on the task table alone (the tenant key and the parents' liveness are its own columns)", async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    for (let i = 0; i < 3; i++) await createTask(server, project.id, { title: `named ${i}` }, member.key);
    const recorded = await server.fewestQueries(async () => {
      const answer = await server.request('GET', '/api/tasks?pageSize=2&sort=title', { key: member.key });
      expect(answer.body.numberOfElements).toBe(2);
    });
    expect(recorded).toHaveLength(1);
    for (const statement of recorded) {
      expect(statement.name, statement.text).toMatch(/^list-\d+$/);
      expect(statement.text).not.toMatch(/\bjoin\b|"project"|"organization"/i);
      expect(statement.text).toMatch(/"tenant_id" in \(/);
    }
  });
});

describe('the prepared list statements', () => {
  it('are at most maxNamedTexts texts per process: beyond them, texts run unnamed, and the named ones stay named', async () => {
    const pool = new ReadPool(inject('databaseUrl'), 1, 3);
    try {
      const names: (string | undefined)[] = [];
      const run = async (n: number) => {
        // The server runs in this process: its recorder sees the pool under test too.
        const recorded = await server.recordQueries(() => pool.run(`select ${n} as n`, [], true));
        names.push(recorded[0].name);
      };
      for (const n of [1, 2, 3, 4, 5, 1]) await run(n);
      expect(names).toEqual(['list-0', 'list-1', 'list-2', undefined, undefined, 'list-0']);
      // One connection: what it holds prepared is what the pool named.
      const held = await pool.run<{ count: string }>('select count(*) from pg_prepared_statements', []);
      expect(Number(held[0].count)).toBe(3);
    } finally {
      await pool.close();
    }
  });
});

describe('request sessions', () => {
  const SETTINGS = ['jit', 'max_parallel_workers_per_gather', 'random_page_cost'];
  const EXPECTED = [{ jit: 'off', max_parallel_workers_per_gather: '0', random_page_cost: '1.1' }];
  const TEXT = `select ${SETTINGS.map((name) => `current_setting('${name}') as ${name}`).join(', ')}`;

  // A nested level over a hundred parents is estimated past jit_above_cost (compiling it took ten times
  // its run), a parallel count takes cores from other callers, and the default random_page_cost makes
  // a count over most of a table scan the heap instead of the tenant index.
  it('run without JIT or parallel workers, costing index reads as on SSD, on the ORM connections and the read pool alike', async () => {
    expect(await server.orm.em.fork().getConnection().execute(TEXT)).toEqual(EXPECTED);
    const reads = new ReadPool(server.orm.config.get('clientUrl')!, 1);
    try {
      expect(await reads.query({ name: 'request-session-settings', text: TEXT }, [])).toEqual(EXPECTED);
    } finally {
      await reads.close();
    }
  });

  it('differ from what a connection of the database server gets by default', async () => {
    const plain = new pg.Client({ connectionString: server.orm.config.get('clientUrl')! });
    await plain.connect();
    try {
      expect((await plain.query(TEXT)).rows).not.toEqual(EXPECTED);
    } finally {
      await plain.end();
    }
  });
});
