import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * What one request may spend, on both faces: the size of `sort`, `query` and `=like=` values (refused
 * before any work), the cost of a list without pageSize, RESPONSE_MAX_BYTES (an answer refused whole,
 * while it is read) and REQUEST_MAX_DB_CONNECTIONS (root fields beyond it wait their turn).
 */

/** A small answer limit, so that a few rows of large text cross it. */
const RESPONSE_MAX_BYTES = 1_000_000;
const TOO_LARGE = `the answer is larger than RESPONSE_MAX_BYTES (${RESPONSE_MAX_BYTES} bytes): ask for fewer rows (pageSize), fewer fields or fewer aliases, or use an export`;

let server: TestServer;
let projectId: string;
let tag: string;

beforeAll(async () => {
  server = await startServer({ requestLimits: { responseMaxBytes: RESPONSE_MAX_BYTES } });
  tag = unique('budget');
  projectId = (await createProject(server, (await createOrganization(server)).id, { name: tag, description: 'p'.repeat(100_000) })).id;
  for (let i = 0; i < 12; i += 1) await createTask(server, projectId, { title: `${tag}-${i}`, description: `${i}`.padEnd(100_000, 'd'), priority: i });
});
afterAll(() => server.close());

const encoded = (value: string) => encodeURIComponent(value);

function expectRestRefused(answer: Answer, field: string, message: string): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(400);
  expect(answer.body).toMatchObject({ status: 400, message: `${field}: ${message}`, details: [{ field, message }] });
}

function expectGraphqlRefused(answer: Answer<{ data?: unknown; errors?: any[] }>, message: string): void {
  expect(answer.body.errors, answer.text.slice(0, 300)).toHaveLength(1);
  expect(answer.body.errors![0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', status: 400 } });
}

const TASKS = `query($sort: String, $query: String, $filter: String) { tasks(sort: $sort, query: $query, filter: $filter, pageSize: 1) { totalElements } }`;

describe('sort: at most 32 terms and 1024 bytes', () => {
  const terms = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? 'title:asc' : 'priority:desc')).join(';');

  it('takes 32 terms and refuses 33, on both faces, before any statement', async () => {
    expect((await server.request('GET', `/api/tasks?sort=${encoded(terms(32))}&pageSize=1`)).status).toBe(200);
    expect((await server.graphqlData(TASKS, { sort: terms(32) })).tasks.totalElements).toBeGreaterThan(0);
    const message = 'has more than the limit of 32 terms';
    const statements = await server.fewestQueries(async () => {
      expectRestRefused(await server.request('GET', `/api/tasks?sort=${encoded(terms(33))}`), 'sort', message);
      expectGraphqlRefused(await server.graphql(TASKS, { sort: terms(33) }), `sort: ${message}`);
    });
    // Credentials are cached: nothing reaches the database for a refused sort.
    expect(statements).toEqual([]);
  });

  it('counts the terms of repeated sort parameters together', async () => {
    const repeated = Array.from({ length: 33 }, () => 'sort=title:asc').join('&');
    expectRestRefused(await server.request('GET', `/api/tasks?${repeated}`), 'sort', 'has more than the limit of 32 terms');
  });

  it('refuses a text past 1024 bytes whatever its terms, also 30,000 terms through a relation', async () => {
    const long = `title:asc;${'x'.repeat(1015)}`;
    expect(Buffer.byteLength(long)).toBe(1025);
    const message = 'is longer than the limit of 1024 bytes';
    expectRestRefused(await server.request('GET', `/api/tasks?sort=${encoded(long)}`), 'sort', message);
    const huge = Array.from({ length: 30_000 }, () => 'project.organization.name:asc').join(';');
    expectGraphqlRefused(await server.graphql(TASKS, { sort: huge }), `sort: ${message}`);
    expectRestRefused(await server.request('GET', `/api/tasks/export?sort=${encoded('title:asc;'.repeat(103))}&format=ndjson`), 'sort', message);
  });
});

describe('query and =like= values: at most 256 characters', () => {
  it('takes 256 characters of free text and refuses 257, on both faces', async () => {
    const fits = 'q'.repeat(256);
    expect((await server.request('GET', `/api/tasks?query=${fits}`)).body.totalElements).toBe(0);
    expect((await server.graphqlData(TASKS, { query: fits })).tasks.totalElements).toBe(0);
    const message = 'is longer than the limit of 256 characters';
    expectRestRefused(await server.request('GET', `/api/tasks?query=${fits}q`), 'query', message);
    expectGraphqlRefused(await server.graphql(TASKS, { query: `${fits}q` }), `query: ${message}`);
  });

  it('takes a 256-character =like= value and refuses 257, on both faces', async () => {
    const fits = `title=like='${'*'.repeat(255)}l'`;
    expect((await server.request('GET', `/api/tasks?filter=${encoded(fits)}&pageSize=1`)).status).toBe(200);
    const refused = `title=like='${'l'.repeat(257)}'`;
    const message = 'the =like= value of "title" is longer than the limit of 256 characters';
    expectRestRefused(await server.request('GET', `/api/tasks?filter=${encoded(refused)}`), 'filter', message);
    expectGraphqlRefused(await server.graphql(TASKS, { filter: refused }), `filter: ${message}`);
    // Also inside a nested page.
    const nested = `query($f: String) { projects(pageSize: 1) { content { tasks(filter: $f) { totalElements } } } }`;
    expect((await server.graphql(nested, { f: refused })).body.errors?.[0]?.message).toBe(`filter: ${message}`);
  });
});

