import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Pages must stay cheap as tables grow: with tens of thousands of tasks, the statements of a list page
 * and of a nested page are planned on the indexes of the default order, never a scan of the whole table.
 * The rows live in a database of this suite's own, so other suites' counts are untouched.
 */
const TASKS_PER_PROJECT = 20_000;

let server: TestServer;
let db: pg.Client;
let serverUrl: string;
const databaseName = `platform_indexes_${process.pid}_${Date.now()}`;
let projectId: string;

beforeAll(async () => {
  serverUrl = withDatabase(inject('databaseUrl'), 'postgres');
  await ensureDatabase(serverUrl, databaseName);
  const databaseUrl = withDatabase(serverUrl, databaseName);
  server = await startServer({ databaseUrl });
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const org = await server.request('POST', '/api/organizations', { body: { name: unique('Indexed') } });
  for (const name of ['Large A', 'Large B']) {
    const project = await server.request('POST', '/api/projects', { body: { name, organizationId: org.body.id } });
    projectId = project.body.id;
    await db.query(
      `insert into task (id, uuid, created_on, updated_on, change_sequence, deleted, title, description, project_id, priority, locked, properties, document_family_ids)
       select gen_random_uuid(), gen_random_uuid(), now() - g * interval '1 second', now(), 0, g % 50 = 0, 'Task ' || g, '', $1, g % 5, false, '{}', '[]'
         from generate_series(1, $2::int) g`,
      [projectId, TASKS_PER_PROJECT],
    );
  }
  await db.query('analyze');
}, 120_000);

afterAll(async () => {
  await db?.end();
  await server?.close();
  await dropDatabase(serverUrl, databaseName);
});

/** The plans of the statements a request sent, one text per statement. */
async function plansOf(work: () => Promise<unknown>): Promise<string[]> {
  const statements = await server.recordQueries(work);
  expect(statements.length).toBeGreaterThan(0);
  const plans: string[] = [];
  for (const statement of statements) {
    const { rows } = await db.query(`explain ${statement.text}`, [...statement.params]);
    plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
  }
  return plans;
}

describe('list pages at scale', () => {
  it('pages the default order of a large table on its (created_on, id) index', async () => {
    const plans = await plansOf(async () => {
      const answer = await server.request('GET', '/api/tasks?pageSize=100&page=2');
      expect(answer.status).toBe(200);
      expect(answer.body.content).toHaveLength(100);
    });
    const page = plans.find((plan) => plan.includes('Limit'))!;
    expect(page).toMatch(/Index Scan using task_created_on_id_index on task/);
    expect(page).not.toMatch(/Seq Scan on task/);
  });

  it('counts the total apart from the page, without a window over every row', async () => {
    const statements = await server.recordQueries(async () => {
      const answer = await server.request('GET', '/api/tasks?pageSize=100');
      expect(answer.body.totalElements).toBe(2 * (TASKS_PER_PROJECT - TASKS_PER_PROJECT / 50));
    });
    expect(statements.some((s) => /over\s*\(/i.test(s.text))).toBe(false);
    expect(statements.filter((s) => /count\(/i.test(s.text))).toHaveLength(1);
  });

  it("pages one parent's rows on the (foreign key, created_on, id) index", async () => {
    const plans = await plansOf(async () => {
      const data = await server.graphqlData(`query($id: ID!) { project(id: $id) { tasks(pageSize: 20, page: 5) { totalElements content { title } } } }`, { id: projectId });
      expect(data.project.tasks.content).toHaveLength(20);
    });
    // One statement holds each parent's count and page; the page (alias e0) walks the parent's index.
    const nested = plans.find((plan) => plan.includes('Limit'))!;
    expect(nested).toMatch(/Index Scan using task_project_id_created_on_id_index on task e0/);
    expect(nested).not.toMatch(/Seq Scan on task e0/);
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
