import 'reflect-metadata';
import { STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionPath, type Resource } from '../src/model/resource';
import { resources } from '../src/catalog/registry';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { buildCreateBody, buildUpdateBody, createUser, parentIdOf } from './support/resource-bodies';
import { startServer, unique, type Answer, type TestServer } from './support/server';
import { Migration20261126152300 } from '../migrations/Migration20261126152300';

/**
 * REST answers as documented: a create or update carries its row's strong ETag and nothing else
 * tags answers implicitly; a body must be JSON (415 otherwise); every slug is derived when omitted;
 * an operation body must be a JSON object; a new organization is `archived: false`.
 */

let server: TestServer;
/** API key of a user who owns the organizations the registry tests create. */
let ownerKey: string;
let organizationId: string;

beforeAll(async () => {
  server = await startServer();
  const owner = await createUser(server, { firstName: 'AnswersOwner' });
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('key'), userId: owner.id } });
  expect(token.status, token.text).toBe(201);
  ownerKey = token.body.token;
  organizationId = (await createOrganization(server)).id;
});
afterAll(() => server.close());

const SLUG = /^[a-z0-9-]+$/;
const tagOf = (row: { id: string; changeSequence: number }) => `"${row.id}.${row.changeSequence}"`;

function expectError(answer: Answer, status: number, mentions?: RegExp): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toMatchObject({ error: STATUS_CODES[status], status });
  if (mentions) expect(answer.body.message).toMatch(mentions);
}

/** A request with exactly these headers (the API key added) and a raw body: no Content-Type unless given. */
async function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': server.adminKey, ...headers },
    // A byte body: fetch adds no Content-Type of its own (a string body would be text/plain).
    body: body === undefined ? undefined : new TextEncoder().encode(body),
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers, text };
}

/** The owner of a fresh organization, or the platform administrator for resources only administrators write. */
function keyFor(resource: Resource): string {
  return Object.values(resource.access).includes('admin') ? server.adminKey : ownerKey;
}

