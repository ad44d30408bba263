import fc from 'fast-check';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { parseCsv } from './support/csv';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Every list has an export at its path plus `/export`, which answers `?format=csv|ndjson` (or an Accept
 * header asking for either; NDJSON otherwise) with all the rows of the JSON list's filter, query and
 * sort, read by keyset in batches (three rows per batch here, so that every export crosses many of
 * them), streamed as the client takes them. The list itself answers JSON only.
 */
type Row = Record<string, any>;

const BATCH = 3;
let server: TestServer;
/** The same database, with an export cap of 5 rows. */
let capped: TestServer;
let member: { id: string; key: string };
let projects: Row[];
let tasks: Row[];
let strangerTaskIds: Set<string>;

async function keyOf(user: Row): Promise<string> {
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('exports'), userId: user.id } });
  expect(token.status, token.text).toBe(201);
  return token.body.token;
}

beforeAll(async () => {
  server = await startServer({ exportBatchRows: BATCH });
  capped = await startServer({ exportBatchRows: BATCH, exportMaxRows: 5 });
  const user = await createUser(server);
  member = { id: user.id, key: await keyOf(user) };
  const org = await createOrganization(server, {}, member.key);
  projects = [
    await createProject(server, org.id, { name: unique('Alpha') }, member.key),
    await createProject(server, org.id, { name: unique('Beta') }, member.key),
  ];
  tasks = [];
  for (let i = 0; i < 14; i++) {
    const body = { title: `Task ${i % 5} ${unique()}`, priority: i % 3, dueDate: i % 4 === 0 ? null : `2026-12-0${1 + (i % 3)}T10:00:00.000Z` };
    tasks.push(await createTask(server, projects[i % 2].id, body, member.key));
  }
  // Another organization's rows, which the member's exports never show.
  const stranger = await createUser(server);
  const strangerKey = await keyOf(stranger);
  const theirs = await createProject(server, (await createOrganization(server, {}, strangerKey)).id, {}, strangerKey);
  strangerTaskIds = new Set();
  for (let i = 0; i < 4; i++) strangerTaskIds.add((await createTask(server, theirs.id, { title: `Theirs ${i}` }, strangerKey)).id);
}, 120_000);

afterAll(async () => {
  await capped?.close();
  await server?.close();
});

/** The ids of the member's JSON list for a query string, through all its pages. */
async function listedIds(query: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const answer = await server.request('GET', `/api/tasks?${query}&pageSize=5&page=${page}`, { key: member.key });
    expect(answer.status, answer.text).toBe(200);
    ids.push(...answer.body.content.map((t: Row) => t.id));
    if (ids.length >= answer.body.totalElements) return ids;
  }
}

async function ndjson(path: string, via = server): Promise<{ status: number; type: string | null; rows: Row[]; text: string }> {
  const answer = await via.request('GET', path, { key: member.key });
  const text = answer.text;
  const rows =
    answer.status === 200
      ? text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line))
      : [];
  return { status: answer.status, type: answer.headers.get('content-type'), rows, text };
}

