import pg from 'pg';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { logger } from '../src/logging/logger';
import { parseCsv } from './support/csv';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';

/**
 * What one export may cost the server: EXPORT_MAX_CONCURRENT_PER_USER exports of one user at once, a
 * batch of about 1 MB of rows held for a client that does not read, EXPORT_MAX_ROWS rows streamed
 * however the rows move, and CSV text that no spreadsheet runs as a formula.
 */
type Row = Record<string, any>;

const MB = 1024 * 1024;
/** Big rows: 40 of about 500 KB (20 MB in all), more than the buffers between a paused client and the server hold. */
const BIG_ROWS = 40;
const DESCRIPTION = 'x'.repeat(500_000);

let server: TestServer;
/** The same database, with room for many exports of one user (the paused-export measurement). */
let roomy: TestServer;
/** The same database, with EXPORT_MAX_ROWS just above the big project's rows. */
let limited: TestServer;
let alice: { id: string; keys: string[] };
let bob: { id: string; key: string };
let bigProject: Row;
let bobProject: Row;
const open: IncomingMessage[] = [];

async function keyOf(user: Row): Promise<string> {
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('exports'), userId: user.id } });
  expect(token.status, token.text).toBe(201);
  return token.body.token;
}

beforeAll(async () => {
  server = await startServer({ exportMaxConcurrentPerUser: 2 });
  roomy = await startServer({ exportMaxConcurrentPerUser: 10 });
  limited = await startServer({ exportMaxRows: BIG_ROWS + 1 });
  const a = await createUser(server);
  alice = { id: a.id, keys: [await keyOf(a), await keyOf(a)] };
  const b = await createUser(server);
  bob = { id: b.id, key: await keyOf(b) };
  const org = await createOrganization(server, {}, alice.keys[0]);
  bigProject = await createProject(server, org.id, {}, alice.keys[0]);
  for (let i = 0; i < BIG_ROWS; i++) await createTask(server, bigProject.id, { title: `Big ${i}`, description: DESCRIPTION }, alice.keys[0]);
  bobProject = await createProject(server, (await createOrganization(server, {}, bob.key)).id, {}, bob.key);
  await createTask(server, bobProject.id, { title: 'Bob' }, bob.key);
}, 180_000);

afterEach(() => {
  for (const answer of open.splice(0)) answer.destroy();
  vi.restoreAllMocks();
});

afterAll(async () => {
  await limited?.close();
  await roomy?.close();
  await server?.close();
});

const bigExport = (format = 'ndjson', sort = '') =>
  `/api/tasks/export?format=${format}&filter=${encodeURIComponent(`projectId==${bigProject.id}`)}${sort ? `&sort=${sort}` : ''}`;

