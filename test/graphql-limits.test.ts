import 'reflect-metadata';
import { getIntrospectionQuery } from 'graphql';
import type * as QueryComplexity from 'graphql-query-complexity';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_QUERY_COST, MAX_QUERY_DEPTH, MAX_QUERY_SELECTIONS, MAX_SELECTION_NESTING } from '../src/graphql/limits';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/** While set, the cost estimator fails as it did on hostile documents (out of stack); otherwise it is the real one. */
const estimator = vi.hoisted(() => ({ failing: false }));
vi.mock('graphql-query-complexity', async (importOriginal) => {
  const real = await importOriginal<typeof QueryComplexity>();
  return {
    ...real,
    getComplexity: (options: Parameters<typeof real.getComplexity>[0]) => {
      if (estimator.failing) throw new RangeError('Maximum call stack size exceeded');
      return real.getComplexity(options);
    },
  };
});

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** A GraphQL refusal as a client error: HTTP 400, one error, BAD_REQUEST/400, no data. */
function expectBadRequest(answer: Answer<{ data?: any; errors?: any[] }>): string {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.data ?? undefined, answer.text).toBeUndefined();
  expect(answer.body.errors, answer.text).toHaveLength(1);
  const [error] = answer.body.errors!;
  expect(error.extensions, answer.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  expect(typeof error.message).toBe('string');
  return error.message;
}

function expectData(answer: Answer<{ data?: any; errors?: any[] }>): any {
  expect(answer.body.errors, answer.text).toBeUndefined();
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data;
}

/** The numbers a message names. */
const numbersIn = (message: string) => [...message.matchAll(/\d[\d,_]*/g)].map((m) => Number(m[0].replace(/[,_]/g, '')));

/** Organizations named `name`, read as the administrator. */
async function organizationsNamed(name: string): Promise<number> {
  const data = expectData(await server.graphql(`query($filter: String!) { organizations(filter: $filter) { totalElements } }`, { filter: `name=='${name}'` }));
  return data.organizations.totalElements;
}

/**
 * A selection under an Organization that is `levels` fields deep counting the Organization's own field
 * (`projects`, `content`, `organization`, ... repeated), with one-row pages so that its cost stays small.
 */
function organizationChain(levels: number): string {
  const cycle = ['projects(pageSize: 1)', 'content', 'organization'];
  const fields = Array.from({ length: levels - 1 }, (_, i) => cycle[i % cycle.length]);
  // A page's own fields are scalars too: end on a scalar that exists on the last type.
  const last = fields.length === 0 ? 'organization' : fields[fields.length - 1];
  const leaf = last.startsWith('projects') ? 'totalElements' : 'id';
  return fields.reduceRight((inner, field) => `${field} { ${inner} }`, leaf);
}

/** A query whose deepest field is `levels` fields below the operation (the root field counts as one). */
function queryOfDepth(levels: number): string {
  return `query($filter: String!) { organizations(filter: $filter, pageSize: 1) { content { ${organizationChain(levels - 2)} } } }`;
}

describe('depth limit', () => {
  let name: string;
  let filter: string;
  beforeAll(async () => {
    name = unique('DepthOrg');
    filter = `name=='${name}'`;
    const org = await createOrganization(server, { name });
    const project = await createProject(server, org.id);
    await createTask(server, project.id);
  });

  it('answers a query within the depth limit', async () => {
    const data = expectData(await server.graphql(queryOfDepth(MAX_QUERY_DEPTH), { filter }));
    expect(data.organizations).toBeDefined();
  });

  it(`refuses a query deeper than MAX_QUERY_DEPTH (${MAX_QUERY_DEPTH}) with BAD_REQUEST/400`, async () => {
    const message = expectBadRequest(await server.graphql(queryOfDepth(MAX_QUERY_DEPTH + 2), { filter }));
    expect(message).toMatch(/depth/i);
  });

  it('refuses a deep query hidden in fragments', async () => {
    const chain = organizationChain(MAX_QUERY_DEPTH + 2);
    const query = `query { organizations(pageSize: 1) { content { ...Deep } } }
      fragment Deep on Organization { ...Deeper }
      fragment Deeper on Organization { ${chain} }`;
    expectBadRequest(await server.graphql(query));
  });

  it('refuses a too deep mutation before it runs: nothing is created', async () => {
    const created = unique('DeepMutation');
    const answer = await server.graphql(`mutation { createOrganization(input: { name: "${created}" }) { ${organizationChain(MAX_QUERY_DEPTH + 2)} } }`);
    expectBadRequest(answer);
    expect(await organizationsNamed(created)).toBe(0);

    // The same mutation with a shallow selection does create it (the check above can fail).
    expectData(await server.graphql(`mutation { createOrganization(input: { name: "${created}" }) { id } }`));
    expect(await organizationsNamed(created)).toBe(1);
  });
});

