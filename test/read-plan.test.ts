import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { byResolvers } from './support/resolvers';
import { startServer, unique, type TestServer } from './support/server';

/**
 * One plan per read: every way of answering a read (the statement in which the database writes the
 * answer, the resolvers, REST) takes the same checked plan, so they agree byte for byte, refuse the same
 * arguments with the same message, and the database path never sends a statement that fails.
 */
let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let owner: Caller;
let admin: Caller;
const ids = {} as Record<'organization' | 'project' | 'task' | 'farTask' | 'team' | 'channel' | 'execution', string>;

beforeAll(async () => {
  server = await startServer();
  admin = { id: '', key: server.adminKey };
  owner = await newCaller('PlanOwner');
  const colleague = await newCaller('PlanColleague');
  const organization = await rest(owner, 'POST', '/api/organizations', 201, { name: unique('Plan') });
  ids.organization = organization.id;
  ids.project = (await rest(owner, 'POST', '/api/projects', 201, { organizationId: organization.id, name: unique('plan-p') })).id;
  ids.task = (await rest(owner, 'POST', '/api/tasks', 201, { projectId: ids.project, title: 'near', dueDate: '2031-02-03T04:05:06.789Z' })).id;
  ids.farTask = (await rest(owner, 'POST', '/api/tasks', 201, { projectId: ids.project, title: 'far', dueDate: '9999-12-31T23:59:59-05:00' })).id;
  ids.team = (await rest(owner, 'POST', '/api/teams', 201, { name: unique('Plan team'), organizationId: organization.id })).id;
  for (const user of [owner, colleague]) await rest(owner, 'POST', '/api/team-members', 201, { teamId: ids.team, userId: user.id });
  ids.channel = (await rest(owner, 'POST', '/api/channels', 201, { projectId: ids.project, name: unique('plan-c') })).id;
  for (const content of ['one', 'two']) await rest(owner, 'POST', '/api/messages', 201, { channelId: ids.channel, role: 'USER', content });
  ids.execution = (await rest(owner, 'POST', '/api/executions', 201, { organizationId: organization.id })).id;
  for (const name of ['OCR', 'Split']) await rest(owner, 'POST', '/api/step-executions', 201, { executionId: ids.execution, name, stepType: 'MODULE' });
});
afterAll(() => server.close());

/** The GraphQL answer's bytes as `caller` sends `query`, and how many statements that took. */
async function answered(query: string, caller: Caller): Promise<{ status: number; text: string; statements: number }> {
  await server.graphqlData('{ me { id } }', undefined, caller.key);
  let answer!: Awaited<ReturnType<TestServer['graphql']>>;
  const statements = await server.fewestQueries(async () => {
    answer = await server.graphql(query, {}, caller.key);
  });
  return { status: answer.status, text: answer.text, statements: statements.length };
}

/** `query` answered by the database (one statement, none failing) and by the resolvers, in the same bytes. */
async function agreeing(query: string, caller: Caller): Promise<any> {
  const failures = server.failedStatements();
  const inSql = await answered(query, caller);
  expect(server.failedStatements(), `a statement failed for ${query}`).toBe(failures);
  expect(inSql.status, inSql.text).toBe(200);
  expect(JSON.parse(inSql.text).errors, inSql.text).toBeUndefined();
  expect(inSql.statements, query).toBe(1);
  const resolved = await answered(byResolvers(query), caller);
  expect(resolved.text, query).toBe(inSql.text);
  return JSON.parse(inSql.text).data;
}