describe('the cost of a list without pageSize', () => {
  /** `n` aliases of a listing's first page: each costs 1 + 2 per row. */
  const aliases = (n: number, list: string, args = '') => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${list}${args} { content { id } }`).join(' ')} }`;

  it('counts the rows the listing answers by default: 20 on data forms, 10 elsewhere', async () => {
    // 620 × (1 + 2 × 20) = 25,420: above the limit of 25,000, as 620 pages of 20 forms are.
    const forms = await server.graphql(aliases(620, 'dataForms'));
    expect(forms.body.errors?.[0]?.message).toBe(
      'query is too expensive: estimated cost 25420 is above the limit of 25000; request smaller pages or fewer nested levels',
    );
    expect((await server.graphql(aliases(620, 'dataForms', '(pageSize: 20)'))).body.errors?.[0]?.message).toContain('estimated cost 25420');
    // 620 × (1 + 2 × 10) = 13,020 on a listing of 10 by default: answered.
    expect((await server.graphql(aliases(620, 'tasks', '(filter: "priority<0")'))).body.errors).toBeUndefined();
  });
});

describe('RESPONSE_MAX_BYTES', () => {
  const page = (size: number, extra = '') =>
    `{ tasks(pageSize: ${size}, filter: "project.name=='${tag}'", sort: "priority:asc")${extra} { content { title description } } }`;

  it('answers a page that fits and refuses one that does not, on REST', async () => {
    const fits = await server.request('GET', `/api/tasks?pageSize=8&filter=${encoded(`project.name=='${tag}'`)}`);
    expect(fits.status).toBe(200);
    expect(fits.body.content).toHaveLength(8);
    const refused = await server.request('GET', `/api/tasks?pageSize=12&filter=${encoded(`project.name=='${tag}'`)}`);
    expect(refused.status, refused.text.slice(0, 300)).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, message: TOO_LARGE });
  });

  it('refuses the whole GraphQL answer, written by the database or by the resolvers alike', async () => {
    expect((await server.graphqlData(page(8))).tasks.content).toHaveLength(8);
    for (const query of [page(12), page(12, ' @include(if: true)')]) {
      const answer = await server.graphql(query);
      expectGraphqlRefused(answer, TOO_LARGE);
      expect(answer.body.data ?? null).toBeNull();
    }
  });

  it('counts every root field of a document together', async () => {
    const pages = (n: number, directive = '') =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: tasks(pageSize: 4, page: ${i}, filter: "project.name=='${tag}'")${directive} { content { description } }`).join(' ')} }`;
    // Two pages of 400 KB fit in 1 MB; three do not, although each alone does.
    expect(Object.keys(await server.graphqlData(pages(2)))).toEqual(['p0', 'p1']);
    expectGraphqlRefused(await server.graphql(pages(3)), TOO_LARGE);
    expectGraphqlRefused(await server.graphql(pages(3, ' @include(if: true)')), TOO_LARGE);
    // Refused while it is read: the root fields after the one that crossed the limit send nothing.
    const statements = await server.recordQueries(async () => expectGraphqlRefused(await server.graphql(pages(8)), TOO_LARGE));
    expect(statements.filter((statement) => statement.text.includes('"json"'))).toHaveLength(3);
  });

  it('counts items by id too: the same 100 KB task in 12 aliases, on both paths', async () => {
    const [task] = (await server.request('GET', `/api/tasks?pageSize=1&filter=${encoded(`project.name=='${tag}'`)}`)).body.content;
    const items = (n: number, directive = '') =>
      `{ ${Array.from({ length: n }, (_, i) => `i${i}: task(id: "${task.id}")${directive} { id description }`).join(' ')} }`;
    // Eight fit in 1 MB; twelve do not, although each is one row.
    expect(Object.keys(await server.graphqlData(items(8)))).toHaveLength(8);
    for (const directive of ['', ' @include(if: true)']) expectGraphqlRefused(await server.graphql(items(12, directive)), TOO_LARGE);
  });

  it('refuses a value repeated past the limit although each row read once fits (the answer as written)', async () => {
    const repeated = `{ tasks(pageSize: 12, filter: "project.name=='${tag}'") { content { title project { description } } } }`;
    expectGraphqlRefused(await server.graphql(repeated), TOO_LARGE);
    // A directive sends the read to the resolvers, which read the project once.
    expectGraphqlRefused(await server.graphql(repeated.replace('content {', 'content @include(if: true) {')), TOO_LARGE);
    const fewer = await server.graphqlData(repeated.replace('pageSize: 12', 'pageSize: 5'));
    expect(fewer.tasks.content).toHaveLength(5);
  });

  it('refuses an answer of shared rows before writing it, however far past the limit (600 × 12 × 100 KB)', async () => {
    const alias = (i: number) => `a${i}: tasks(pageSize: 12, filter: "project.name=='${tag}'") { content @include(if: true) { project { description } } }`;
    const answer = await server.graphql(`{ ${Array.from({ length: 600 }, (_, i) => alias(i)).join(' ')} }`);
    expectGraphqlRefused(answer, TOO_LARGE);
    expect(answer.text.length).toBeLessThan(1000);
  });

  it('leaves the next request its own budget, and exports unbounded by it', async () => {
    expect((await server.request('GET', `/api/tasks?pageSize=12&filter=${encoded(`project.name=='${tag}'`)}`)).status).toBe(400);
    expect((await server.request('GET', `/api/tasks?pageSize=2&filter=${encoded(`project.name=='${tag}'`)}`)).status).toBe(200);
    const exported = await server.request('GET', `/api/tasks/export?format=ndjson&filter=${encoded(`project.name=='${tag}'`)}`);
    expect(exported.status).toBe(200);
    expect(exported.text.trim().split('\n')).toHaveLength(12);
  });
});