/** pageSize at three nested levels: organizations → projects → tasks. */
const threeLevels = (size: string, taskFields = 'id') => `organizations(pageSize: ${size}) {
  content { id projects(pageSize: ${size}) { content { id tasks(pageSize: ${size}) { content { ${taskFields} } } } } }
}`;

describe('cost limit', () => {
  it('refuses pageSize 100 at three nested levels with BAD_REQUEST/400 and a message naming the cost', async () => {
    const message = expectBadRequest(await server.graphql(`query { ${threeLevels('100')} }`));
    expect(message).toMatch(/cost/i);
    expect(
      numbersIn(message).some((n) => n > MAX_QUERY_COST),
      message,
    ).toBe(true);
  });

  it('refuses an expensive mutation before it runs: nothing is created', async () => {
    const created = unique('CostlyMutation');
    const answer = await server.graphql(`mutation { createOrganization(input: { name: "${created}" }) {
      id projects(pageSize: 100) { content { id tasks(pageSize: 100) { content { id title description } } } }
    } }`);
    const message = expectBadRequest(answer);
    expect(message).toMatch(/cost/i);
    expect(await organizationsNamed(created)).toBe(0);
  });

  it('counts every alias of a field', async () => {
    const copies = Math.ceil(MAX_QUERY_COST / 100) + 10;
    const wide = Array.from({ length: copies }, (_, i) => `o${i}: organizations(pageSize: 100) { content { id } }`).join('\n');
    const message = expectBadRequest(await server.graphql(`query { ${wide} }`));
    expect(message).toMatch(/cost/i);
    // A few copies are fine.
    expectData(await server.graphql(`query { ${Array.from({ length: 3 }, (_, i) => `o${i}: organizations(pageSize: 100) { content { id } }`).join('\n')} }`));
  });

  it('counts selections inside fragments', async () => {
    const query = `query { organizations(pageSize: 100) { ...OrgFields } }
      fragment OrgFields on OrganizationPage { content { id projects(pageSize: 100) { content { ...ProjectFields } } } }
      fragment ProjectFields on Project { id tasks(pageSize: 100) { content { id } } }`;
    expect(expectBadRequest(await server.graphql(query))).toMatch(/cost/i);
  });

  it('takes pageSize from variables', async () => {
    const query = `query($size: Int) { ${threeLevels('$size')} }`;
    const message = expectBadRequest(await server.graphql(query, { size: 100 }));
    expect(message).toMatch(/cost/i);
    expect(
      numbersIn(message).some((n) => n > MAX_QUERY_COST),
      message,
    ).toBe(true);
    // The same document with small pages passes.
    expectData(await server.graphql(query, { size: 5 }));
  });

  it("takes pageSize from a variable's default value", async () => {
    const expensive = `query($size: Int = 100) { ${threeLevels('$size')} }`;
    expect(expectBadRequest(await server.graphql(expensive))).toMatch(/cost/i);
    const cheap = `query($size: Int = 5) { ${threeLevels('$size')} }`;
    expectData(await server.graphql(cheap));
    // An explicit variable wins over the default.
    expect(expectBadRequest(await server.graphql(cheap, { size: 100 }))).toMatch(/cost/i);
  });
});

