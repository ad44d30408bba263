import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../src/catalog/registry';
import { countedTables, type CountedTable } from '../src/database/live-counts-sql';
import { collectionPath, type Resource } from '../src/model/resource';
import { liveSql } from '../src/model/tenant-keys';
import { callersOf, type Caller } from './support/callers';
import { createRecord, parentIdOf } from './support/resource-bodies';
import { startServerOnOwnDatabase, unique, type ServerOnOwnDatabase, type TestServer } from './support/server';

/**
 * The database keeps each organization's live rows counted per table, and an unfiltered page's total
 * is the sum of those counts. Whatever happens to the rows (created one by one or many at once, deleted,
 * hidden by a parent's delete or an organization's archive), the kept counts must equal the rows
 * themselves, and a total read from them the total a filter's count gives. The suite has a database of
 * its own, so that an administrator's totals move with its own writes only.
 */
let own: ServerOnOwnDatabase;
let server: TestServer;
let db: pg.Client;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let memberOrganization: string;
let otherOrganization: string;
let tables: CountedTable[];

beforeAll(async () => {
  own = await startServerOnOwnDatabase('platform_counts');
  ({ server, db } = own);
  tables = countedTables(resources, (entity) => server.orm.getMetadata().get(entity.name).tableName);
  member = await newCaller('Counted member');
  memberOrganization = (await rest(member, 'POST', '/api/organizations', 201, { name: unique('Counted') })).id;
  otherOrganization = (await rest(null, 'POST', '/api/organizations', 201, { name: unique('Elsewhere') })).id;
}, 120_000);

afterAll(async () => {
  await own?.close();
});

/** Every counted table whose kept counts differ from its live rows, with both, per organization. */
async function countsApart(): Promise<string[]> {
  const differing: string[] = [];
  for (const { resource, table, tenant } of tables) {
    const { rows } = await db.query(
      `with kept as (select "tenant_id"::text as tenant, sum("rows")::int as n from live_row_count where "table_name" = $1 group by 1),
            actual as (select coalesce(r.${tenant}::text, '00000000-0000-0000-0000-000000000000') as tenant, count(*)::int as n
                         from "${table}" r where ${liveSql(resource, 'r') ?? 'true'} group by 1)
       select coalesce(k.tenant, a.tenant) as tenant, coalesce(k.n, 0) as kept, coalesce(a.n, 0) as actual
         from kept k full join actual a on a.tenant = k.tenant where coalesce(k.n, 0) <> coalesce(a.n, 0)`,
      [table],
    );
    differing.push(...rows.map((row) => `${table} ${row.tenant}: kept ${row.kept}, live ${row.actual}`));
  }
  return differing;
}

/** The total of a collection's first page, unfiltered, and with a filter every row passes (which counts the rows). */
async function totals(path: string, key?: string): Promise<{ kept: number; counted: number }> {
  const kept = await server.request('GET', `/api/${path}?pageSize=1`, { key });
  const counted = await server.request('GET', `/api/${path}?pageSize=1&filter=${encodeURIComponent('id=isnull=false')}`, { key });
  expect(kept.status, kept.text).toBe(200);
  expect(counted.status, counted.text).toBe(200);
  return { kept: kept.body.totalElements, counted: counted.body.totalElements };
}

async function createTask(projectId: string, key?: string): Promise<string> {
  return (await server.request('POST', '/api/tasks', { body: { projectId, title: unique('Counted task') }, key })).body.id;
}

/** Collections served at the top level: a page of all the caller's rows. */
const topLevel = (resource: Resource) => !resource.parent;