describe('rows that embed one large row', () => {
  let shared: string;

  beforeAll(async () => {
    // 700 assistants embed their project, whose description is 900 KB: 630 MB written out, read once.
    shared = (await createProject(server, (await createOrganization(server)).id, { description: 'e'.repeat(900_000) })).id;
    for (let i = 0; i < 700; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const answer = await server.request('POST', '/api/assistants', { body: { name: `assistant ${i + j}`, projectId: shared } });
          expect(answer.status, answer.text.slice(0, 200)).toBe(201);
        }),
      );
    }
  }, 120_000);

  it('are refused on REST before the answer is written', async () => {
    const answer = await server.request('GET', `/api/assistants?pageSize=1000&filter=${encoded(`projectId==${shared}`)}`);
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(answer.body).toMatchObject({ status: 400, message: TOO_LARGE });
  });

  it('are exported whole, written a part at a time', async () => {
    const response = await fetch(`${server.url}/api/assistants/export?format=ndjson&filter=${encoded(`projectId==${shared}`)}`, {
      headers: { 'x-api-key': server.adminKey },
    });
    expect(response.status).toBe(200);
    let lines = 0;
    let last = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      const text = last + decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      last = parts.pop()!;
      lines += parts.length;
      // No line is the error line an export ends with.
      for (const part of parts) expect(part.startsWith('{"error"')).toBe(false);
    }
    expect(last).toBe('');
    expect(lines).toBe(700);
  }, 60_000);
});

describe('REQUEST_MAX_DB_CONNECTIONS', () => {
  let slow: string;

  beforeAll(async () => {
    // Long texts no pattern matches: each read scans them all (a few tenths of a second).
    slow = unique('slow');
    const project = await createProject(server, (await createOrganization(server)).id, { name: slow });
    for (let i = 0; i < 8; i += 1) await createTask(server, project.id, { title: `${slow}-${i}` });
    await server.orm.em.getConnection().execute(`update task set description = repeat('abcdefghij', 400000) where title like '${slow}-%'`);
  });

  /** The most read-pool connections in use at once while `work` runs. */
  async function peakConnections(work: () => Promise<unknown>): Promise<number> {
    let peak = 0;
    let running = true;
    const sampling = (async () => {
      while (running) {
        peak = Math.max(peak, server.services.reads!.usage().inUse);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      await work();
    } finally {
      running = false;
      await sampling;
    }
    return peak;
  }

  /** `n` slow root fields, each with a directive: the resolvers answer them, side by side. */
  const resolvedReads = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `r${i}: tasks(filter: "project.name=='${slow}' and description=like='*zz${i}*'") @include(if: true) { totalElements }`).join(' ')} }`;

  it('holds at most 2 connections for 6 slow root fields answered by the resolvers, and answers them all', async () => {
    let data: any;
    const peak = await peakConnections(async () => {
      data = await server.graphqlData(resolvedReads(6));
    });
    expect(Object.values(data).map((page: any) => page.totalElements)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(peak).toBeLessThanOrEqual(2);
    // The root fields did run side by side, up to the bound.
    expect(peak).toBe(2);
  });

  it("holds at most half the read pool for one user's requests together, and answers them all", async () => {
    let answers: any[] = [];
    const peak = await peakConnections(async () => {
      answers = await Promise.all(Array.from({ length: 4 }, () => server.graphqlData(resolvedReads(6))));
    });
    for (const data of answers) expect(Object.values(data).map((page: any) => page.totalElements)).toEqual([0, 0, 0, 0, 0, 0]);
    // Four requests of two connections each would take eight of the ten.
    expect(peak).toBe(5);
  });

  it('leaves the other connections to other requests meanwhile', async () => {
    const started = server.graphqlData(resolvedReads(6));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const other = await server.request('GET', `/api/tasks?pageSize=1&filter=${encoded(`project.name=='${tag}'`)}`);
    expect(other.status).toBe(200);
    expect(server.services.reads!.usage().waiting).toBe(0);
    await started;
  });
});