/** `count` aliases of `__typename`: selections that cost 1 each and read nothing. */
const typenames = (count: number) => Array.from({ length: count }, (_, i) => `a${i}: __typename`).join(' ');

/** An operation that spreads F0, which spreads F1 ... up to F`links`, which reads `me { id }`. */
function fragmentChain(links: number): string {
  const chain = Array.from({ length: links }, (_, i) => `fragment F${i} on Query { ...F${i + 1} }`).join(' ');
  return `{ ...F0 } ${chain} fragment F${links} on Query { me { id } }`;
}

describe('operations too large to estimate', () => {
  /** The refused page reads of `threeLevels('100')`, padded past what the estimator can count (it gave up, and the query ran). */
  // Past the selection limit, within the document's token limit (three tokens a selection).
  const padded = `query { ${threeLevels('100')} ${typenames(6_000)} }`;

  it('refuses an expensive query padded with 6,000 selections with BAD_REQUEST/400, and reads nothing', async () => {
    await server.graphql('{ me { id } }');
    let answer: Answer | undefined;
    const statements = await server.recordQueries(async () => {
      answer = await server.graphql(padded);
    });
    const message = expectBadRequest(answer!);
    expect(message).toMatch(/too large to estimate its cost/);
    expect(numbersIn(message)).toContain(MAX_QUERY_SELECTIONS);
    // Nothing but the credentials was looked up (and those only when another suite's write dropped them from the cache).
    expect(statements.filter((s) => !/\b(access_token|platform_user)\b/.test(s.text))).toEqual([]);
  });

  it(`accepts up to MAX_QUERY_SELECTIONS (${MAX_QUERY_SELECTIONS}) selections, fragments expanded, and refuses one more`, async () => {
    // me and id are two selections; so is each spread of a fragment of one field.
    const atLimit = expectData(await server.graphql(`{ me { id } ${typenames(MAX_QUERY_SELECTIONS - 2)} }`));
    expect(Object.keys(atLimit)).toHaveLength(MAX_QUERY_SELECTIONS - 1);
    expectBadRequest(await server.graphql(`{ me { id } ${typenames(MAX_QUERY_SELECTIONS - 1)} }`));
    const half = MAX_QUERY_SELECTIONS / 2;
    const spreadTwice = (count: number) => `{ ...T ...T } fragment T on Query { ${typenames(count)} }`;
    expectData(await server.graphql(spreadTwice(half - 1)));
    expect(expectBadRequest(await server.graphql(spreadTwice(half)))).toMatch(/too large to estimate its cost/);
  });

  it(`accepts fragments nested up to MAX_SELECTION_NESTING (${MAX_SELECTION_NESTING}) levels, and refuses deeper chains`, async () => {
    // The spreads of F0 ... F(links) are links + 1 levels; me and id two more.
    const data = expectData(await server.graphql(fragmentChain(MAX_SELECTION_NESTING - 3)));
    expect(data.me.id).toEqual(expect.any(String));
    const message = expectBadRequest(await server.graphql(fragmentChain(MAX_SELECTION_NESTING - 2)));
    expect(message).toMatch(/too large to estimate its cost/);
    expect(numbersIn(message)).toContain(MAX_SELECTION_NESTING);
  });

  it('refuses the request when the estimator fails, and runs nothing', async () => {
    const created = unique('Unestimated');
    estimator.failing = true;
    let answer: Answer | undefined;
    try {
      answer = await server.graphql(`mutation { createOrganization(input: { name: "${created}" }) { id } }`);
    } finally {
      estimator.failing = false;
    }
    expect(expectBadRequest(answer!)).toMatch(/too large to estimate its cost/);
    expect(await organizationsNamed(created)).toBe(0);
  });

  it('leaves invalid variables and unknown operation names to graphql, before the size is measured', async () => {
    const query = `query Padded($size: Int!) { ${threeLevels('$size')} ${typenames(6_000)} }`;
    expect(expectBadRequest(await server.graphql(query, { size: 'many' }))).toMatch(/\$size/);
    const unknown = await server.request('POST', '/graphql', { body: { query, operationName: 'Other', variables: { size: 1 } } });
    expect(expectBadRequest(unknown)).toMatch(/Other/);
  });
});