describe('an export', () => {
  const queries = [
    '',
    'sort=priority:desc',
    'sort=dueDate:asc',
    'sort=dueDate:desc;title:asc',
    'sort=project.name:desc;priority:asc',
    `filter=${encodeURIComponent('priority>=1')}&sort=title:asc`,
    'query=Task%203',
  ];

  it.each(queries)('holds the rows of the JSON list, in its order: %s', async (query) => {
    const listed = await listedIds(query);
    const exported = await ndjson(`/api/tasks/export?${query}&format=ndjson`);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.type).toMatch(/^application\/x-ndjson/);
    expect(exported.rows.map((t) => t.id)).toEqual(listed);
    expect(listed.length).toBeGreaterThan(0);
  });

  it('holds the rows of the JSON list in its order for any sort of nullable, repeated and related keys', async () => {
    const term = fc.record({
      field: fc.constantFrom('priority', 'dueDate', 'title', 'createdOn', 'project.name', 'assigneeId', 'statusSlug'),
      direction: fc.constantFrom('asc', 'desc'),
    });
    const filter = fc.constantFrom('', 'priority>=1', 'priority==0', `projectId==${projects[1].id}`);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(term, { minLength: 0, maxLength: 3, selector: (t) => t.field }), filter, async (terms, condition) => {
        const query = [
          terms.length ? `sort=${terms.map((t) => `${t.field}:${t.direction}`).join(';')}` : '',
          condition ? `filter=${encodeURIComponent(condition)}` : '',
        ]
          .filter(Boolean)
          .join('&');
        const exported = await ndjson(`/api/tasks/export?${query}&format=ndjson`);
        expect(exported.status, exported.text).toBe(200);
        expect(exported.rows.map((t) => t.id)).toEqual(await listedIds(query));
      }),
      { numRuns: 40 },
    );
  });

  it("shows every row of the caller's organizations and no other, as the JSON list does", async () => {
    const exported = await ndjson('/api/tasks/export?format=ndjson');
    const ids = exported.rows.map((t) => t.id);
    expect(new Set(ids)).toEqual(new Set(tasks.map((t) => t.id)));
    expect(ids.some((id) => strangerTaskIds.has(id))).toBe(false);
    // A row as the JSON list shows it, embedded project included.
    const listed = (await server.request('GET', `/api/tasks?filter=${encodeURIComponent(`id==${tasks[3].id}`)}`, { key: member.key })).body.content[0];
    expect(exported.rows.find((t) => t.id === tasks[3].id)).toEqual(listed);
  });

  it('of a nested collection holds its parent rows only', async () => {
    const org = await createOrganization(server, {}, member.key);
    for (const name of ['ONE', 'TWO']) {
      const secret = await server.request('POST', `/api/organizations/${org.id}/secrets`, {
        body: { name: `${name}_${Date.now()}`, value: 'v' },
        key: member.key,
      });
      expect(secret.status, secret.text).toBe(201);
    }
    const exported = await ndjson(`/api/organizations/${org.id}/secrets/export?format=ndjson`);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.rows).toHaveLength(2);
    expect(exported.rows.every((s) => s.organizationId === org.id)).toBe(true);
  });

  it('is CSV with a header of the field names, quoted as RFC 4180 says, objects as JSON text, null as an empty cell', async () => {
    const title = 'Commas, "quotes"\nnew lines\r\nand ünïcödé 😀';
    const task = await createTask(server, projects[0].id, { title, properties: { a: [1, 'x,y'] }, priority: 7 }, member.key);
    const answer = await server.request('GET', `/api/tasks/export?filter=${encodeURIComponent(`id==${task.id}`)}`, {
      key: member.key,
      headers: { accept: 'text/csv' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="tasks.csv"');
    const [header, record, ...rest] = parseCsv(answer.text);
    expect(rest).toEqual([]);
    const json = (await server.request('GET', `/api/tasks/${task.id}`, { key: member.key })).body;
    expect(header).toEqual(Object.keys(json));
    const cells = Object.fromEntries(header.map((name, i) => [name, record[i]]));
    expect(cells.title).toBe(title);
    expect(cells.priority).toBe('7');
    expect(cells.locked).toBe('false');
    expect(JSON.parse(cells.properties)).toEqual({ a: [1, 'x,y'] });
    expect(cells.documentFamilyIds).toBe('[]');
    expect(cells.dueDate).toBe('');
    expect(cells.createdOn).toBe(json.createdOn);

    // An embedded object is a cell of JSON text, as the JSON list shows it.
    const projectCsv = await server.request('GET', `/api/projects/export?format=csv&filter=${encodeURIComponent(`id==${projects[0].id}`)}`, {
      key: member.key,
    });
    const [projectHeader, projectRecord] = parseCsv(projectCsv.text);
    const listedProject = (await server.request('GET', `/api/projects/${projects[0].id}`, { key: member.key })).body;
    expect(projectHeader).toEqual(Object.keys(listedProject));
    expect(JSON.parse(projectRecord[projectHeader.indexOf('organization')])).toEqual(listedProject.organization);
  });

  it('is chosen by format over Accept, else by Accept, NDJSON when neither asks for CSV; another format is 400 naming it', async () => {
    const only = `filter=${encodeURIComponent(`id==${tasks[0].id}`)}`;
    const typeOf = async (query: string, accept?: string) => {
      const answer = await server.request('GET', `/api/tasks/export?${query}`, { key: member.key, headers: accept ? { accept } : {} });
      expect(answer.status, answer.text).toBe(200);
      return answer.headers.get('content-type');
    };
    expect(await typeOf(`${only}&format=csv`, 'application/x-ndjson')).toBe('text/csv; charset=utf-8');
    expect(await typeOf(`${only}&format=ndjson`, 'text/csv')).toBe('application/x-ndjson; charset=utf-8');
    expect(await typeOf(only, 'text/csv')).toBe('text/csv; charset=utf-8');
    expect(await typeOf(only, 'application/x-ndjson;q=0.5, text/csv')).toBe('text/csv; charset=utf-8');
    expect(await typeOf(only, 'application/x-ndjson')).toBe('application/x-ndjson; charset=utf-8');
    for (const accept of [undefined, '*/*', 'application/json']) expect(await typeOf(only, accept), accept).toBe('application/x-ndjson; charset=utf-8');
    for (const format of ['json', 'xml', '']) {
      const wrong = await server.request('GET', `/api/tasks/export?format=${format}`, { key: member.key });
      expect(wrong.status, format).toBe(400);
      expect(wrong.body).toMatchObject({
        status: 400,
        message: 'format: must be csv or ndjson',
        details: [{ field: 'format', message: 'must be csv or ndjson' }],
      });
    }
  });

  it('ignores page and pageSize: every matching row', async () => {
    const whole = await ndjson('/api/tasks/export');
    const paged = await ndjson('/api/tasks/export?page=2&pageSize=1');
    expect(paged.status, paged.text).toBe(200);
    expect(paged.rows.map((t) => t.id)).toEqual(whole.rows.map((t) => t.id));
    const listed = await server.request('GET', '/api/tasks?pageSize=1', { key: member.key });
    expect(paged.rows).toHaveLength(listed.body.totalElements);
    expect(paged.rows.length).toBeGreaterThan(1);
  });

  it('answers HEAD with the headers of its GET and no rows, and refuses it past EXPORT_MAX_ROWS as GET', async () => {
    const head = await server.request('HEAD', '/api/tasks/export?format=csv', { key: member.key });
    expect([head.status, head.text]).toEqual([200, '']);
    expect(head.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(head.headers.get('content-disposition')).toBe('attachment; filename="tasks.csv"');
    expect((await capped.request('HEAD', '/api/tasks/export', { key: member.key })).status).toBe(400);
  });

  it('is its own path, never an item: export is no id, and other methods are 405 naming GET and HEAD', async () => {
    const exported = await ndjson(`/api/tasks/export?filter=${encodeURIComponent(`id==${tasks[0].id}`)}`);
    expect(exported.rows.map((t) => t.id)).toEqual([tasks[0].id]);
    for (const method of ['PUT', 'DELETE', 'POST', 'PATCH']) {
      const refused = await server.request(method, '/api/tasks/export', { key: member.key, body: {} });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get('allow'), method).toBe('GET, HEAD');
      expect(refused.body).toEqual({ error: 'Method Not Allowed', status: 405, message: `/api/tasks/export does not support ${method}; allowed: GET, HEAD` });
    }
    // Below it, `export` stands where an id does: refused as the non-UUID id it is.
    const sequence = await server.request('GET', '/api/tasks/export/sequence', { key: member.key });
    expect(sequence.status).toBe(400);
    expect(sequence.body.message).toBe('id: must be a UUID');
  });
});

describe('a list', () => {
  const exportOfTasks = 'every matching row as CSV or NDJSON is at GET /api/tasks/export';

  it('answers JSON only: a format parameter is 406 naming the export path', async () => {
    for (const format of ['csv', 'ndjson', 'json', 'xml']) {
      const refused = await server.request('GET', `/api/tasks?format=${format}&pageSize=1`, { key: member.key });
      expect(refused.status, format).toBe(406);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refused.body).toMatchObject({ error: 'Not Acceptable', status: 406 });
      expect(refused.body.message).toBe(`/api/tasks answers application/json only (the format parameter asks for another type); ${exportOfTasks}`);
    }
  });

  it('answers JSON only: an Accept that admits no JSON is 406 naming the export path, with the parent a nested list names', async () => {
    for (const accept of ['text/csv', 'application/x-ndjson', 'text/csv, application/x-ndjson', 'application/json;q=0, text/csv', 'text/*']) {
      const refused = await server.request('GET', '/api/tasks?pageSize=1', { key: member.key, headers: { accept } });
      expect(refused.status, accept).toBe(406);
      expect(refused.body.message, accept).toBe(`/api/tasks answers application/json only (Accept asks for another type); ${exportOfTasks}`);
    }
    const org = projects[0].organizationId;
    const nested = await server.request('GET', `/api/organizations/${org}/secrets`, { key: member.key, headers: { accept: 'text/csv' } });
    expect(nested.status).toBe(406);
    expect(nested.body.message).toContain(`is at GET /api/organizations/${org}/secrets/export`);
  });

  it('answers its page to any Accept that admits JSON, and without one', async () => {
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'application/*',
      'text/csv, application/json;q=0.1',
      'text/html,application/xhtml+xml,*/*;q=0.8',
    ]) {
      const page = await server.request('GET', '/api/tasks?pageSize=1', { key: member.key, headers: accept ? { accept } : {} });
      expect(page.status, accept).toBe(200);
      expect(page.headers.get('content-type'), accept).toMatch(/^application\/json/);
      expect(page.body.content, accept).toHaveLength(1);
    }
  });
});