describe('values', () => {
  it('writes a stored JSON value as the resolvers and REST do, byte for byte', async () => {
    // Members named by array indices come first in JavaScript, in numeric order ("01" and 4294967295 are not indices).
    const properties = {
      '2': 'two',
      'b, c': 'x: y, " z',
      '10': { '1': [], a: 1, '0': 'zero' },
      '01': 'not an index',
      '4294967295': 'nor this',
      list: [1, 2.5, { k: null, s: '\\, \\' }],
      empty: {},
      none: [],
      unicode: 'é😀\n\t',
      deep: { a: { b: [true, false] } },
    };
    const task = await rest(owner, 'POST', '/api/tasks', 201, { projectId: ids.project, title: 'json', properties });
    for (const caller of [owner, admin]) {
      const item = await agreeing(`{ task(id: "${task.id}") { properties } }`, caller);
      expect(item.task.properties).toEqual(properties);
      await agreeing(`{ project(id: "${ids.project}") { tasks(filter: "title==json") { content { properties title } } } }`, caller);
    }
    const read = await server.request('GET', `/api/tasks/${task.id}`, { key: owner.key });
    const graphql = await server.graphql(`{ task(id: "${task.id}") { properties } }`, {}, owner.key);
    expect(read.text).toContain(`"properties":${JSON.stringify(read.body.properties)}`);
    expect(graphql.text).toContain(`"properties":${JSON.stringify(read.body.properties)}`);
  });

  it('writes a time past the year 9999 as ECMAScript does, on every path', async () => {
    const expected = '+010000-01-01T04:59:59.000Z';
    expect(new Date(expected).toISOString()).toBe(expected);
    for (const caller of [owner, admin]) {
      const item = await agreeing(`{ task(id: "${ids.farTask}") { id dueDate } }`, caller);
      expect(item.task.dueDate).toBe(expected);
      const page = await agreeing(`{ tasks(filter: "projectId==${ids.project};title=in=(near,far)", sort: "title") { content { title dueDate } } }`, caller);
      expect(page.tasks.content.map((t: { dueDate: string }) => t.dueDate)).toEqual([expected, '2031-02-03T04:05:06.789Z']);
      const nested = await agreeing(`{ project(id: "${ids.project}") { tasks(sort: "title") { content { dueDate project { id } } } } }`, caller);
      expect(nested.project.tasks.content[0].dueDate).toBe(expected);
    }
    expect((await rest(owner, 'GET', `/api/tasks/${ids.farTask}`, 200)).dueDate).toBe(expected);
    const listed = await rest(owner, 'GET', `/api/tasks?filter=${encodeURIComponent(`id==${ids.farTask}`)}`, 200);
    expect(listed.content[0].dueDate).toBe(expected);
  });
});

describe('early years', () => {
  it.each(['0000-06-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z', '0099-12-31T23:59:59.999Z'])('keeps %s as written, on every path', async (dueDate) => {
    const task = await rest(owner, 'POST', '/api/tasks', 201, { projectId: ids.project, title: `early ${dueDate}`, dueDate });
    expect(task.dueDate).toBe(dueDate);
    expect((await rest(owner, 'GET', `/api/tasks/${task.id}`, 200)).dueDate).toBe(dueDate);
    const item = await agreeing(`{ task(id: "${task.id}") { dueDate } }`, owner);
    expect(item.task.dueDate).toBe(dueDate);
    const listed = await rest(owner, 'GET', `/api/tasks?filter=${encodeURIComponent(`id==${task.id}`)}`, 200);
    expect(listed.content[0].dueDate).toBe(dueDate);
    await rest(owner, 'DELETE', `/api/tasks/${task.id}`, 204);
  });
});

describe('arguments', () => {
  const refused = [
    ['tasks', 'deleted=isnull=maybe'],
    ['tasks', 'changeSequence==1.5'],
    ['tasks', "id=='not-a-uuid'"],
    ['tasks', 'priority=like=1'],
    ['tasks', 'priority==(1,2)'],
    ['executions', 'status==NOT_A_STATUS'],
    ['document-families', 'deleted=isnull=maybe'],
  ] as const;
  const listName = (path: string) => path.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

  it.each(refused)('refuses %s?filter=%s with the same 400 on REST and on GraphQL, whatever the page selects', async (path, filter) => {
    const restAnswer = await server.request('GET', `/api/${path}?filter=${encodeURIComponent(filter)}`, { key: owner.key });
    expect(restAnswer.status, restAnswer.text).toBe(400);
    const message = restAnswer.body.message as string;
    const list = listName(path);
    const selections = ['first', 'number size', '__typename', 'totalElements', 'content { id }'];
    for (const selection of selections) {
      for (const query of [
        `{ ${list}(filter: ${JSON.stringify(filter)}) { ${selection} } }`,
        `{ organization(id: "${ids.organization}") { id } ${list}(filter: ${JSON.stringify(filter)}) { ${selection} } }`,
      ]) {
        for (const asked of [query, byResolvers(query)]) {
          const answer = await server.graphql(asked, {}, owner.key);
          expect(answer.body.errors?.[0]?.message, `${asked}: ${answer.text}`).toBe(message);
          expect(answer.body.errors[0].extensions.code, asked).toBe('BAD_REQUEST');
        }
      }
    }
  });

  it('refuses a bad filter of a nested page that selects neither rows nor a count', async () => {
    const restAnswer = await server.request('GET', `/api/tasks?filter=${encodeURIComponent('changeSequence==1.5')}`, { key: owner.key });
    for (const selection of ['first', 'size', 'content { id }']) {
      const query = `{ project(id: "${ids.project}") { id tasks(filter: "changeSequence==1.5") { ${selection} } } }`;
      for (const asked of [query, byResolvers(query)]) {
        const answer = await server.graphql(asked, {}, owner.key);
        expect(answer.body.errors?.[0]?.message, `${asked}: ${answer.text}`).toBe(restAnswer.body.message);
      }
    }
  });
});

