import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { callersOf, type Caller } from './support/callers';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Pages must stay cheap as tables grow: with tens of thousands of tasks, the statements of a list page
 * and of a nested page are planned on the indexes of the default order, never a scan of the whole table.
 * The rows live in a database of this suite's own, so other suites' counts are untouched.
 */
const TASKS_PER_PROJECT = 20_000;
/** Organizations beside the member's, one large project each: the member's rows are a fifth of the table. */
const NEIGHBOURS = 4;

let server: TestServer;
let db: pg.Client;
let serverUrl: string;
const databaseName = `platform_indexes_${process.pid}_${Date.now()}`;
let projectId: string;
/** A member of the one organization that holds every task (its creator, so its owner). */
let member: Caller;
const { newCaller } = callersOf(() => server);

beforeAll(async () => {
  serverUrl = withDatabase(inject('databaseUrl'), 'postgres');
  await ensureDatabase(serverUrl, databaseName);
  const databaseUrl = withDatabase(serverUrl, databaseName);
  server = await startServer({ databaseUrl });
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  member = await newCaller('Indexed member');
  // The member's organization holds one large project, each neighbouring organization another.
  const mine = await server.request('POST', '/api/organizations', { body: { name: unique('Indexed') }, key: member.key });
  const organizations = [mine];
  for (let i = 0; i < NEIGHBOURS; i += 1) organizations.push(await server.request('POST', '/api/organizations', { body: { name: unique('Neighbour') } }));
  for (const [index, org] of organizations.entries()) {
    const name = `Large ${index}`;
    const project = await server.request('POST', '/api/projects', { body: { name, organizationId: org.body.id } });
    projectId = project.body.id;
    await db.query(
      `insert into task (id, uuid, created_on, updated_on, change_sequence, deleted, title, description, project_id, priority, locked, properties, document_family_ids)
       select gen_random_uuid(), gen_random_uuid(), now() - g * interval '1 second', now(), 0, g % 50 = 0, 'Task ' || g, '', $1, g % 5, false, '{}', '[]'
         from generate_series(1, $2::int) g`,
      [projectId, TASKS_PER_PROJECT],
    );
  }
  // Index-only counts need the visibility map a vacuum writes (autovacuum would, in time).
  await db.query('vacuum analyze');
}, 120_000);

afterAll(async () => {
  await db?.end();
  await server?.close();
  await dropDatabase(serverUrl, databaseName);
});

/** The plans of the statements a request sent, one text per statement: the custom and the generic plan of each. */
async function plansOf(work: () => Promise<unknown>): Promise<string[]> {
  const statements = await server.recordQueries(work);
  expect(statements.length).toBeGreaterThan(0);
  const plans: string[] = [];
  for (const statement of statements) {
    const { rows } = await db.query(`explain ${statement.text}`, [...statement.params]);
    plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
    if (statement.params.length === 0) continue;
    // The plan a prepared statement settles on once it stops planning for each request's values.
    await db.query(`set plan_cache_mode = force_generic_plan`);
    await db.query(`prepare generic as ${statement.text}`);
    const types = await db.query(`select parameter_types::text[] as types from pg_prepared_statements where name = 'generic'`);
    const values = statement.params.map((value, i) => literal(value, types.rows[0].types[i]));
    const generic = await db.query(`explain execute generic(${values.join(', ')})`);
    plans.push(generic.rows.map((row) => row['QUERY PLAN']).join('\n'));
    await db.query(`deallocate generic; reset plan_cache_mode`);
  }
  return plans;
}

/** A bound value as SQL text of its type, for EXECUTE. */
function literal(value: unknown, type: string): string {
  const text = Array.isArray(value) ? `{${value.join(',')}}` : String(value);
  return `'${text.replace(/'/g, "''")}'::${type}`;
}

describe('list pages at scale', () => {
  it('pages the default order of a large table on its (created_on, id) index, on one table', async () => {
    const plans = await plansOf(async () => {
      const answer = await server.request('GET', '/api/tasks?pageSize=100&page=2');
      expect(answer.status).toBe(200);
      expect(answer.body.content).toHaveLength(100);
    });
    const pages = plans.filter((plan) => plan.includes('Limit'));
    for (const page of pages) {
      expect(page).toMatch(/Index Scan using task_created_on_id_index on task/);
      expect(page).not.toMatch(/Seq Scan|Join|project|organization/);
    }
    // Every row of the table counts: a scan of the one table, which the planner may read whole.
    const counts = plans.filter((plan) => plan.includes('Aggregate'));
    expect(counts.length).toBeGreaterThan(0);
    for (const count of counts) expect(count).not.toMatch(/Join|project|organization/);
  });

  it("pages and counts a member's tasks on the tenant key's index alone: one range, an index-only count", async () => {
    const plans = await plansOf(async () => {
      const answer = await server.request('GET', '/api/tasks?pageSize=100&page=2', { key: member.key });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.content).toHaveLength(100);
      expect(answer.body.totalElements).toBe(TASKS_PER_PROJECT - TASKS_PER_PROJECT / 50);
    });
    const pages = plans.filter((plan) => plan.includes('Limit'));
    // The count's plans (the caller's memberships are looked up first, grouped by organization).
    const counts = plans.filter((plan) => plan.startsWith('Aggregate'));
    expect(pages.length).toBeGreaterThan(0);
    expect(counts.length).toBeGreaterThan(0);
    for (const page of pages) {
      expect(page).toMatch(/Index Scan using task_tenant_id_deleted_parent_hidden_created_on_id_index on task/);
      expect(page).not.toMatch(/Sort|Seq Scan|Join|project|organization/);
    }
    for (const count of counts) {
      expect(count).toMatch(/Index Only Scan using task_tenant_id_deleted_parent_hidden_created_on_id_index on task/);
      expect(count).not.toMatch(/Join|project|organization/);
    }
  });

  it('counts the total apart from the page, without a window over every row', async () => {
    const statements = await server.recordQueries(async () => {
      const answer = await server.request('GET', '/api/tasks?pageSize=100');
      expect(answer.body.totalElements).toBe((NEIGHBOURS + 1) * (TASKS_PER_PROJECT - TASKS_PER_PROJECT / 50));
    });
    expect(statements.some((s) => /over\s*\(/i.test(s.text))).toBe(false);
    expect(statements.filter((s) => /count\(/i.test(s.text))).toHaveLength(1);
  });

  it("pages one parent's rows on the (foreign key, created_on, id) index", async () => {
    const plans = await plansOf(async () => {
      const data = await server.graphqlData(`query($id: ID!) { project(id: $id) { tasks(pageSize: 20, page: 5) { totalElements content { title } } } }`, {
        id: projectId,
      });
      expect(data.project.tasks.content).toHaveLength(20);
    });
    // One statement holds the project, its tasks' count and their page; the page (alias e1) walks the parent's index.
    const nested = plans.find((plan) => plan.includes('Limit'))!;
    expect(nested).toMatch(/Index Scan using task_project_id_created_on_id_index on task e1/);
    expect(nested).not.toMatch(/Seq Scan on task e1/);
  });

  it('pages a filtered list on a reference without scanning the table', async () => {
    const plans = await plansOf(async () => {
      const answer = await server.request('GET', `/api/tasks?pageSize=100&filter=${encodeURIComponent(`projectId==${projectId}`)}`);
      expect(answer.body.content).toHaveLength(100);
    });
    const page = plans.find((plan) => plan.includes('Limit'))!;
    expect(page).toMatch(/Index Scan using task_(project_id_)?created_on_id_index on task/);
    expect(page).not.toMatch(/Seq Scan on task/);
  });
});
