import 'reflect-metadata';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
const { newCaller, rest, measured } = callersOf(() => server);
let prefix: string;
let admin: Caller;
let member: Caller;
let memberPrefix: string;

beforeAll(async () => {
  server = await startServer();
  prefix = unique('SqlAnswer');
  memberPrefix = `${prefix}-m`;
  admin = { id: '', key: server.adminKey };
  member = await newCaller('SqlAnswerMember');
  await seedOrganization(null, `${prefix}-a`, [3, 0, 5]);
  await seedOrganization(null, `${prefix}-b`, [2, 4]);
  await seedOrganization(member, `${memberPrefix}-c`, [2, 1]);
});
afterAll(() => server.close());

/** An organization with a project per entry of `tasksPerProject`; every third task and the last project deleted. */
async function seedOrganization(owner: Caller | null, name: string, tasksPerProject: number[]): Promise<void> {
  const organization = await rest(owner, 'POST', '/api/organizations', 201, { name, description: `Line one\nline "two" \u0001 é 😀` });
  for (const [p, count] of tasksPerProject.entries()) {
    const project = await rest(owner, 'POST', '/api/projects', 201, {
      organizationId: organization.id,
      name: `${name}-p${p}`,
      color: p % 2 ? '#ff0000' : '',
      ...(owner && p === 0 ? { ownerId: owner.id } : {}),
    });
    for (let t = 0; t < count; t++) {
      const task = await rest(owner, 'POST', '/api/tasks', 201, {
        projectId: project.id,
        title: `t${t} ${'ß'.repeat(t)}`,
        priority: (t * 7) % 5,
        dueDate: t % 2 ? `2031-0${(t % 9) + 1}-1${t % 10}T0${t % 10}:15:30.${String(t * 111).padStart(3, '0')}Z` : null,
        properties: { n: t, ratio: t / 3, tags: ['x', t], nested: { empty: null } },
      });
      if (t % 3 === 2) await rest(owner, 'DELETE', `/api/tasks/${task.id}`, 204);
    }
    if (p === tasksPerProject.length - 1 && p > 0) await rest(owner, 'DELETE', `/api/projects/${project.id}`, 204);
  }
}

/** The same query answered by the resolvers: a directive sends any query to them. */
const byResolvers = (query: string) => query.replace(/organizations\(([^)]*)\)/, 'organizations($1) @include(if: true)');

/** A query answered both ways, as `caller`: the database's answer, its statements, and the resolvers'. */
async function bothWays(query: string, caller: Caller, variables: Record<string, unknown> = {}) {
  const inSql = await measured(query, variables, caller.key);
  const resolved = await measured(byResolvers(query), variables, caller.key);
  return { inSql: inSql.data, statements: inSql.statements, resolved: resolved.data, resolverStatements: resolved.statements };
}

const byPrefix = (p: string) => `name=like='${p}-*'`;

const ORGANIZATION = 'id uuid name slug description createdOn updatedOn changeSequence archived publicAccess properties features __typename';
const PROJECT = 'id name slug color organizationId createdOn deleted description';
const TASK = 'id title description priority dueDate createdOn properties documentFamilyIds statusSlug assigneeId locked';
const SUMMARY = 'totalElements totalPages number size numberOfElements first last';