describe('shapes the database path answers in one statement', () => {
  const cases: [string, () => string][] = [
    ['a nested page sorted through a reference', () => `{ team(id: "${ids.team}") { members(sort: "team.slug:desc") { totalElements content { id } } } }`],
    ['a nested page sorted through two references', () => `{ team(id: "${ids.team}") { members(sort: "team.organization.name") { content { id userId } } } }`],
    [
      "a channel's messages with a counted summary",
      () => `{ channel(id: "${ids.channel}") { messages(sort: "content") { totalElements last content { content } } } }`,
    ],
    [
      "a channel's messages filtered through a reference",
      () => `{ channel(id: "${ids.channel}") { messages(filter: "user.id=isnull=true,channel.name=like=plan*") { totalElements content { content } } } }`,
    ],
    [
      'messages filtered through a reference, at the root',
      () => `{ messages(filter: "channel.id==${ids.channel};user.id=isnull=true") { totalElements content { content } } }`,
    ],
    [
      'steps filtered through their execution',
      () => `{ execution(id: "${ids.execution}") { steps(filter: "execution.status==PENDING", sort: "name") { totalElements content { name } } } }`,
    ],
    [
      'a filter through two references at depth 2',
      () =>
        `{ organization(id: "${ids.organization}") { executions { content { steps(filter: "execution.organization.name=like=Plan*", sort: "name") { totalElements content { name } } } } } }`,
    ],
    [
      'a sort through a reference at depth 2',
      () => `{ organization(id: "${ids.organization}") { teams { content { members(sort: "team.name:desc") { totalElements content { id } } } } } }`,
    ],
  ];
  for (const [name, query] of cases) {
    it(`answers ${name} as the resolvers do (member and administrator)`, async () => {
      for (const caller of [owner, admin]) await agreeing(query(), caller);
    });
  }
});

describe('REST answers the database writes', () => {
  /** The resolvers' answer to the same fields, written as REST writes a presented value. */
  async function resolvedText(query: string): Promise<any> {
    const answer = await server.graphql(byResolvers(query), {}, owner.key);
    expect(answer.body.errors, answer.text).toBeUndefined();
    return answer.body.data;
  }

  it('writes a task and a page of tasks in the bytes the resolvers give the same fields', async () => {
    const read = await server.request('GET', `/api/tasks/${ids.farTask}`, { key: owner.key });
    expect(read.status, read.text).toBe(200);
    expect(read.headers.get('etag')).toBe(`"${ids.farTask}.${read.body.changeSequence}"`);
    const fields = Object.keys(read.body);
    const item = await resolvedText(`{ task(id: "${ids.farTask}") { ${fields.join(' ')} } }`);
    expect(read.text).toBe(JSON.stringify(item.task));

    const filter = `projectId==${ids.project}`;
    const listed = await server.request('GET', `/api/tasks?pageSize=2&page=1&sort=title:desc&filter=${encodeURIComponent(filter)}`, { key: owner.key });
    expect(listed.status, listed.text).toBe(200);
    const page = await resolvedText(
      `{ tasks(pageSize: 2, page: 1, sort: "title:desc", filter: ${JSON.stringify(filter)}) { content { ${fields.join(' ')} } totalElements totalPages number size numberOfElements first last } }`,
    );
    const sort = { empty: false, sorted: true, unsorted: false };
    const pageable = { offset: 2, pageNumber: 1, pageSize: 2, paged: true, unpaged: false, sort };
    expect(listed.text).toBe(JSON.stringify({ ...page.tasks, pageable, sort }));
  });

  it('tags a page with a weak ETag over its bytes, and answers 304 until a row changes', async () => {
    const path = `/api/tasks?filter=${encodeURIComponent(`projectId==${ids.project}`)}`;
    const first = await server.request('GET', path, { key: owner.key });
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^W\/"/);
    const again = await server.request('GET', path, { key: owner.key, headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    await rest(owner, 'PUT', `/api/tasks/${ids.task}`, 200, { title: 'near, renamed' });
    const changed = await server.request('GET', path, { key: owner.key, headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  it('refuses an item the caller may not read in the same statement: 404 absent, 403 not theirs, 400 malformed', async () => {
    const stranger = await newCaller('PlanStranger');
    for (const [path, status, caller] of [
      [`/api/tasks/${ids.task}`, 403, stranger],
      [`/api/tasks/00000000-0000-4000-8000-000000000000`, 404, owner],
      [`/api/tasks/not-a-uuid`, 400, owner],
    ] as const) {
      await server.request('GET', path, { key: caller.key });
      const recorded = await server.fewestQueries(async () => {
        const answer = await server.request('GET', path, { key: caller.key });
        expect(answer.status, answer.text).toBe(status);
      });
      expect(recorded.length, path).toBeLessThanOrEqual(1);
    }
  });
});
