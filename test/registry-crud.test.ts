import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionPath, type Resource } from '../src/model/resource';
import { resources } from '../src/catalog/registry';
import { createOrganization } from './support/fixtures';
import { buildCreateBody, buildUpdateBody, createRecord, createUser } from './support/resource-bodies';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * One generic CRUD round trip per registered resource, on REST and on GraphQL, driven by the registry
 * alone: a resource added to src/catalog/registry.ts is covered here without new test code.
 */

let server: TestServer;
/** API key of a user who creates a fresh organization per resource and owns it. */
let ownerKey: string;

beforeAll(async () => {
  server = await startServer();
  const owner = await createUser(server, { firstName: 'CrudOwner' });
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('key'), userId: owner.id } });
  expect(token.status, token.text).toBe(201);
  ownerKey = token.body.token;
});
afterAll(() => server.close());

/** The owner of the fresh organization, or the platform administrator for resources only administrators write. */
function keyFor(resource: Resource): string {
  return Object.values(resource.access).includes('admin') ? server.adminKey : ownerKey;
}

/** Fields stored with the row and answered (not an access token's `token`, computed for one answer only, nor a secret's write-only value). */
function storedFields(resource: Resource): string[] {
  return resource.fields.filter((f) => f.options.persist !== false && !f.options.writeOnly).map((f) => f.name);
}

/**
 * An answer without the fields computed for one answer and never stored (`persist: false`, such as an
 * access token's `token`, which only the create answer fills in).
 */
function withoutAnswerOnly(resource: Resource, row: Record<string, unknown>): Record<string, unknown> {
  const answerOnly = new Set(resource.fields.filter((f) => f.options.persist === false).map((f) => f.name));
  return Object.fromEntries(Object.entries(row).filter(([key]) => !answerOnly.has(key)));
}

function pick(row: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, row[f]]));
}

function ok(answer: Answer, status: number, what: string) {
  expect(answer.status, `${what}: ${answer.text}`).toBe(status);
}

async function restListIds(base: string, id: string, key: string): Promise<string[]> {
  const answer = await server.request('GET', `${base}?${new URLSearchParams({ filter: `id==${id}` })}`, { key });
  ok(answer, 200, `GET ${base}?filter=id==${id}`);
  return answer.body.content.map((row: { id: string }) => row.id);
}

async function gqlData(query: string, variables: Record<string, unknown>, key: string): Promise<any> {
  return server.graphqlData(query, variables, key);
}

