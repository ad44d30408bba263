import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { JOB_SCHEMA, JobWorker } from '../src/jobs/job-queue';
import { IDEMPOTENCY_CRONTAB, idempotencyJobs, IdempotencyStore, PURGE_IDEMPOTENCY_KEYS_JOB } from '../src/engine/idempotency';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';
import { Upstream } from './support/upstream';

/**
 * The Idempotency-Key header on POSTs under /api and GraphQL mutations: the first answer is stored in
 * PostgreSQL per user and key and replayed; another request with the key is 422, a repeat while the
 * first runs 409; 5xx answers store nothing; expired keys are not replayed and are purged by the queue.
 */

let server: TestServer;
let other: TestServer;
let upstream: Upstream;
let member: Caller;
let stranger: Caller;
let organizationId: string;
let projectId: string;
const { newCaller, rest } = callersOf(() => server);

beforeAll(async () => {
  upstream = await Upstream.start();
  server = await startServer({ egress: { privateHostAllowlist: ['127.0.0.1'] } });
  // A second application on the same database: another process as far as the keys are concerned.
  other = await startServer();
  member = await newCaller('Idempotent');
  stranger = await newCaller('IdempotentStranger');
  organizationId = (await createOrganization(server, {}, member.key)).id;
  projectId = (await createProject(server, organizationId, {}, member.key)).id;
});

afterAll(async () => {
  await Promise.all([server?.close(), other?.close()]);
  await upstream?.close();
});

function post(path: string, body: unknown, idempotencyKey: string | undefined, options: { key?: string; via?: TestServer } = {}): Promise<Answer> {
  return (options.via ?? server).request('POST', path, {
    body,
    key: options.key ?? member.key,
    headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
  });
}

async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  return server.orm.em.fork().getConnection().execute<T[]>(text, params);
}

async function tasksTitled(title: string): Promise<number> {
  const [row] = await sql<{ n: number }>('select count(*)::int as n from task where title = ?', [title]);
  return row.n;
}

async function keyRows(userId: string, key: string) {
  return sql<{ state: string; status: number | null; created_on: Date }>(
    'select state, status, created_on from idempotency_key where user_id = ? and key = ?',
    [userId, key],
  );
}