describe('ETags of writes', () => {
  it('a create answers the strong ETag GET answers, and If-Match with it lets the next PUT through', async () => {
    const created = await server.request('POST', '/api/labels', { body: { name: unique('l'), organizationId } });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('etag')).toBe(tagOf(created.body));
    const read = await server.request('GET', `/api/labels/${created.body.id}`);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));

    const updated = await server.request('PUT', `/api/labels/${created.body.id}`, {
      body: { name: unique('l2') },
      headers: { 'if-match': created.headers.get('etag')! },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.headers.get('etag')).toBe(`"${created.body.id}.1"`);
    expect(updated.headers.get('etag')).toBe(tagOf(updated.body));
  });

  it('an Idempotency-Key replay of a create carries the same ETag', async () => {
    const key = unique('idem');
    const body = { name: unique('l'), organizationId };
    const first = await server.request('POST', '/api/labels', { body, headers: { 'idempotency-key': key } });
    const again = await server.request('POST', '/api/labels', { body, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(tagOf(first.body));
  });

  const creatable = resources.filter((r) => r.operations.create);
  it.each(creatable.map((r) => [r.path, r] as const))("%s: create and update answer the row's own ETag", async (_path, resource) => {
    const key = keyFor(resource);
    const orgId = (await createOrganization(server, {}, ownerKey)).id;
    const body = await buildCreateBody(server, resource, { organizationId: orgId, key });
    const base = `/api/${collectionPath(resource, parentIdOf(resource, body))}`;
    const created = await server.request('POST', base, { body, key });
    expect(created.status, `POST ${base}: ${created.text}`).toBe(201);
    expect(created.headers.get('etag')).toBe(tagOf(created.body));
    if (!resource.operations.update) return;
    const { body: change } = await buildUpdateBody(server, resource, created.body);
    const updated = await server.request('PUT', `${base}/${created.body.id}`, { body: change, key, headers: { 'if-match': created.headers.get('etag')! } });
    expect(updated.status, `PUT ${base}/${created.body.id}: ${updated.text}`).toBe(200);
    expect(updated.headers.get('etag')).toBe(tagOf(updated.body));
  });

  it('answers no ETag of Express on what the server does not tag, and no 304 there', async () => {
    const project = await createProject(server, organizationId);
    const task = await createTask(server, project.id);
    const locked = await server.request('PUT', `/api/tasks/${task.id}/lock`);
    expect(locked.status, locked.text).toBe(200);
    expect(locked.headers.get('etag')).toBeNull();

    // If-None-Match: * would have let Express answer 304 on any GET.
    for (const path of [`/api/tasks/${task.id}/sequence`, '/health/live']) {
      const answer = await server.request('GET', path, { headers: { 'if-none-match': '*' } });
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      expect(answer.headers.get('etag'), path).toBeNull();
    }
    const graphql = await server.graphql('{ __typename }');
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get('etag')).toBeNull();
  });

  it('serves the OpenAPI document with a strong ETag of its own, 304 while it is current', async () => {
    const first = await server.request('GET', '/v3/api-docs');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.body.openapi).toMatch(/^3\./);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[\w-]+"$/);
    const again = await server.request('GET', '/v3/api-docs', { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await server.request('GET', '/v3/api-docs', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it("tags /api/account/me with the caller's row, as GET /api/users/{id} does", async () => {
    const me = await server.request('GET', '/api/account/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('etag')).toBe(tagOf(me.body));
    expect((await server.request('GET', '/api/account/me', { headers: { 'if-none-match': tagOf(me.body) } })).status).toBe(304);
  });
});

describe('request content type', () => {
  const TEXT_PLAIN = /Content-Type text\/plain.*application\/json/;

  it('refuses a JSON body sent as text/plain or without a Content-Type with 415, and writes nothing', async () => {
    const name = unique('typed');
    const body = JSON.stringify({ name, organizationId });
    expectError(await raw('POST', '/api/labels', { 'content-type': 'text/plain' }, body), 415, TEXT_PLAIN);
    expectError(await raw('POST', '/api/labels', {}, body), 415, /no Content-Type.*application\/json or application\/\*\+json/);
    expectError(await raw('POST', '/api/labels', { 'content-type': 'application/x-www-form-urlencoded' }, body), 415, /application\/x-www-form-urlencoded/);
    const listed = await server.request('GET', `/api/labels?filter=${encodeURIComponent(`name=='${name}'`)}`);
    expect(listed.body.totalElements).toBe(0);
  });

  it('refuses a body of another type before an Idempotency-Key is claimed: the retry sent as JSON runs', async () => {
    const key = unique('idem-typed');
    const name = unique('typed');
    const body = JSON.stringify({ name, organizationId });
    expectError(await raw('POST', '/api/labels', { 'content-type': 'text/plain', 'idempotency-key': key }, body), 415, TEXT_PLAIN);
    const retried = await raw('POST', '/api/labels', { 'content-type': 'application/json', 'idempotency-key': key }, body);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const mutation = JSON.stringify({ query: `mutation { createLabel(input: { name: "${unique('g')}", organizationId: "${organizationId}" }) { id } }` });
    const gKey = unique('idem-gql');
    expect((await raw('POST', '/graphql', { 'content-type': 'text/plain', 'idempotency-key': gKey }, mutation)).status).toBe(415);
    expect((await raw('POST', '/graphql', { 'content-type': 'application/json', 'idempotency-key': gKey }, mutation)).status).toBe(200);
  });

  it('accepts application/json with parameters and application/*+json', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json', 'APPLICATION/JSON']) {
      const answer = await raw('POST', '/api/labels', { 'content-type': type }, JSON.stringify({ name: unique('l'), organizationId }));
      expect(answer.status, `${type}: ${answer.text}`).toBe(201);
    }
  });

  it('needs no Content-Type without a body: PUT lock and unlock, DELETE, GET', async () => {
    const project = await createProject(server, organizationId);
    const task = await createTask(server, project.id);
    expect((await raw('PUT', `/api/tasks/${task.id}/lock`, {})).status).toBe(200);
    expect((await raw('PUT', `/api/tasks/${task.id}/unlock`, {})).status).toBe(200);
    expect((await raw('GET', `/api/tasks/${task.id}`, {})).status).toBe(200);
    const label = await server.request('POST', '/api/labels', { body: { name: unique('l'), organizationId } });
    expect((await raw('DELETE', `/api/labels/${label.body.id}`, {})).status).toBe(204);
  });

  it('refuses other types on updates, operations, the AI gateway and the bridge proxy', async () => {
    const project = await createProject(server, organizationId);
    const task = await createTask(server, project.id);
    const json = JSON.stringify({ title: 'x' });
    const refused = [
      ['PUT', `/api/tasks/${task.id}`],
      ['PUT', `/api/tasks/${task.id}/status`],
      ['PUT', `/api/tasks/${task.id}/unlock`],
      ['POST', '/api/batch-update'],
      ['POST', `/api/service-bridges/${task.id}/proxy/any`],
      ['PUT', `/api/service-bridges/${task.id}/proxy`],
    ];
    for (const [method, path] of refused) expectError(await raw(method, path, { 'content-type': 'text/plain' }, json), 415, TEXT_PLAIN);
    // The AI gateway answers its errors in the shape OpenAI clients read.
    const gateway = await raw('POST', '/api/ai/chat/completions', { 'content-type': 'text/plain' }, json);
    expect(gateway.status, gateway.text).toBe(415);
    expect(gateway.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'UNSUPPORTED_MEDIA_TYPE', param: null }, status: 415 });
    expect(gateway.body.message).toMatch(TEXT_PLAIN);
    expect(gateway.body.error.message).toBe(gateway.body.message);
    expect((await server.request('GET', `/api/tasks/${task.id}`)).body.title).not.toBe('x');
  });

  it('refuses a large body of another type before reading it; a large JSON body stays 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    expectError(await raw('POST', '/api/labels', { 'content-type': 'text/plain' }, big), 415);
    expectError(await raw('POST', '/api/labels', { 'content-type': 'application/json' }, big), 413);
  });

  it('refuses a GraphQL body that is not application/json with 415 in the GraphQL error format', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    for (const headers of [
      { 'content-type': 'text/plain' },
      {},
      { 'content-type': 'application/graphql' },
      { 'content-type': 'application/merge-patch+json' },
    ]) {
      const answer = await raw('POST', '/graphql', headers, body);
      expect(answer.status, `${JSON.stringify(headers)}: ${answer.text}`).toBe(415);
      expect(answer.headers.get('content-type')).toMatch(/json/);
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].message).toMatch(/send it as application\/json$/);
      expect(answer.body.errors[0].extensions).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    }
    const ok = await raw('POST', '/graphql', { 'content-type': 'application/json; charset=utf-8' }, body);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('slugs derived when omitted', () => {
  it('gives a knowledge set created without a slug one from its name; its GET body sent back as a PUT is 200', async () => {
    const created = await server.request('POST', '/api/knowledge-sets', { body: { name: 'Master Agreements', organizationId } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.slug).toMatch(/^master-agreements(-\d+)?$/);
    const again = await server.request('POST', '/api/knowledge-sets', { body: { name: 'Master Agreements', organizationId } });
    expect(again.body.slug).not.toBe(created.body.slug);
    expect(again.body.slug).toMatch(/^master-agreements-\d+$/);

    const read = await server.request('GET', `/api/knowledge-sets/${created.body.id}`);
    const put = await server.request('PUT', `/api/knowledge-sets/${created.body.id}`, { body: read.body });
    expect(put.status, put.text).toBe(200);
    expect(put.body.slug).toBe(created.body.slug);
  });

  it('does so through GraphQL too', async () => {
    const data = await server.graphqlData(`mutation($input: KnowledgeSetCreateRequest!) { createKnowledgeSet(input: $input) { id slug } }`, {
      input: { name: 'Ünïcode Clauses!', organizationId },
    });
    expect(data.createKnowledgeSet.slug).toMatch(/^unicode-clauses(-\d+)?$/);
    const nameless = await server.graphqlData(`mutation($input: KnowledgeSetCreateRequest!) { createKnowledgeSet(input: $input) { slug } }`, {
      input: { name: '***', organizationId },
    });
    expect(nameless.createKnowledgeSet.slug).toMatch(/^knowledge-set(-\d+)?$/);
  });

  it('derives the slugs of knowledge sets stored with "" (migration), each free within its organization', async () => {
    const orgId = (await createOrganization(server)).id;
    const taken = await server.request('POST', '/api/knowledge-sets', { body: { name: 'Legacy Terms', slug: 'legacy-terms', organizationId: orgId } });
    const ids: string[] = [];
    for (const name of ['Legacy Terms', 'Legacy Terms', 'Crème Brûlée', '!!!']) {
      const created = await server.request('POST', '/api/knowledge-sets', { body: { name, organizationId: orgId } });
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.id);
    }
    const connection = server.orm.em.getConnection();
    await connection.execute(`update knowledge_set set slug = '' where id in (${ids.map(() => '?').join(', ')})`, ids);

    const migration = new Migration20261126152300(server.orm.em.getDriver(), server.orm.config);
    await migration.up();
    for (const query of migration.getQueries()) await connection.execute(String(query));

    const slugs = await Promise.all(ids.map(async (id) => (await server.request('GET', `/api/knowledge-sets/${id}`)).body.slug));
    expect(taken.body.slug).toBe('legacy-terms');
    expect(slugs).toEqual(['legacy-terms-1', 'legacy-terms-2', 'creme-brulee', 'knowledge-set']);
    const read = await server.request('GET', `/api/knowledge-sets/${ids[0]}`);
    expect((await server.request('PUT', `/api/knowledge-sets/${ids[0]}`, { body: read.body })).status).toBe(200);
  });

  const slugged = resources.filter((r) => r.operations.create && r.fields.some((f) => f.name === 'slug'));
  it('covers every slugged resource', () => {
    expect(slugged.map((r) => r.path)).toContain('knowledge-sets');
  });
  it.each(slugged.map((r) => [r.path, r] as const))(
    '%s: created without a slug, it answers one of ^[a-z0-9-]+$ that a PUT of the GET body keeps',
    async (_path, resource) => {
      const key = keyFor(resource);
      const orgId = (await createOrganization(server, {}, ownerKey)).id;
      const body = await buildCreateBody(server, resource, { organizationId: orgId, key });
      delete body.slug;
      const base = `/api/${collectionPath(resource, parentIdOf(resource, body))}`;
      const created = await server.request('POST', base, { body, key });
      expect(created.status, `POST ${base}: ${created.text}`).toBe(201);
      expect(created.body.slug).toMatch(SLUG);
      if (!resource.operations.update) return;
      const read = await server.request('GET', `${base}/${created.body.id}`, { key });
      const put = await server.request('PUT', `${base}/${created.body.id}`, { body: read.body, key });
      expect(put.status, `PUT ${base}/${created.body.id}: ${put.text}`).toBe(200);
      expect(put.body.slug).toBe(created.body.slug);
    },
  );
});