describe.each(resources.map((resource) => [resource.path, resource] as const))('%s', (path, resource) => {
  const { name, itemName, listName, operations, delete: mode } = resource;
  const selection = storedFields(resource).join(' ');
  const itemQuery = `query($id: ID!) { ${itemName}(id: $id) { ${selection} } }`;
  // A nested collection's list names its parent (`organizationSecrets(organizationId: ...)`).
  const parentArgument = resource.parent ? `, ${resource.parent.field}: $parent` : '';
  const listQuery = `query($filter: String${resource.parent ? ', $parent: ID!' : ''}) { ${listName}(filter: $filter${parentArgument}) { totalElements content { id } } }`;

  const restSteps = [operations.create && 'create', 'get', 'list', operations.update && 'update', 'sequence', operations.delete && 'delete']
    .filter(Boolean)
    .join(', ');
  const gqlSteps = [operations.create && `create${name}`, itemName, listName, operations.update && `update${name}`, operations.delete && `delete${name}`]
    .filter(Boolean)
    .join(', ');
  const seeded = operations.create ? '' : ' (row seeded in the database: no create)';

  it(`REST: ${restSteps} /api/${path}${seeded}`, async () => {
    const key = keyFor(resource);
    const organizationId = (await createOrganization(server, {}, ownerKey)).id;
    const base = `/api/${collectionPath(resource, organizationId)}`;

    // create (read-only collections: a row seeded in the database)
    let created: Record<string, any>;
    if (operations.create) {
      const body = await buildCreateBody(server, resource, { organizationId, key });
      const post = await server.request('POST', `${base}`, { body, key });
      ok(post, 201, `POST ${base} ${JSON.stringify(body)}`);
      expect(post.headers.get('location'), 'Location').toMatch(new RegExp(`${base}/${post.body.id}$`));
      expect(post.body.changeSequence).toBe(0);
      created = post.body;
    } else {
      created = await createRecord(server, resource, { organizationId, key });
    }
    const id = created.id as string;

    // get
    const get = await server.request('GET', `${base}/${id}`, { key });
    ok(get, 200, `GET /api/${path}/${id}`);
    expect(withoutAnswerOnly(resource, get.body)).toEqual(withoutAnswerOnly(resource, created));

    // list
    expect(await restListIds(base, id, key)).toEqual([id]);

    // update
    let expectedSequence = 0;
    if (operations.update) {
      const { field, body } = await buildUpdateBody(server, resource, get.body);
      const put = await server.request('PUT', `${base}/${id}`, { body, key });
      ok(put, 200, `PUT /api/${path}/${id} ${JSON.stringify(body)}`);
      expect(put.body.changeSequence).toBe(1);
      expect(put.body[field]).toEqual(body[field]);
      expectedSequence = 1;
    }

    // sequence
    const sequence = await server.request('GET', `${base}/${id}/sequence`, { key });
    ok(sequence, 200, `GET /api/${path}/${id}/sequence`);
    expect(sequence.text.trim()).toBe(String(expectedSequence));

    // delete
    if (!operations.delete) return;
    const del = await server.request('DELETE', `${base}/${id}`, { key });
    ok(del, 204, `DELETE /api/${path}/${id}`);
    expect(del.text).toBe('');
    const after = await server.request('GET', `${base}/${id}`, { key });
    if (mode.kind === 'soft' && !mode.hide) {
      ok(after, 200, `GET /api/${path}/${id} after delete`);
      expect(after.body[mode.field]).toBe(mode.value);
      expect(await restListIds(base, id, key)).toEqual([id]);
    } else {
      ok(after, 404, `GET /api/${path}/${id} after delete`);
      if (mode.kind === 'soft') expect(await restListIds(base, id, key)).toEqual([]);
    }
  });

  it(`GraphQL: ${gqlSteps}${seeded}`, async () => {
    const key = keyFor(resource);
    const organizationId = (await createOrganization(server, {}, ownerKey)).id;
    const base = `/api/${collectionPath(resource, organizationId)}`;

    let created: Record<string, any>;
    if (operations.create) {
      const input = await buildCreateBody(server, resource, { organizationId, key });
      const data = await gqlData(`mutation($input: ${name}CreateRequest!) { create${name}(input: $input) { ${selection} } }`, { input }, key);
      created = data[`create${name}`];
      expect(created.changeSequence).toBe(0);
    } else {
      created = pick(await createRecord(server, resource, { organizationId, key }), storedFields(resource));
    }
    const id = created.id as string;

    const item = (await gqlData(itemQuery, { id }, key))[itemName];
    expect(item).toEqual(created);

    const list = (await gqlData(listQuery, { filter: `id==${id}`, ...(resource.parent ? { parent: organizationId } : {}) }, key))[listName];
    expect(list.content.map((row: { id: string }) => row.id)).toEqual([id]);
    expect(list.totalElements).toBe(1);

    if (operations.update) {
      const rest = await server.request('GET', `${base}/${id}`, { key });
      ok(rest, 200, `GET /api/${path}/${id}`);
      const { field, body } = await buildUpdateBody(server, resource, rest.body);
      const data = await gqlData(
        `mutation($id: ID!, $input: ${name}UpdateRequest!) { update${name}(id: $id, input: $input) { ${selection} } }`,
        { id, input: body },
        key,
      );
      const updated = data[`update${name}`];
      expect(updated.changeSequence).toBe(1);
      expect(updated[field]).toEqual(body[field]);
      expect((await gqlData(itemQuery, { id }, key))[itemName]).toEqual(updated);
    }

    if (!operations.delete) return;
    const deleted = await gqlData(`mutation($id: ID!) { delete${name}(id: $id) }`, { id }, key);
    expect(deleted[`delete${name}`]).toBe(true);
    const after = await server.graphql(itemQuery, { id }, key);
    expect(after.status, after.text).toBe(200);
    const listed = (await gqlData(listQuery, { filter: `id==${id}`, ...(resource.parent ? { parent: organizationId } : {}) }, key))[listName];
    if (mode.kind === 'soft' && !mode.hide) {
      expect(after.body.errors, after.text).toBeUndefined();
      expect(after.body.data?.[itemName]?.[mode.field], after.text).toBe(mode.value);
      expect(listed.content.map((row: { id: string }) => row.id)).toEqual([id]);
    } else {
      expect(after.body.errors, after.text).toBeUndefined();
      expect(after.body.data?.[itemName], after.text).toBeNull();
      if (mode.kind === 'soft') expect(listed.content).toEqual([]);
    }
  });
});