describe('nested reads answered by the database in one statement', () => {
  it('answers organizations → projects → tasks in one statement, the same as the resolvers field by field', async () => {
    const query = `query($filter: String!) { organizations(filter: $filter, sort: "name:asc") { ${SUMMARY} __typename content { ${ORGANIZATION}
      projects(pageSize: 10) { ${SUMMARY} content { ${PROJECT} tasks(pageSize: 10, sort: "priority:desc") { ${SUMMARY} content { ${TASK} } } } } } } }`;
    const answer = await bothWays(query, admin, { filter: byPrefix(prefix) });
    expect(answer.statements).toBe(1);
    expect(answer.resolverStatements).toBeGreaterThanOrEqual(3);
    expect(answer.inSql).toEqual(answer.resolved);
    const organizations = answer.inSql.organizations;
    expect(organizations.content.map((o: any) => o.name)).toEqual([`${prefix}-a`, `${prefix}-b`, `${prefix}-m-c`]);
    // Deleted projects and tasks are absent, and counted out.
    expect(organizations.content[0].projects.totalElements).toBe(2);
    expect(organizations.content[1].projects.totalElements).toBe(1);
    expect(organizations.content[0].projects.content[0].tasks.totalElements).toBe(2);
    expect(organizations.content[1].projects.content[0].tasks.totalElements).toBe(2);
    const due = organizations.content[0].projects.content[0].tasks.content.map((t: any) => t.dueDate).filter(Boolean);
    expect(due[0]).toMatch(/^2031-\d\d-\d\dT\d\d:15:30\.\d{3}Z$/);
  });

  it('costs one statement whatever the number of rows', async () => {
    const query = (size: number) =>
      `query($filter: String!) { organizations(filter: $filter, pageSize: ${size}) { content { id projects(pageSize: ${size}) { content { id tasks(pageSize: ${size}) { content { id } } } } } } }`;
    const small = await measured(query(1), { filter: byPrefix(prefix) }, admin.key);
    const large = await measured(query(10), { filter: byPrefix(prefix) }, admin.key);
    expect(small.statements).toBe(1);
    expect(large.statements).toBe(1);
    expect(JSON.stringify(large.data).length).toBeGreaterThan(JSON.stringify(small.data).length);
  });

  it('keeps a member to their own organizations, as the resolvers do', async () => {
    const query = `query($filter: String!) { organizations(filter: $filter) { totalElements content { name projects { totalElements content { name tasks { totalElements content { title } } } } } } }`;
    const answer = await bothWays(query, member, { filter: byPrefix(prefix) });
    expect(answer.statements).toBe(1);
    expect(answer.inSql).toEqual(answer.resolved);
    expect(answer.inSql.organizations.content.map((o: any) => o.name)).toEqual([`${memberPrefix}-c`]);
  });

  it('answers aliases, fragments and __typename in the order asked', async () => {
    const query = `query($filter: String!) { organizations(filter: $filter) { ...Summary content { label: name ... on Organization { id } first: projects(pageSize: 1) { n: totalElements content { __typename name } } all: projects { totalElements } } } }
      fragment Summary on OrganizationPage { count: totalElements last }`;
    const response = await server.graphql(query, { filter: byPrefix(prefix) }, admin.key);
    expect(response.status).toBe(200);
    const resolved = await server.graphql(byResolvers(query), { filter: byPrefix(prefix) }, admin.key);
    expect(response.text).toBe(resolved.text);
    expect(Object.keys(response.body.data.organizations)).toEqual(['count', 'last', 'content']);
    expect(Object.keys(response.body.data.organizations.content[0])).toEqual(['label', 'id', 'first', 'all']);
  });

  it("answers references in the same statement, null where the row is not the caller's", async () => {
    const query = `query($filter: String!) { organizations(filter: $filter) { content { projects { content { name organization { name projects { totalElements } } owner { id firstName bio } tasks { content { title project { name organization { slug } } } } } } } } }`;
    const asAdmin = await bothWays(query, admin, { filter: byPrefix(memberPrefix) });
    expect(asAdmin.statements).toBe(1);
    expect(asAdmin.inSql).toEqual(asAdmin.resolved);
    const project = asAdmin.inSql.organizations.content[0].projects.content[0];
    expect(project.organization).toEqual({ name: `${memberPrefix}-c`, projects: { totalElements: 1 } });
    expect(project.owner.id).toBe(member.id);
    expect(project.tasks.content[0].project.name).toBe(project.name);
  });

  it('leaves to the resolvers what it does not answer: directives, users read by a member', async () => {
    const owner = await bothWays(
      `query($filter: String!) { organizations(filter: $filter) { content { projects { content { name owner { id firstName bio } } } } } }`,
      member,
      { filter: byPrefix(memberPrefix) },
    );
    expect(owner.statements).toBeGreaterThan(1);
    expect(owner.inSql).toEqual(owner.resolved);
    const users = await bothWays(`{ organizations(pageSize: 1) { totalElements } users(pageSize: 100) { content { id firstName bio } } }`, member);
    expect(users.statements).toBeGreaterThan(1);
    expect(users.inSql).toEqual(users.resolved);
  });

  it('answers an item with its references and pages in one statement; the resolvers answer one the caller may not read', async () => {
    const [own] = (await rest(member, 'GET', `/api/organizations?filter=${encodeURIComponent(byPrefix(memberPrefix))}`, 200)).content;
    const [other] = (await rest(null, 'GET', `/api/organizations?filter=${encodeURIComponent(`name=='${prefix}-a'`)}`, 200)).content;
    const query = `query($id: ID!) { organization(id: $id) { name projects { totalElements content { name organization { slug } tasks(sort: "title:desc") { content { title dueDate } } } } } }`;
    const byResolversItem = (q: string) => q.replace('organization(id: $id)', 'organization(id: $id) @include(if: true)');
    const mine = await measured(query, { id: own.id }, member.key);
    expect(mine.statements).toBe(1);
    expect(mine.data).toEqual((await measured(byResolversItem(query), { id: own.id }, member.key)).data);
    expect(mine.data.organization.projects.content[0].organization.slug).toBe(own.slug);
    for (const id of [other.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const answer = await server.graphql(query, { id }, member.key);
      const resolved = await server.graphql(byResolversItem(query), { id }, member.key);
      expect(answer.status, answer.text).toBe(resolved.status);
      expect(answer.body).toEqual(resolved.body);
    }
    expect((await server.graphql(query, { id: other.id }, member.key)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await server.graphql(query, { id: '00000000-0000-4000-8000-000000000000' }, member.key)).body.data).toEqual({ organization: null });
  });

  it('refuses bad arguments as the resolvers word them (400, the field named)', async () => {
    for (const query of [
      `{ organizations(filter: "name=oops=") { totalElements } }`,
      `{ organizations { content { projects(sort: "nope:asc") { totalElements } } } }`,
      `{ organizations(pageSize: 100000) { totalElements } }`,
    ]) {
      const answer = await server.graphql(query, {}, admin.key);
      const resolved = await server.graphql(byResolvers(query), {}, admin.key);
      expect(answer.status, answer.text).toBe(resolved.status);
      expect(answer.body.errors?.[0]?.extensions?.code, answer.text).toBe('BAD_REQUEST');
      expect(answer.body).toEqual(resolved.body);
    }
  });

  it('answers every generated selection, page and order as the resolvers do (property)', async () => {
    const subset = (fields: string) => fc.subarray(fields.split(' '), { minLength: 1 }).map((picked) => picked.join(' '));
    const pageArgs = (sorts: string[]) =>
      fc
        .record({ page: fc.integer({ min: 0, max: 2 }), pageSize: fc.integer({ min: 1, max: 4 }), sort: fc.constantFrom(...sorts) })
        .map(({ page, pageSize, sort }) => `page: ${page}, pageSize: ${pageSize}, sort: "${sort}"`);
    const references = (...choices: string[]) => fc.subarray(choices).map((picked) => picked.join(' '));
    const tasks = fc
      .record({
        args: pageArgs(['createdOn:asc', 'priority:desc;title:asc', 'dueDate:desc']),
        summary: subset(SUMMARY),
        fields: subset(TASK),
        references: references('project { name organizationId organization { slug } }', 'parentTask { id }'),
      })
      .map(({ args, summary, fields, references }) => `tasks(${args}) { ${summary} content { ${fields} ${references} } }`);
    const projects = fc
      .record({
        args: pageArgs(['name:asc', 'createdOn:desc']),
        summary: subset(SUMMARY),
        fields: subset(PROJECT),
        tasks: fc.option(tasks),
        references: references('organization { name projects(pageSize: 1) { totalElements content { name } } }', 'owner { id firstName }'),
      })
      .map(({ args, summary, fields, tasks, references }) => `projects(${args}) { ${summary} content { ${fields} ${tasks ?? ''} ${references} } }`);
    const organizations = fc
      .record({ args: pageArgs(['name:asc', 'name:desc']), summary: subset(SUMMARY), fields: subset(ORGANIZATION), projects: fc.option(projects) })
      .map(({ args, summary, fields, projects }) => `organizations(filter: $filter, ${args}) { ${summary} content { ${fields} ${projects ?? ''} } }`);
    await fc.assert(
      fc.asyncProperty(organizations, fc.constantFrom(admin, member), async (selection, caller) => {
        const answer = await bothWays(`query($filter: String!) { ${selection} }`, caller, { filter: byPrefix(prefix) });
        // A member reading users is answered by the resolvers (other users' profiles are reduced).
        expect(answer.statements === 1, selection).toBe(caller === admin || !selection.includes('owner {'));
        expect(answer.inSql).toEqual(answer.resolved);
      }),
      { numRuns: 40 },
    );
  });
});