describe('operation bodies', () => {
  it('refuses a step error body that is not a JSON object, naming what it is; an object is 202', async () => {
    const project = await createProject(server, organizationId);
    const org = await server.request('GET', `/api/organizations/${organizationId}`);
    const plan = await server.request('POST', '/api/activity-plans', {
      body: { name: unique('plan'), organizationId, steps: [{ stepType: 'SCRIPT', options: { expression: '1' } }] },
    });
    expect(plan.status, plan.text).toBe(201);
    const trigger = await server.request('POST', '/api/triggers', {
      body: { projectId: project.id, eventKind: 'manual', activityPlanRef: `activity-plan://${org.body.slug}/${plan.body.slug}` },
    });
    expect(trigger.status, trigger.text).toBe(201);
    const fired = await server.request('POST', `/api/triggers/${trigger.body.id}/fire`);
    expect(fired.status, fired.text).toBe(202);
    const path = `/api/orchestrator/activities/${fired.body.id}/steps/${fired.body.steps[0].id}/error`;

    const refusals: [string, RegExp][] = [
      ['[1]', /not an array/],
      ['[]', /not an array/],
      ['"worker lost"', /not a string/],
      ['""', /not a string/],
      ['17', /not a number/],
      ['true', /not a boolean/],
      ['null', /not null/],
    ];
    for (const [body, named] of refusals)
      expectError(await server.request('POST', path, { body }), 400, new RegExp(`request body must be a JSON object, ${named.source}`));
    expectError(await raw('POST', path, {}), 400, /request body is required/);
    expect((await server.request('GET', `/api/activities/${fired.body.id}`)).body.status).not.toBe('FAILED');

    const answer = await server.request('POST', path, { body: { reason: 'worker lost' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.errorDetails).toEqual({ reason: 'worker lost' });
  });

  it('holds every operation to the same rule: a body, when sent, is a JSON object', async () => {
    const project = await createProject(server, organizationId);
    const task = await createTask(server, project.id);
    expectError(await server.request('PUT', `/api/tasks/${task.id}/status`, { body: '["done"]' }), 400, /not an array/);
    expectError(await server.request('PUT', `/api/tasks/${task.id}/lock`, { body: 'null' }), 400, /not null/);
    expectError(await server.request('POST', '/api/batch-update', { body: '"x"' }), 400, /not a string/);
    // Without a body, the required arguments are named as missing.
    const missing = await server.request('POST', '/api/batch-update');
    expectError(missing, 400, /operations: is required/);
    // An operation whose body is optional needs none.
    expect((await server.request('PUT', `/api/tasks/${task.id}/lock`)).status).toBe(200);
    expect((await server.request('PUT', `/api/tasks/${task.id}/unlock`, { body: {} })).status).toBe(200);
  });
});

describe('organization archived', () => {
  it('is false on a new organization, over REST and GraphQL, and the column holds no null', async () => {
    const created = await server.request('POST', '/api/organizations', { body: { name: unique('Org') } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.archived).toBe(false);
    expect((await server.request('GET', `/api/organizations/${created.body.id}`)).body.archived).toBe(false);
    const listed = await server.request('GET', `/api/organizations?filter=${encodeURIComponent(`id==${created.body.id}`)}`);
    expect(listed.body.content[0].archived).toBe(false);

    const data = await server.graphqlData(`mutation($input: OrganizationCreateRequest!) { createOrganization(input: $input) { id archived } }`, {
      input: { name: unique('GqlOrg') },
    });
    expect(data.createOrganization.archived).toBe(false);
    const read = await server.graphqlData(`query($id: ID!) { organization(id: $id) { archived } }`, { id: data.createOrganization.id });
    expect(read.organization.archived).toBe(false);

    const connection = server.orm.em.getConnection();
    const [column] = await connection.execute(
      `select is_nullable from information_schema.columns where table_name = 'organization' and column_name = 'archived'`,
    );
    expect(column.is_nullable).toBe('NO');
    expect(await connection.execute(`select count(*)::int as n from organization where archived is null`)).toEqual([{ n: 0 }]);
  });

  it('filters archived==false to the live organizations', async () => {
    const created = await createOrganization(server);
    const listed = await server.request('GET', `/api/organizations?filter=${encodeURIComponent(`id==${created.id};archived==false`)}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.content.map((o: { id: string }) => o.id)).toEqual([created.id]);
  });
});
