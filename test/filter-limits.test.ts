import 'reflect-metadata';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../src/config/config';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { openDatabase } from '../src/database/orm';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * The bounds of a filter (8192 bytes, 200 comparisons, parentheses 32 deep), refused with 400 before any
 * SQL on both faces, and the statement timeout every SQL statement runs under (503 with Retry-After).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const TOO_LONG = 'filter: is longer than the limit of 8192 bytes';
const TOO_MANY = 'filter: has more than the limit of 200 comparisons';
const TOO_DEEP = 'filter: nests parentheses deeper than the limit of 32';

/**
 * The filter as a query parameter, percent-encoding only what the query parser would read otherwise
 * (fetch encodes what a URL cannot hold): long filters stay under the request-line limit of Node's HTTP server.
 */
const queryValue = (filter: string) => filter.replace(/[%&+#\s]/g, (c) => encodeURIComponent(c));

function rest(path: string, filter: string): Promise<Answer> {
  return server.request('GET', `${path}?filter=${queryValue(filter)}&pageSize=100`);
}

const TASKS = `query($f: String) { tasks(filter: $f, pageSize: 100) { totalElements content { title } } }`;
const TASK_GROUPS = `query($f: String) { taskGroups(filter: $f, pageSize: 100) { totalElements content { name } } }`;

/** The number of rows a filter matches, through REST and GraphQL alike (both must answer it). */
async function matches(filter: string, resource: 'tasks' | 'task-groups' = 'tasks'): Promise<number> {
  const answer = await rest(`/api/${resource}`, filter);
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  const data = await server.graphqlData(resource === 'tasks' ? TASKS : TASK_GROUPS, { f: filter });
  const page = resource === 'tasks' ? data.tasks : data.taskGroups;
  expect(page.totalElements).toBe(answer.body.totalElements);
  return answer.body.totalElements;
}

function expectRestRefused(answer: Answer, message: string): void {
  expect(answer.status, answer.text.slice(0, 500)).toBe(400);
  expect(answer.body).toEqual({ error: 'Bad Request', message, status: 400, details: [{ field: 'filter', message: message.replace(/^filter: /, '') }] });
}

function expectGraphqlRefused(answer: Answer<{ data?: unknown; errors?: any[] }>, message: string): void {
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  expect(answer.body.errors, answer.text.slice(0, 500)).toHaveLength(1);
  expect(answer.body.errors![0]).toMatchObject({
    message,
    extensions: { code: 'BAD_REQUEST', status: 400, details: [{ field: 'filter', message: message.replace(/^filter: /, '') }] },
  });
}

/** Refused with `message` on both faces. */
async function expectRefused(filter: string, message: string, resource: 'tasks' | 'task-groups' = 'tasks'): Promise<void> {
  expectRestRefused(await rest(`/api/${resource}`, filter), message);
  expectGraphqlRefused(await server.graphql(resource === 'tasks' ? TASKS : TASK_GROUPS, { f: filter }), message);
}

const times = (n: number, term: (i: number) => string) => Array.from({ length: n }, (_, i) => term(i));

describe('the number of comparisons (at most 200)', () => {
  let projectId: string;
  let projectName: string;
  let tag: string;

  beforeAll(async () => {
    tag = unique('lim');
    const project = await createProject(server, (await createOrganization(server)).id, { name: unique('LimitsProject') });
    projectId = project.id;
    projectName = project.name;
    for (let i = 0; i < 3; i += 1) await createTask(server, projectId, { title: `${tag}-${i}`, priority: 3 });
  });

  it('answers exactly 200 comparisons joined by `or` and `,`, and refuses 201 naming the limit', async () => {
    for (const separator of [' or ', ',']) {
      const titles = (n: number) => times(n, (i) => `title==${tag}-${i}`).join(separator);
      expect(await matches(titles(200)), separator).toBe(3);
      await expectRefused(titles(201), TOO_MANY);
    }
  });

  it('answers exactly 200 comparisons joined by `and` and `;`, and refuses 201 naming the limit', async () => {
    for (const separator of [' and ', ';']) {
      const all = (n: number) => [`projectId==${projectId}`, ...times(n - 1, () => 'priority>-1')].join(separator);
      expect(await matches(all(200)), separator).toBe(3);
      await expectRefused(all(201), TOO_MANY);
    }
  });

  it('counts every comparison whatever mix of spellings, quoting, lists and groups joins them', async () => {
    // Of the terms, `title=='tag-0'`, `title=in=("tag-1",x)` and `title=like='tag-2*'` match; every fourth is a group of two.
    const terms = (n: number) =>
      times(n, (i) => [`title=='${tag}-${i}'`, `title=in=("${tag}-${i}",x)`, `(priority<0;title=="a,b;c==d")`, `title=like='${tag}-${i - 1}*'`][i % 4]);
    const mixed = (n: number) => `projectId==${projectId};(${terms(n - 1).join(', ')})`;
    const comparisons = (n: number) => 1 + times(n - 1, (i) => (i % 4 === 2 ? 2 : 1)).reduce((a, b) => a + b, 0);
    let n = 1;
    while (comparisons(n + 1) <= 200) n += 1;
    expect(comparisons(n)).toBe(200);
    expect(await matches(mixed(n))).toBe(3);
    await expectRefused(mixed(n + 1), TOO_MANY);
  });

  it('counts comparisons through a relation path (project.name)', async () => {
    const names = (n: number) =>
      `projectId==${projectId};(${[`project.name=='${projectName}'`, ...times(n - 2, (i) => `project.name==other-${i}`)].join(' or ')})`;
    expect(await matches(names(200))).toBe(3);
    await expectRefused(names(201), TOO_MANY);
    const anded = (n: number) => [`projectId==${projectId}`, ...times(n - 1, (i) => `project.name!=other-${i}`)].join(';');
    expect(await matches(anded(200))).toBe(3);
    await expectRefused(anded(201), TOO_MANY);
  });

  it('answers 200 comparisons nested to the deepest parentheses allowed, operators alternating', async () => {
    // a;(b,(c;(d, ... ))) 32 groups deep, the rest of the 200 comparisons chained at the innermost level.
    let filter = [`projectId==${projectId}`, ...times(200 - 33, () => 'priority>-1')].join(';');
    for (let depth = 0; depth < 32; depth += 1) filter = `${depth % 2 ? 'priority>-1;' : 'priority<-1,'}(${filter})`;
    expect(await matches(filter)).toBe(3);
  });
});

describe('comparisons through an inverse filter (memberTask.)', () => {
  let projectId: string;
  let title: string;

  beforeAll(async () => {
    projectId = (await createProject(server, (await createOrganization(server)).id)).id;
    title = unique('member');
    const group = await server.request('POST', '/api/task-groups', { body: { name: unique('Group'), projectId } });
    expect(group.status, group.text).toBe(201);
    await createTask(server, projectId, { title, priority: 5, taskGroupId: group.body.id });
    await createTask(server, projectId, { title: `${title}-other`, priority: 6, taskGroupId: group.body.id });
  });

  const within = (terms: string[], separator: string) => `projectId==${projectId};(${terms.join(separator)})`;

  it('answers 200 memberTask comparisons joined by `;` as conditions on one and the same task, and refuses 201', async () => {
    const same = (n: number) => [`memberTask.title==${title}`, ...times(n - 2, () => 'memberTask.priority==5')];
    expect(await matches(within(same(200), ';'), 'task-groups')).toBe(1);
    expect(await matches(within(same(200), ' and '), 'task-groups')).toBe(1);
    // Each condition is met by a task of the group, but no single task meets both.
    const split = [...same(199), 'memberTask.priority==6'];
    expect(await matches(within(split, ';'), 'task-groups')).toBe(0);
    await expectRefused(within(same(201), ';'), TOO_MANY, 'task-groups');
  });

  it('answers 200 memberTask comparisons joined by `or` and `,`, mixed with a field of the group itself, and refuses 201', async () => {
    for (const separator of [' or ', ',']) {
      const any = (n: number) => [...times(n - 3, (i) => `memberTask.title==nothing-${i}`), 'name==nothing', `memberTask.title==${title}`];
      expect(await matches(within(any(200), separator), 'task-groups'), separator).toBe(1);
      await expectRefused(within(any(201), separator), TOO_MANY, 'task-groups');
    }
  });
});

describe('the length of a filter (at most 8192 bytes of UTF-8)', () => {
  it('answers a filter of exactly 8192 bytes and refuses 8193 naming the limit', async () => {
    const padded = (bytes: number) => `title==${'a'.repeat(bytes - 'title=='.length)}`;
    expect(Buffer.byteLength(padded(8192))).toBe(8192);
    expect(await matches(padded(8192))).toBe(0);
    await expectRefused(padded(8193), TOO_LONG);
  });

  it('counts bytes, not characters: multi-byte text is refused past 8192 bytes however few its characters', async () => {
    // Through GraphQL only: percent-encoded, such a URL would be longer than the HTTP server reads.
    const accented = (extra: string) => `title==${'é'.repeat(4092)}${extra}`;
    expect(Buffer.byteLength(accented('a'))).toBe(8192);
    expect(accented('aa').length).toBeLessThan(4200);
    expect((await server.graphqlData(TASKS, { f: accented('a') })).tasks.totalElements).toBe(0);
    expectGraphqlRefused(await server.graphql(TASKS, { f: accented('aa') }), TOO_LONG);
  });

  it('refuses far longer filters by their length, whatever they hold', async () => {
    expectGraphqlRefused(await server.graphql(TASKS, { f: times(20_000, () => 'priority>1').join(' or ') }), TOO_LONG);
    expectGraphqlRefused(await server.graphql(TASKS, { f: '('.repeat(100_000) }), TOO_LONG);
    expectRestRefused(await rest('/api/tasks', times(2_000, () => 'a==1').join(',')), TOO_LONG);
  });
});

describe('the nesting of parentheses (at most 32 deep)', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}title==nothing${')'.repeat(depth)}`;

  it('answers 32 levels and refuses 33 naming the limit', async () => {
    expect(await matches(nested(32))).toBe(0);
    await expectRefused(nested(33), TOO_DEEP);
  });

  it('refuses deep nesting within the length limit, balanced or not, and counts value lists as a level', async () => {
    await expectRefused(nested(4000), TOO_DEEP);
    await expectRefused('('.repeat(8000), TOO_DEEP);
    await expectRefused(`${'('.repeat(32)}title=in=(a,b)${')'.repeat(32)}`, TOO_DEEP);
    // Parentheses inside quoted values are text.
    expect(await matches(`title=='${'('.repeat(100)}'`)).toBe(0);
  });
});

describe('a refused filter', () => {
  const refused: [string, string][] = [
    [times(201, () => 'priority>1').join(' or '), TOO_MANY],
    [times(201, () => 'memberTask.title==x').join(';'), TOO_MANY],
    [`title==${'a'.repeat(8200)}`, TOO_LONG],
    [`${'('.repeat(33)}title==x${')'.repeat(33)}`, TOO_DEEP],
  ];

  it('sends no SQL statement, over REST and GraphQL', async () => {
    // The caller's credentials are read once, then reused.
    expect((await server.request('GET', '/api/tasks?pageSize=1')).status).toBe(200);
    for (const [filter, message] of refused) {
      const resource = filter.startsWith('memberTask') ? '/api/task-groups' : '/api/tasks';
      const viaRest = await server.fewestQueries(async () => expectRestRefused(await rest(resource, filter), message));
      expect(
        viaRest.map((s) => s.sql),
        `${message} (REST)`,
      ).toEqual([]);
      const query = filter.startsWith('memberTask') ? TASK_GROUPS : TASKS;
      const viaGraphql = await server.fewestQueries(async () => expectGraphqlRefused(await server.graphql(query, { f: filter }), message));
      expect(
        viaGraphql.map((s) => s.sql),
        `${message} (GraphQL)`,
      ).toEqual([]);
    }
  });

  it('of 2,000 comparisons does not hold up a simple request sent alongside it', async () => {
    const project = await createProject(server, (await createOrganization(server)).id);
    const task = await createTask(server, project.id, { title: unique('alongside') });
    const heavy = [
      times(2_000, () => 'priority>1').join(' or '),
      times(2_000, () => 'priority>1').join(';'),
      times(2_000, () => 'memberTask.title==x').join(','),
      times(2_000, () => 'project.name==x').join(' and '),
    ];
    const answered: string[] = [];
    const track = <T>(label: string, answer: Promise<T>) => answer.then((value) => (answered.push(label), value));
    const refusals = heavy.flatMap((filter, i) => [
      track(`graphql ${i}`, server.graphql(filter.includes('memberTask') ? TASK_GROUPS : TASKS, { f: filter })),
      track(`rest ${i}`, rest(filter.includes('memberTask') ? '/api/task-groups' : '/api/tasks', filter.slice(0, 8_000))),
    ]);
    const simple = track('simple', server.request('GET', `/api/tasks/${task.id}`));
    const [answers, one] = await Promise.all([Promise.all(refusals), simple]);
    expect(one.status, one.text).toBe(200);
    expect(one.body.id).toBe(task.id);
    for (const answer of answers) {
      if (answer.body?.errors) expect(answer.body.errors[0].extensions, answer.text.slice(0, 300)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
      else expect(answer.status, answer.text.slice(0, 300)).toBe(400);
      expect(answer.text).toMatch(/limit of (8192 bytes|200 comparisons)/);
    }
    // Every request was answered, the simple one among them: none waited on another.
    expect(answered.sort()).toEqual([...heavy.flatMap((_, i) => [`graphql ${i}`, `rest ${i}`]), 'simple'].sort());
  });
});

describe('DATABASE_STATEMENT_TIMEOUT_MS', () => {
  const saved = process.env.DATABASE_STATEMENT_TIMEOUT_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_STATEMENT_TIMEOUT_MS;
    else process.env.DATABASE_STATEMENT_TIMEOUT_MS = saved;
  });

  it('defaults to 10000 milliseconds and accepts positive integers only', () => {
    delete process.env.DATABASE_STATEMENT_TIMEOUT_MS;
    expect(loadConfig().databaseStatementTimeoutMs).toBe(10_000);
    process.env.DATABASE_STATEMENT_TIMEOUT_MS = '250';
    expect(loadConfig().databaseStatementTimeoutMs).toBe(250);
    for (const wrong of ['0', '-1', '2.5', 'soon']) {
      process.env.DATABASE_STATEMENT_TIMEOUT_MS = wrong;
      expect(() => loadConfig(), wrong).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS must be a positive integer/);
    }
  });
});

describe('the statement timeout', () => {
  let limited: TestServer;
  let database: pg.Client;

  beforeAll(async () => {
    limited = await startServer({ statementTimeoutMs: 500 });
    database = new pg.Client({ connectionString: limited.orm.config.get('clientUrl') });
    await database.connect();
  });
  afterAll(async () => {
    await database?.end();
    await limited?.close();
  });

  /** Runs `work` while the transaction of a connection of its own holds what `lock` takes. */
  async function whileLocked<T>(lock: string, values: unknown[], work: () => Promise<T>): Promise<T> {
    await database.query('begin');
    try {
      await database.query(`set local lock_timeout = '5s'`);
      await database.query(lock, values);
      return await work();
    } finally {
      await database.query('rollback');
    }
  }

  function expectCancelled(answer: Answer): void {
    expect(answer.status, answer.text).toBe(503);
    expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(answer.body).toEqual({ error: 'Service Unavailable', message: expect.stringMatching(/took too long in the database/), status: 503 });
  }

  function expectGraphqlCancelled(answer: Answer<{ data?: unknown; errors?: any[] }>): void {
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors, answer.text).toHaveLength(1);
    expect(answer.body.errors![0]).toMatchObject({
      message: expect.stringMatching(/took too long in the database/),
      extensions: { code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: expect.any(Number) },
    });
  }

  it('cancels a write that waits on a row lock past it: 503 with Retry-After, then the server answers as before', async () => {
    const project = await createProject(limited, (await createOrganization(limited)).id);
    const task = await createTask(limited, project.id, { title: 'before' });
    await whileLocked('select id from task where id = $1 for update', [task.id], async () => {
      expectCancelled(await limited.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'during' } }));
      expectGraphqlCancelled(
        await limited.graphql(`mutation($id: ID!, $input: TaskUpdateRequest!) { updateTask(id: $id, input: $input) { id title } }`, {
          id: task.id,
          input: { title: 'during' },
        }),
      );
    });
    const updated = await limited.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'after' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.title).toBe('after');
    const read = await limited.request('GET', `/api/tasks/${task.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.title).toBe('after');
  });

  it('cancels a read of the read pool that waits past it (a table locked): 503 on both faces, then answers as before', async () => {
    await whileLocked('lock table knowledge_feature in access exclusive mode', [], async () => {
      expectCancelled(await limited.request('GET', '/api/knowledge-features?filter=value==x'));
      expectGraphqlCancelled(await limited.graphql(`{ knowledgeFeatures(filter: "value==x") { totalElements } }`));
    });
    const listed = await limited.request('GET', '/api/knowledge-features?filter=value==x');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.totalElements).toBe(0);
  });

  it('does not bind migrations: an empty database is migrated under a timeout no migration statement could meet', async () => {
    const serverUrl = inject('databaseUrl');
    const scratch = `platform_timeout_${process.pid}_${Date.now()}`;
    await ensureDatabase(serverUrl, scratch);
    try {
      const orm = await openDatabase(withDatabase(serverUrl, scratch), { statementTimeoutMs: 1 });
      try {
        // Read on a connection of its own: even a count may miss 1 ms on a new connection of a busy machine.
        const reader = new pg.Client({ connectionString: withDatabase(serverUrl, scratch) });
        await reader.connect();
        try {
          const { rows } = await reader.query(`select count(*)::int as migrated from mikro_orm_migrations`);
          expect(rows[0].migrated).toBeGreaterThan(0);
        } finally {
          await reader.end();
        }
        // Past the migrations, the pool's connections are bound.
        await expect(orm.em.fork().getConnection().execute('select pg_sleep(0.2)')).rejects.toMatchObject({ code: '57014' });
      } finally {
        await orm.close();
      }
    } finally {
      await dropDatabase(serverUrl, scratch);
    }
  });
});