describe('an export, bounded', () => {
  it('past EXPORT_MAX_ROWS is 400 naming the limit before anything is streamed; within it, every row', async () => {
    const refused = await ndjson('/api/tasks/export?format=ndjson', capped);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({
      status: 400,
      message: `the export matches ${tasks.length + 1} rows, more than EXPORT_MAX_ROWS (5): narrow it with filter or query`,
    });
    const narrowed = await ndjson(`/api/tasks/export?format=ndjson&filter=${encodeURIComponent(`projectId==${projects[1].id};priority==0`)}`, capped);
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.rows.length).toBeGreaterThan(0);
    expect(narrowed.rows.length).toBeLessThanOrEqual(5);
  });

  it('refuses a bad filter or sort with 400 as the JSON list does', async () => {
    expect((await ndjson('/api/tasks/export?format=csv&filter=nope==1')).status).toBe(400);
    expect((await ndjson('/api/tasks/export?format=csv&sort=nope:asc')).status).toBe(400);
  });
});

describe('a streamed export', () => {
  /** Opens an export without reading it: the answer's stream, paused. */
  function openExport(path: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, server.url);
      const req = httpRequest(url, { headers: { 'x-api-key': member.key } }, (res) => {
        res.pause();
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
  }

  const batchStatements = (recorded: { text: string }[]) => recorded.filter((s) => s.text.includes('"__k0"')).length;

  /** Connections of the read pool (where exports read) lent out now, from /metrics. */
  async function readConnectionsInUse(): Promise<number> {
    const metrics = await server.request('GET', '/metrics');
    const line = /^db_pool_connections_in_use\{pool="read"\} (\d+)$/m.exec(metrics.text);
    expect(line, metrics.text.slice(0, 500)).not.toBeNull();
    return Number(line![1]);
  }

  it('reads no further than the client takes, and stops reading when the client goes away', async () => {
    // Rows large enough (36 MB in all) that the buffers between a paused client and the server fill long before the end.
    const big = await createProject(server, projects[0].organizationId, {}, member.key);
    const description = 'x'.repeat(900_000);
    for (let i = 0; i < 40; i++) await createTask(server, big.id, { title: `Big ${i}`, description }, member.key);
    const path = `/api/tasks/export?format=ndjson&filter=${encodeURIComponent(`projectId==${big.id}`)}`;
    const batches = Math.ceil(40 / BATCH);

    let answer!: IncomingMessage;
    const paused = await server.recordQueries(async () => {
      answer = await openExport(path);
      await new Promise((resolve) => setTimeout(resolve, 500));
    });
    expect(answer.statusCode).toBe(200);
    expect(batchStatements(paused)).toBeGreaterThan(0);
    expect(batchStatements(paused)).toBeLessThan(batches);
    // While the client holds back, the export holds no database connection.
    expect(await readConnectionsInUse()).toBe(0);

    const afterLeaving = await server.recordQueries(async () => {
      answer.destroy();
      await new Promise((resolve) => setTimeout(resolve, 500));
    });
    expect(batchStatements(afterLeaving)).toBeLessThanOrEqual(1);
    expect(await readConnectionsInUse()).toBe(0);
    // The server is as it was: the same export, read to its end, holds every row.
    const whole = await ndjson(path);
    expect(whole.rows).toHaveLength(40);
    expect(whole.rows.every((t) => t.description === description)).toBe(true);
  });
});