describe('REST creates', () => {
  it('replays the first answer to a repeat: same id, status, Location and body, Idempotent-Replayed: true, one row', async () => {
    const key = unique('create');
    const title = unique('Replayed');
    const first = await post('/api/tasks', { projectId, title, description: 'once' }, key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same request written with other key order and white space is the same request.
    const again = await post('/api/tasks', `{ "description": "once",\n "title": ${JSON.stringify(title)}, "projectId": "${projectId}" }`, key);
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.text).toBe(first.text);
    expect(again.body.id).toBe(first.body.id);
    expect(await tasksTitled(title)).toBe(1);
    expect(await keyRows(member.id, key)).toEqual([expect.objectContaining({ state: 'done', status: 201 })]);
    // Without the header every POST runs.
    expect((await post('/api/tasks', { projectId, title }, undefined)).status).toBe(201);
    expect(await tasksTitled(title)).toBe(2);
  });

  it('answers 422 to the key with another body, path or query, and runs nothing', async () => {
    const key = unique('mismatch');
    const title = unique('Mismatch');
    expect((await post('/api/tasks', { projectId, title }, key)).status).toBe(201);
    for (const [path, body] of [
      ['/api/tasks', { projectId, title: `${title}-2` }],
      ['/api/tasks?x=1', { projectId, title }],
      ['/api/organizations', { projectId, title }],
    ] as const) {
      const answer = await post(path, body, key);
      expect(answer.status, `${path}: ${answer.text}`).toBe(422);
      expect(answer.body).toEqual({ error: 'Unprocessable Entity', status: 422, message: expect.stringContaining('Idempotency-Key') });
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await tasksTitled(title)).toBe(1);
    expect(await tasksTitled(`${title}-2`)).toBe(0);
  });

  it('answers 409 to a repeat of a batch call while the first still runs, then replays its answer', async () => {
    const store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId, name: unique('Store') });
    const family = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: 'in/idempotent.pdf' });
    const object = await rest(member, 'POST', '/api/content-objects', 201, { documentFamilyId: family.id, name: unique('Content') });
    const batch = { operations: [{ id: object.id, changeSequence: 0, summary: 'once' }] };
    const key = unique('inflight');
    // Another connection holds the object's row: the first batch waits for it inside its handler.
    const holder = new pg.Client({ connectionString: inject('databaseUrl') });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from content_object where id = $1 for update', [object.id]);
      const first = post('/api/batch-update', batch, key);
      await expect.poll(async () => (await keyRows(member.id, key))[0]?.state, { timeout: 10_000 }).toBe('running');
      for (const via of [server, other]) {
        const during = await post('/api/batch-update', batch, key, { via });
        expect(during.status, during.text).toBe(409);
        expect(during.body).toEqual({ error: 'Conflict', status: 409, message: expect.stringContaining('still running') });
      }
      await holder.query('commit');
      const answered = await first;
      expect(answered.status, answered.text).toBe(200);
      expect(answered.body.results).toEqual([expect.objectContaining({ ok: true, contentObject: { id: object.id, changeSequence: 1 } })]);
      const after = await post('/api/batch-update', batch, key);
      expect(after.status).toBe(200);
      expect(after.headers.get('idempotent-replayed')).toBe('true');
      expect(after.body).toEqual(answered.body);
      // Only the first ran: a second run would have answered 409 (changeSequence 0 is stale).
      expect((await rest(member, 'GET', `/api/content-objects/${object.id}`, 200)).changeSequence).toBe(1);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });

  it('keeps keys per user: another user sending the same key and body runs anew', async () => {
    const key = unique('shared');
    const first = await post('/api/organizations', { name: unique('Mine') }, key);
    expect(first.status, first.text).toBe(201);
    const theirs = await post('/api/organizations', { name: unique('Theirs') }, key, { key: stranger.key });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(first.body.id);
    // The administrator may create in the member's project: the same body and key is a new task for them.
    const title = unique('PerUser');
    const mine = await post('/api/tasks', { projectId, title }, key + '-task');
    const admins = await post('/api/tasks', { projectId, title }, key + '-task', { key: server.adminKey });
    expect([mine.status, admins.status]).toEqual([201, 201]);
    expect(admins.body.id).not.toBe(mine.body.id);
    expect(admins.headers.get('idempotent-replayed')).toBeNull();
    expect(await tasksTitled(title)).toBe(2);
  });

  it('refuses a key that is empty, longer than 255 characters or not printable ASCII with 400 naming the header', async () => {
    const title = unique('BadKey');
    for (const key of ['', 'k'.repeat(256), 'clé', 'tab\there']) {
      const answer = await post('/api/tasks', { projectId, title }, key);
      expect(answer.status, JSON.stringify(key)).toBe(400);
      expect(answer.body).toMatchObject({ error: 'Bad Request', status: 400, message: expect.stringContaining('Idempotency-Key') });
    }
    expect(await tasksTitled(title)).toBe(0);
    const longest = await post('/api/tasks', { projectId, title }, `${unique('k')} ~!`.padEnd(255, 'x'));
    expect(longest.status, longest.text).toBe(201);
  });

  it('stores and replays a 4xx answer: the repeat is not run again even once it would succeed', async () => {
    const slug = unique('taken');
    const holder = await createOrganization(server, { slug }, member.key);
    const key = unique('refused');
    const name = unique('Refused');
    const refused = await post('/api/organizations', { name, slug }, key);
    expect(refused.status, refused.text).toBe(409);
    await rest(member, 'PUT', `/api/organizations/${holder.id}`, 200, { slug: unique('moved') });
    const replayed = await post('/api/organizations', { name, slug }, key);
    expect(replayed.status).toBe(409);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(refused.body);
    expect((await post('/api/organizations', { name: unique('Fresh'), slug }, unique('fresh'))).status).toBe(201);
  });

  it('composes with the idempotencyKey field of executions: the header replays first, a new header key meets the field', async () => {
    const field = unique('execution');
    const header = unique('header');
    const first = await post('/api/executions', { organizationId, idempotencyKey: field, description: 'first' }, header);
    expect(first.status, first.text).toBe(201);
    const replayed = await post('/api/executions', { organizationId, idempotencyKey: field, description: 'first' }, header);
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.id]).toEqual([201, 'true', first.body.id]);
    // A new header key: the handler runs, and the field answers the earlier execution with 200 (stored for that key).
    const otherHeader = unique('header');
    const earlier = await post('/api/executions', { organizationId, idempotencyKey: field, description: 'second' }, otherHeader);
    expect([earlier.status, earlier.headers.get('idempotent-replayed'), earlier.body.id]).toEqual([200, null, first.body.id]);
    expect(await keyRows(member.id, otherHeader)).toEqual([expect.objectContaining({ state: 'done', status: 200 })]);
    const [{ n }] = await sql<{ n: number }>('select count(*)::int as n from execution where idempotency_key = ?', [field]);
    expect(n).toBe(1);
  });

  it('stores nothing for a 5xx answer (the retry runs), and replays a 4xx one with its content type without calling again', async () => {
    const bridge = (
      await post(
        '/api/service-bridges',
        {
          organizationId,
          name: unique('Bridge'),
          baseUrl: upstream.origin(),
          endpoints: [
            { name: 'broken', method: 'POST', path: '/status/500' },
            { name: 'teapot', method: 'POST', path: '/status/418' },
          ],
        },
        undefined,
      )
    ).body;
    expect(bridge.id).toBeDefined();
    const key = unique('upstream');
    const broken = (via: TestServer) => post(`/api/service-bridges/${bridge.id}/proxy/broken`, { n: 1 }, key, { via });
    const failures = await upstream.during(async () => {
      expect((await broken(server)).status).toBe(500);
      expect(await keyRows(member.id, key)).toEqual([]);
      const retried = await broken(server);
      expect(retried.status).toBe(500);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
    });
    expect(failures).toHaveLength(2);

    const teapotKey = unique('teapot');
    const calls = await upstream.during(async () => {
      const first = await post(`/api/service-bridges/${bridge.id}/proxy/teapot`, { n: 1 }, teapotKey);
      expect(first.status).toBe(418);
      const again = await post(`/api/service-bridges/${bridge.id}/proxy/teapot`, { n: 1 }, teapotKey, { via: other });
      expect(again.status).toBe(418);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toBe('text/x-teapot; charset=latin1');
      expect(again.text).toBe('short and stout');
    });
    expect(calls).toHaveLength(1);
  });
});