describe('normal nested reads', () => {
  let name: string;
  let org: any;
  let projects: any[];
  let tasks: Map<string, any[]>;

  beforeAll(async () => {
    name = unique('NormalOrg');
    org = await createOrganization(server, { name });
    projects = [];
    tasks = new Map();
    for (let p = 0; p < 2; p++) {
      const project = await createProject(server, org.id, { name: `${name}-p${p}` });
      projects.push(project);
      const list = [];
      for (let t = 0; t < 3; t++) list.push(await createTask(server, project.id, { title: `t${t}` }));
      tasks.set(project.id, list);
    }
  });

  it('answers organizations(pageSize: 10) → projects → tasks with default page sizes', async () => {
    const data = expectData(
      await server.graphql(
        `query($filter: String!) {
          organizations(pageSize: 10, filter: $filter) {
            totalElements
            content { id name projects(sort: "name:asc") { totalElements content { id name tasks(sort: "title:asc") { totalElements content { id title projectId } } } } }
          }
        }`,
        { filter: `name=='${name}'` },
      ),
    );
    expect(data.organizations.totalElements).toBe(1);
    const [readOrg] = data.organizations.content;
    expect(readOrg).toMatchObject({ id: org.id, name });
    expect(readOrg.projects.content.map((p: any) => p.id)).toEqual(projects.map((p) => p.id));
    for (const project of readOrg.projects.content) {
      expect(project.tasks.totalElements).toBe(3);
      expect(project.tasks.content.map((t: any) => t.id)).toEqual(tasks.get(project.id)!.map((t) => t.id));
      expect(project.tasks.content.every((t: any) => t.projectId === project.id)).toBe(true);
    }
  });

  it('answers pageSize 10 at three levels with back-references', async () => {
    const data = expectData(
      await server.graphql(
        `query($filter: String!) {
          organizations(filter: $filter, pageSize: 10) {
            content { id name projects(pageSize: 10) { content { id name organization { id name }
              tasks(pageSize: 10) { content { id title project { id name organization { id name } } } } } } }
          }
        }`,
        { filter: `name=='${name}'` },
      ),
    );
    const tasksRead = data.organizations.content[0].projects.content.flatMap((p: any) => p.tasks.content);
    expect(tasksRead).toHaveLength(6);
    expect(tasksRead.every((t: any) => t.project.organization.id === org.id)).toBe(true);
  });

  it('answers the standard introspection query (what the explorer sends)', async () => {
    const data = expectData(await server.graphql(getIntrospectionQuery()));
    expect(data.__schema.queryType.name).toBe('Query');
  });
});

describe('invalid variables', () => {
  const query = `query($size: Int!) { ${threeLevels('$size')} }`;

  it('answer BAD_REQUEST/400 for a value of the wrong type', async () => {
    expectBadRequest(await server.graphql(query, { size: 'many' }));
  });

  it('answer BAD_REQUEST/400 for a missing required variable', async () => {
    expectBadRequest(await server.graphql(query, {}));
  });

  it('answer BAD_REQUEST/400 for a number out of the Int range', async () => {
    expectBadRequest(await server.graphql(query, { size: 2 ** 40 }));
  });

  it('answer BAD_REQUEST/400 for an object where a number is expected', async () => {
    expectBadRequest(await server.graphql(query, { size: { pageSize: 100 } }));
  });

  it('answer BAD_REQUEST/400 when the variables are not an object', async () => {
    const answer = await server.request('POST', '/graphql', { body: { query, variables: [100] } });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });

  it('do not reach a mutation: nothing is created', async () => {
    const created = unique('BadVariable');
    const answer = await server.graphql(
      `mutation($name: String!, $size: Int!) { createOrganization(input: { name: $name }) { id projects(pageSize: $size) { totalElements } } }`,
      {
        name: created,
        size: 'ten',
      },
    );
    expectBadRequest(answer);
    expect(await organizationsNamed(created)).toBe(0);
  });
});