describe('kept live-row counts', () => {
  it('are kept for every table below an organization, from the migration on', async () => {
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.map((t) => t.table)).toContain('task');
    const { rows } = await db.query(`select count(*)::int as n from pg_trigger where tgname like '%live_rows_%'`);
    expect(rows[0].n).toBe(tables.length * 3);
  });

  it("give every collection's total as a filter's count gives it, for an administrator and a member", async () => {
    // Rows of every resource in both organizations, one of each deleted again where the API deletes.
    for (const resource of resources.filter((r) => tables.some((t) => t.resource === r))) {
      for (const organizationId of [memberOrganization, otherOrganization]) {
        // The member's rows name the member where they name a user; the other organization's never do (nor make them its member).
        const options = organizationId === memberOrganization ? { organizationId, key: member.key, userId: member.id } : { organizationId };
        const key = options.key;
        const created = await createRecord(server, resource, options);
        await createRecord(server, resource, options);
        if (resource.operations.delete && resource.access.delete !== 'admin') {
          const path = `/api/${collectionPath(resource, parentIdOf(resource, created))}/${created.id}`;
          const deleted = await server.request('DELETE', path, { key });
          expect(deleted.status, `${path}: ${deleted.text}`).toBeLessThan(300);
        }
      }
    }
    expect(await countsApart()).toEqual([]);
    for (const resource of resources.filter((r) => topLevel(r) && tables.some((t) => t.resource === r))) {
      const administrator = await totals(resource.path);
      const mine = await totals(resource.path, member.key);
      expect(administrator.kept, `${resource.path} as the administrator`).toBe(administrator.counted);
      expect(mine.kept, `${resource.path} as a member`).toBe(mine.counted);
      // The other organization's rows count for the administrator only.
      expect(mine.counted, resource.path).toBeLessThan(administrator.counted);
    }
  }, 300_000);

  it("follow deletes, a project's delete, an organization's archive and many creates at once", async () => {
    const organization = (await rest(member, 'POST', '/api/organizations', 201, { name: unique('Archived') })).id;
    const project = (await rest(member, 'POST', '/api/projects', 201, { name: unique('Hidden'), organizationId: organization })).id;
    const before = await totals('tasks', member.key);
    const created = await Promise.all(Array.from({ length: 30 }, () => createTask(project, member.key)));
    expect(await totals('tasks', member.key)).toEqual({ kept: before.kept + 30, counted: before.counted + 30 });
    await rest(member, 'DELETE', `/api/tasks/${created[0]}`, 204);
    expect(await totals('tasks', member.key)).toEqual({ kept: before.kept + 29, counted: before.counted + 29 });
    // The project's delete hides its tasks, the organization's archive its projects.
    await rest(member, 'DELETE', `/api/projects/${project}`, 204);
    expect(await totals('tasks', member.key)).toEqual(before);
    await rest(member, 'DELETE', `/api/organizations/${organization}`, 204);
    for (const key of [undefined, member.key]) {
      const projects = await totals('projects', key);
      expect(projects.kept).toBe(projects.counted);
    }
    expect(await countsApart()).toEqual([]);
  }, 120_000);

  it('sum a few rows: an unfiltered page sends no count of the rows', async () => {
    const statements = await server.recordQueries(() => server.request('GET', '/api/tasks?pageSize=1', { key: member.key }));
    const page = statements.find((s) => /"e_0"/.test(s.text));
    expect(page?.text).toMatch(/from "live_row_count" where "table_name" = /);
    expect(page?.text).not.toMatch(/count\(\*\)/);
    const graphql = await server.recordQueries(() => server.graphqlData('{ tasks(pageSize: 1) { totalElements } }', {}, member.key));
    expect(graphql.map((s) => s.text).join('\n')).toMatch(/live_row_count/);
    const filtered = await server.recordQueries(() =>
      server.request('GET', `/api/tasks?pageSize=1&filter=${encodeURIComponent('priority=ge=0')}`, { key: member.key }),
    );
    expect(filtered.map((s) => s.text).join('\n')).not.toMatch(/live_row_count/);
  });

  it('stay equal to the rows over any sequence of writes (property)', async () => {
    const project = (await rest(member, 'POST', '/api/projects', 201, { name: unique('Property'), organizationId: memberOrganization })).id;
    const live: string[] = [];
    const write = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), many: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('deleteProject' as const), many: fc.integer({ min: 1, max: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 6 }), async (writes) => {
        for (const step of writes) {
          if (step.kind === 'create') live.push(...(await Promise.all(Array.from({ length: step.many }, () => createTask(project, member.key)))));
          else if (step.kind === 'delete' && live.length) await rest(member, 'DELETE', `/api/tasks/${live.splice(step.pick % live.length, 1)[0]}`, 204);
          else if (step.kind === 'deleteProject') {
            const doomed = (await rest(member, 'POST', '/api/projects', 201, { name: unique('Doomed'), organizationId: memberOrganization })).id;
            await Promise.all(Array.from({ length: step.many }, () => createTask(doomed, member.key)));
            await rest(member, 'DELETE', `/api/projects/${doomed}`, 204);
          }
        }
        const memberTotals = await totals('tasks', member.key);
        expect(memberTotals.kept).toBe(memberTotals.counted);
        const data = await server.graphqlData('{ tasks(pageSize: 1) { totalElements } }', {}, member.key);
        expect(data.tasks.totalElements).toBe(memberTotals.counted);
        expect(await countsApart()).toEqual([]);
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