describe('across processes and over time', () => {
  it('replays from another server on the same database, and holds after that server restarts', async () => {
    const key = unique('across');
    const title = unique('Across');
    const first = await post('/api/tasks', { projectId, title }, key);
    expect(first.status).toBe(201);
    const fromOther = await post('/api/tasks', { projectId, title }, key, { via: other });
    expect(fromOther.status).toBe(201);
    expect(fromOther.headers.get('idempotent-replayed')).toBe('true');
    expect(fromOther.body.id).toBe(first.body.id);
    const restarted = await startServer();
    try {
      const fromRestarted = await post('/api/tasks', { projectId, title }, key, { via: restarted });
      expect(fromRestarted.headers.get('idempotent-replayed')).toBe('true');
      expect(fromRestarted.body.id).toBe(first.body.id);
    } finally {
      await restarted.close();
    }
    expect(await tasksTitled(title)).toBe(1);
  });

  it('never replays a key older than 24 hours, even before it is purged: the request runs anew', async () => {
    const key = unique('expired');
    const title = unique('Expired');
    const first = await post('/api/tasks', { projectId, title }, key);
    expect(first.status).toBe(201);
    await sql(`update idempotency_key set created_on = created_on - interval '25 hours' where user_id = ? and key = ?`, [member.id, key]);
    const later = await post('/api/tasks', { projectId, title }, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    expect(await tasksTitled(title)).toBe(2);
    // The key now holds the new answer, for 24 hours from now.
    const replayed = await post('/api/tasks', { projectId, title }, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(later.body.id);
    // An expired key may also be reused with another body.
    await sql(`update idempotency_key set created_on = created_on - interval '25 hours' where user_id = ? and key = ?`, [member.id, key]);
    expect((await post('/api/tasks', { projectId, title: `${title}-other` }, key)).status).toBe(201);
  });

  it('lets a retry take over a key left running for 5 minutes (its process died), not one running for less', async () => {
    const title = unique('Abandoned');
    const body = { projectId, title };
    for (const [age, status] of [
      ['6 minutes', 201],
      ['1 minute', 409],
    ] as const) {
      const key = unique('abandoned');
      expect((await post('/api/tasks', body, key)).status).toBe(201);
      // As a request that had begun `age` ago and never answered would have left it.
      await sql(
        `update idempotency_key set state = 'running', status = null, headers = null, body = null, created_on = now() - ?::interval where user_id = ? and key = ?`,
        [age, member.id, key],
      );
      const answer = await post('/api/tasks', body, key);
      expect(answer.status, `${age}: ${answer.text}`).toBe(status);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await tasksTitled(title)).toBe(3);
  });

  it('purges expired keys with a job of the queue, scheduled by its crontab', async () => {
    const expired = unique('purged');
    const fresh = unique('kept');
    expect((await post('/api/tasks', { projectId, title: unique('Purge') }, expired)).status).toBe(201);
    expect((await post('/api/tasks', { projectId, title: unique('Keep') }, fresh)).status).toBe(201);
    await sql(`update idempotency_key set created_on = created_on - interval '25 hours' where user_id = ? and key = ?`, [member.id, expired]);
    // A worker of the purge job alone, so that it takes no job of other suites sharing the database.
    const worker = await JobWorker.start(inject('databaseUrl'), 1, idempotencyJobs(new IdempotencyStore(server.orm)), IDEMPOTENCY_CRONTAB);
    try {
      await expect
        .poll(
          async () => (await sql(`select identifier from ${JOB_SCHEMA}._private_known_crontabs where identifier = ?`, [PURGE_IDEMPOTENCY_KEYS_JOB])).length,
          { timeout: 10_000 },
        )
        .toBe(1);
      await sql(`select ${JOB_SCHEMA}.add_job(?::text, '{}'::json)`, [PURGE_IDEMPOTENCY_KEYS_JOB]);
      await expect.poll(async () => (await keyRows(member.id, expired)).length, { timeout: 15_000 }).toBe(0);
    } finally {
      await worker.stop();
    }
    expect(await keyRows(member.id, fresh)).toHaveLength(1);
  });
});

describe('GraphQL', () => {
  const CREATE_TASK = `mutation($input: TaskCreateRequest!) { createTask(input: $input) { id title } }`;

  function graphql(query: string, variables: Record<string, unknown>, key: string, via = server): Promise<Answer> {
    return via.request('POST', '/graphql', { body: { query, variables }, key: member.key, headers: { 'Idempotency-Key': key } });
  }

  it('replays a mutation, 422 for the key with other variables, and ignores the header on queries', async () => {
    const key = unique('mutation');
    const title = unique('GraphqlReplay');
    const first = await graphql(CREATE_TASK, { input: { projectId, title } }, key);
    expect(first.status, first.text).toBe(200);
    expect(first.body.errors).toBeUndefined();
    const again = await graphql(CREATE_TASK, { input: { title, projectId } }, key, other);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.createTask.id).toBe(first.body.data.createTask.id);
    expect(await tasksTitled(title)).toBe(1);

    const mismatch = await graphql(CREATE_TASK, { input: { projectId, title: `${title}-2` } }, key);
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors[0]).toMatchObject({
      message: expect.stringContaining('Idempotency-Key'),
      extensions: { code: 'UNPROCESSABLE_ENTITY', status: 422 },
    });

    const queryKey = unique('query');
    for (let i = 0; i < 2; i++) {
      const read = await graphql(
        `
          query ($id: ID!) {
            task(id: $id) {
              id
            }
          }
        `,
        { id: first.body.data.createTask.id },
        queryKey,
      );
      expect(read.status, read.text).toBe(200);
      expect(read.headers.get('idempotent-replayed')).toBeNull();
    }
    // A query with an invalid key is not refused either: the header means nothing there.
    expect(
      (
        await graphql(
          `
            {
              me {
                id
              }
            }
          `,
          {},
          'k'.repeat(300),
        )
      ).status,
    ).toBe(200);
    expect(await keyRows(member.id, queryKey)).toEqual([]);
    expect((await graphql(CREATE_TASK, { input: { projectId, title } }, 'k'.repeat(300))).status).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('declares the Idempotency-Key header, 409 and 422 on every POST under /api but the account callback', async () => {
    const doc = (await server.request('GET', '/v3/api-docs')).body;
    expect(doc.components.parameters['Idempotency-Key']).toMatchObject({ in: 'header', required: false, schema: { minLength: 1, maxLength: 255 } });
    expect(doc.components.responses.UnprocessableEntity.content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    const posts = Object.entries<any>(doc.paths).filter(([path, item]) => path.startsWith('/api/') && item.post && path !== '/api/account/callback');
    expect(posts.length).toBeGreaterThan(40);
    for (const [path, { post }] of posts) {
      expect(post.parameters, path).toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
      expect(post.responses['409'], path).toBeDefined();
      // The AI gateway's errors come in the body OpenAI clients read.
      const unprocessable = path.startsWith('/api/ai/') ? 'OpenAiUnprocessableEntity' : 'UnprocessableEntity';
      expect(post.responses['422'], path).toEqual({ $ref: `#/components/responses/${unprocessable}` });
    }
    expect(doc.paths['/api/tasks'].post.responses['201'].headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
    expect(doc.paths['/api/account/callback'].post.parameters ?? []).not.toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
    expect(doc.paths['/api/tasks/{id}'].put.parameters).not.toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
  });
});