/** Opens an export and reads nothing of it (past its status line): the answer, paused. */
function openExport(via: TestServer, path: string, key: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // A connection of its own: one reused after a whole export may have grown buffers that hold this one whole.
    const req = httpRequest(new URL(path, via.url), { agent: false, headers: { 'x-api-key': key } }, (res) => {
      res.pause();
      open.push(res);
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The rest of a paused answer, read to its end. */
async function readToEnd(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A body of an answer that has one (the 429 of a held export's refusal), parsed. */
async function bodyOf(res: IncomingMessage): Promise<Row> {
  return JSON.parse(await readToEnd(res));
}

/** Waits until the user's next export is accepted (the count of one that ended is released); fails after 5 s of 429s. */
async function acceptedAgain(via: TestServer, key: string): Promise<IncomingMessage> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await openExport(via, bigExport(), key);
    if (answer.statusCode === 200) return answer;
    expect(answer.statusCode).toBe(429);
    answer.destroy();
    await sleep(100);
  }
  throw new Error('the export was still refused 5 s after one ended');
}

describe('EXPORT_MAX_CONCURRENT_PER_USER', () => {
  it("refuses a user's third export while two stream (429, Retry-After, the variable named), counting all their keys together and no other user", async () => {
    const first = await openExport(server, bigExport(), alice.keys[0]);
    const second = await openExport(server, bigExport('csv'), alice.keys[1]);
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);

    for (const key of alice.keys) {
      const third = await openExport(server, bigExport(), key);
      expect(third.statusCode).toBe(429);
      expect(third.headers['retry-after']).toBe('5');
      const body = await bodyOf(third);
      expect(body).toMatchObject({ status: 429, error: 'Too Many Requests' });
      expect(body.message).toBe(
        'too many exports at once: this user already streams 2, the limit of EXPORT_MAX_CONCURRENT_PER_USER (2); retry after 5 s, once one has ended',
      );
    }
    // The JSON page is no export; another user's export is theirs to count.
    expect((await server.request('GET', '/api/tasks?pageSize=1', { key: alice.keys[0] })).status).toBe(200);
    const bobs = await server.request('GET', `/api/tasks/export?format=ndjson&filter=${encodeURIComponent(`projectId==${bobProject.id}`)}`, { key: bob.key });
    expect(bobs.status, bobs.text).toBe(200);
    expect(bobs.text.trim().split('\n')).toHaveLength(1);

    // One ends (its client goes away): the next is accepted, and it counts again.
    first.destroy();
    await acceptedAgain(server, alice.keys[1]);
    expect((await openExport(server, bigExport(), alice.keys[0])).statusCode).toBe(429);
  });

  it('is released when an export ends, is refused or fails, as when its client goes away', async () => {
    // A server of its own: the counts of the test before are released only once that server sees its clients gone.
    const fresh = await startServer({ exportMaxConcurrentPerUser: 2 });
    try {
      const small = `/api/tasks/export?format=csv&filter=${encodeURIComponent(`projectId==${bigProject.id};title=="Big 1"`)}`;
      for (let i = 0; i < 3; i++) {
        const whole = await fresh.request('GET', small, { key: alice.keys[i % 2] });
        expect(whole.status, whole.text.slice(0, 200)).toBe(200);
        expect(whole.text.endsWith('\r\n')).toBe(true);
        const refused = await fresh.request('GET', '/api/tasks/export?format=ndjson&filter=nope==1', { key: alice.keys[i % 2] });
        expect(refused.status).toBe(400);
      }
      const held = [await openExport(fresh, bigExport(), alice.keys[0]), await openExport(fresh, bigExport(), alice.keys[1])];
      expect(held.map((answer) => answer.statusCode)).toEqual([200, 200]);
      for (const answer of held) answer.destroy();
      (await acceptedAgain(fresh, alice.keys[0])).destroy();
    } finally {
      for (const answer of open.splice(0)) answer.destroy();
      await fresh.close();
    }
  });
});

describe('a paused export', () => {
  const batchStatements = (recorded: { text: string; params: readonly unknown[] }[]) => recorded.filter((s) => s.text.includes('"__bytes"'));

  it('holds one batch of at most 1 MB of written rows: the rows each statement reads while clients do not read', async () => {
    // The bytes of each row as NDJSON writes it, from an export read to its end.
    const whole = await roomy.request('GET', bigExport(), { key: alice.keys[0] });
    expect(whole.status).toBe(200);
    const lineBytes = new Map<string, number>(
      whole.text
        .split('\n')
        .filter(Boolean)
        .map((line) => [JSON.parse(line).id as string, Buffer.byteLength(line) + 1]),
    );
    expect(lineBytes.size).toBe(BIG_ROWS);

    const exports = 4;
    const recorded = await roomy.recordQueries(async () => {
      for (let i = 0; i < exports; i++) expect((await openExport(roomy, bigExport(), alice.keys[i % 2])).statusCode).toBe(200);
      await sleep(1000);
    });
    const statements = batchStatements(recorded);
    expect(statements.length).toBeGreaterThanOrEqual(exports);

    // Each statement read again: the rows it read then (the rows have not changed since).
    const db = new pg.Client({ connectionString: inject('databaseUrl') });
    await db.connect();
    try {
      let rowsRead = 0;
      for (const statement of statements) {
        const ids = (await db.query(statement.text, statement.params as unknown[])).rows.map((row) => row.id as string);
        const bytes = ids.reduce((sum, id) => sum + lineBytes.get(id)!, 0);
        expect(ids.length, `${ids.length} rows, ${bytes} bytes`).toBeGreaterThan(0);
        expect(ids.length === 1 || bytes <= MB, `${ids.length} rows, ${bytes} bytes in one batch`).toBe(true);
        expect(ids.length).toBeLessThanOrEqual(2);
        rowsRead += ids.length;
      }
      // The clients hold the reading back: far from every row of every export was read.
      expect(rowsRead).toBeLessThan(exports * BIG_ROWS);
    } finally {
      await db.end();
    }
  });
});

describe('EXPORT_MAX_ROWS while streaming', () => {
  /**
   * Opens the big export sorted by updatedOn, lets the server read what the buffers take, then updates
   * every row: each moves behind the cursor and comes again, so more rows follow than EXPORT_MAX_ROWS.
   */
  async function exportWhileRowsMove(format: 'ndjson' | 'csv'): Promise<string> {
    const answer = await openExport(limited, bigExport(format, 'updatedOn:asc'), alice.keys[0]);
    expect(answer.statusCode).toBe(200);
    await sleep(500);
    // In pages of 20 (10 MB): all 40 rows at once would be past RESPONSE_MAX_BYTES.
    const page = (n: number) =>
      server.request('GET', `/api/tasks?pageSize=20&page=${n}&filter=${encodeURIComponent(`projectId==${bigProject.id}`)}`, { key: alice.keys[0] });
    const tasks = [...(await page(0)).body.content, ...(await page(1)).body.content] as Row[];
    expect(tasks).toHaveLength(BIG_ROWS);
    for (const task of tasks) {
      const moved = await server.request('PUT', `/api/tasks/${task.id}`, {
        body: { title: `${task.title.split(' moved')[0]} moved ${unique()}` },
        key: alice.keys[0],
      });
      expect(moved.status, moved.text).toBe(200);
    }
    return readToEnd(answer);
  }

  const limitMessage = `the export reached EXPORT_MAX_ROWS (${BIG_ROWS + 1}) rows as it was streamed, and more rows follow: it ends here; narrow it with filter or query`;

  it('ends NDJSON at the limit with a last line {"error": {...}} naming it, and logs it', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const lines = (await exportWhileRowsMove('ndjson')).split('\n');
    expect(lines.pop()).toBe('');
    const last = JSON.parse(lines.pop()!);
    expect(last).toEqual({ error: { error: 'Bad Request', message: limitMessage, status: 400 } });
    const rows = lines.map((line) => JSON.parse(line));
    expect(rows).toHaveLength(BIG_ROWS + 1);
    // Rows came again: the limit, not the count before, ended it.
    expect(new Set(rows.map((row) => row.id)).size).toBeLessThan(rows.length);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ resource: 'tasks', status: 400, userId: alice.id }), `export ended early: ${limitMessage}`);
  });

  it('ends CSV at the limit without the final CRLF, and logs it', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const text = await exportWhileRowsMove('csv');
    expect(text.endsWith('\r\n')).toBe(false);
    const [header, ...records] = parseCsv(`${text}\r\n`);
    expect(header).toContain('title');
    expect(records).toHaveLength(BIG_ROWS + 1);
    // The last record is whole: only its line break is missing.
    expect(records.at(-1)).toHaveLength(header.length);
    expect(records.at(-1)![header.indexOf('description')]).toBe(DESCRIPTION);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ resource: 'tasks', status: 400 }), `export ended early: ${limitMessage}`);
  });

  it('lets an export of exactly EXPORT_MAX_ROWS rows end as usual', async () => {
    const exact = await startServer({ exportMaxRows: 6, exportBatchRows: 2 });
    try {
      const project = await createProject(server, bigProject.organizationId, {}, alice.keys[0]);
      for (let i = 0; i < 6; i++) await createTask(server, project.id, { title: `Exact ${i}` }, alice.keys[0]);
      const path = `/api/tasks/export?filter=${encodeURIComponent(`projectId==${project.id}`)}&sort=updatedOn:asc`;
      const ndjson = await exact.request('GET', `${path}&format=ndjson`, { key: alice.keys[0] });
      const lines = ndjson.text.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((line) => JSON.parse(line).title)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Exact ${i}`));
      const csv = await exact.request('GET', `${path}&format=csv`, { key: alice.keys[0] });
      expect(csv.text.endsWith('\r\n')).toBe(true);
      expect(parseCsv(csv.text)).toHaveLength(7);
    } finally {
      await exact.close();
    }
  });
});

describe('CSV cells', () => {
  it("write text a spreadsheet would run as a formula with a leading ', and numbers, booleans, null and NDJSON as they are", async () => {
    const project = await createProject(server, bigProject.organizationId, {}, alice.keys[0]);
    const formulas = ['=HYPERLINK("https://example.com/x?a=1","open")', '+1+2', '-2', '@SUM(A1:A9)', '\tTabbed', '\rReturned'];
    const harmless = ['Plain title', 'a = b', "'quoted already"];
    const created: Row[] = [];
    for (const [i, title] of [...formulas, ...harmless].entries()) {
      created.push(await createTask(server, project.id, { title, priority: -3 - i, properties: { note: '=1+1' } }, alice.keys[0]));
    }
    const path = `/api/tasks/export?filter=${encodeURIComponent(`projectId==${project.id}`)}&sort=priority:desc`;

    const csv = await server.request('GET', `${path}&format=csv`, { key: alice.keys[0] });
    expect(csv.status, csv.text).toBe(200);
    const [header, ...records] = parseCsv(csv.text);
    const cells = records.map((record) => Object.fromEntries(header.map((name, i) => [name, record[i]])));
    expect(cells.map((c) => c.title)).toEqual([...formulas.map((title) => `'${title}`), ...harmless]);
    expect(cells.map((c) => c.priority)).toEqual(created.map((_, i) => String(-3 - i)));
    expect(cells.every((c) => c.locked === 'false' && c.dueDate === '')).toBe(true);
    // Objects are JSON text, never a formula, whatever they hold.
    expect(cells.every((c) => c.properties === '{"note":"=1+1"}')).toBe(true);

    const ndjson = await server.request('GET', `${path}&format=ndjson`, { key: alice.keys[0] });
    const rows = ndjson.text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => row.title)).toEqual([...formulas, ...harmless]);
    expect(rows.map((row) => row.priority)).toEqual(created.map((_, i) => -3 - i));
  });
});
