import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { startServerOnOwnDatabase, unique, type ServerOnOwnDatabase, type TestServer } from './support/server';

/**
 * Pages must stay cheap as tables grow: with tens of thousands of tasks, the statements of a list page
 * and of a nested page are planned on the indexes of the default order, never a scan of the whole table.
 * The rows live in a database of this suite's own, so other suites' counts are untouched.
 */
const TASKS_PER_PROJECT = 20_000;
/** Organizations beside the member's, one large project each: the member's rows are a fifth of the table. */
const NEIGHBOURS = 4;

let own: ServerOnOwnDatabase;
let server: TestServer;
let db: pg.Client;
let projectId: string;
/** A member of the one organization that holds every task (its creator, so its owner). */
let member: Caller;
const { newCaller } = callersOf(() => server);

beforeAll(async () => {
  own = await startServerOnOwnDatabase('platform_indexes');
  ({ server, db } = own);
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
  await own?.close();
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

/** Each table read in a plan, by the alias it is read under: how (`Index Scan using <index>`, `Seq Scan` ...). */
function scansOf(plan: string): Map<string, string[]> {
  const scans = new Map<string, string[]>();
  for (const match of plan.matchAll(/(Index Only Scan using \S+|Index Scan using \S+|Bitmap Heap Scan|Seq Scan) on (\w+) (\w+)/g)) {
    scans.set(match[3], [...(scans.get(match[3]) ?? []), `${match[1]} on ${match[2]}`]);
  }
  return scans;
}

/** The one statement of a REST page (the database writes the page, its total and its rows): its plans. */
async function pagePlansOf(path: string, key?: string, check?: (body: any) => void): Promise<string[]> {
  const plans = await plansOf(async () => {
    const answer = await server.request('GET', path, key ? { key } : undefined);
    expect(answer.status, answer.text).toBe(200);
    check?.(answer.body);
  });
  // The custom and the generic plan of the one statement (a member's memberships may be looked up first).
  const page = plans.filter((plan) => / e_0\b/.test(plan));
  expect(page).toHaveLength(2);
  return page;
}

describe('list pages at scale', () => {
  it('pages the default order of a large table on its (created_on, id) index, on one table', async () => {
    const plans = await pagePlansOf('/api/tasks?pageSize=100&page=2', undefined, (body) => expect(body.content).toHaveLength(100));
    for (const plan of plans) {
      const scans = scansOf(plan);
      // The page's rows (e_0) walk the index of the order; the total is the sum of the kept counts, no row of the table is counted.
      expect(scans.get('e_0'), plan).toEqual(['Index Scan using task_created_on_id_index on task']);
      expect([...scans.keys()].sort(), plan).toEqual(['e_0']);
      expect(plan).toMatch(/Scan (using \S+ )?on live_row_count/);
      expect(plan).not.toMatch(/Join|project|organization|Sort/);
    }
  });

  it("pages a member's tasks on the tenant key's index alone, one range, and sums their organization's kept counts", async () => {
    const plans = await pagePlansOf('/api/tasks?pageSize=100&page=2', member.key, (body) => {
      expect(body.content).toHaveLength(100);
      expect(body.totalElements).toBe(TASKS_PER_PROJECT - TASKS_PER_PROJECT / 50);
    });
    for (const plan of plans) {
      const scans = scansOf(plan);
      expect(scans.get('e_0'), plan).toEqual(['Index Scan using task_tenant_id_deleted_parent_hidden_created_on_id_index on task']);
      expect(scans.get('c_0'), plan).toBeUndefined();
      expect(plan).toMatch(/Scan (using \S+ )?on live_row_count/);
      expect(plan).not.toMatch(/Join|project|organization|Sort|Seq Scan on task/);
    }
  });

  it("counts a filtered page's rows themselves: the kept counts hold every live row, not those a filter keeps", async () => {
    const filter = encodeURIComponent('priority=ge=0');
    const plans = await pagePlansOf(`/api/tasks?pageSize=100&page=2&filter=${filter}`, member.key, (body) => {
      expect(body.totalElements).toBe(TASKS_PER_PROJECT - TASKS_PER_PROJECT / 50);
    });
    for (const plan of plans) {
      const scans = scansOf(plan);
      expect(scans.get('c_0')?.[0], plan).toMatch(/ on task$/);
      expect(plan).not.toMatch(/live_row_count/);
    }
  });

  it('counts the total apart from the page: the only window is over the page, after its limit', async () => {
    const plans = await pagePlansOf('/api/tasks?pageSize=100', undefined, (body) =>
      expect(body.totalElements).toBe((NEIGHBOURS + 1) * (TASKS_PER_PROJECT - TASKS_PER_PROJECT / 50)),
    );
    for (const plan of plans) {
      const lines = plan.split('\n');
      const windows = lines.flatMap((line, i) => (line.includes('WindowAgg') ? [i] : []));
      expect(windows, plan).toHaveLength(1);
      // What the window reads: the lines below it, more indented; the page's limit comes before any table is read.
      const depth = (line: string) => line.search(/\S/);
      const below = lines.slice(windows[0] + 1);
      const subtree = below.slice(
        0,
        Math.max(
          0,
          below.findIndex((line) => depth(line) <= depth(lines[windows[0]])),
        ) || below.length,
      );
      const limit = subtree.findIndex((line) => /->\s+Limit/.test(line));
      const scan = subtree.findIndex((line) => /Scan .*\bon task\b/.test(line));
      expect(limit, plan).toBeGreaterThanOrEqual(0);
      expect(limit, plan).toBeLessThan(scan);
      expect(lines.filter((line) => /->\s+Aggregate/.test(line) || /^Aggregate/.test(line.trim())).length, plan).toBeGreaterThan(0);
    }
  });

  it("pages one parent's rows on the (foreign key, created_on, id) index", async () => {
    const plans = await plansOf(async () => {
      const data = await server.graphqlData(`query($id: ID!) { project(id: $id) { tasks(pageSize: 20, page: 5) { totalElements content { title } } } }`, {
        id: projectId,
      });
      expect(data.project.tasks.content).toHaveLength(20);
    });
    // One statement holds the project, its tasks' count and their page; the page (alias e_1) walks the parent's index.
    for (const plan of plans) {
      const scans = scansOf(plan);
      expect(scans.get('e_1'), plan).toEqual(['Index Scan using task_project_id_created_on_id_index on task']);
    }
  });

  it('pages a filtered list on a reference without scanning the table', async () => {
    const filter = encodeURIComponent(`projectId==${projectId}`);
    const plans = await pagePlansOf(`/api/tasks?pageSize=100&filter=${filter}`, undefined, (body) => expect(body.content).toHaveLength(100));
    for (const plan of plans) {
      const scans = scansOf(plan);
      expect(scans.get('e_0')?.[0], plan).toMatch(/Index Scan using task_(project_id_)?created_on_id_index on task/);
      expect(plan).not.toMatch(/Seq Scan on task e_0/);
    }
  });
});
