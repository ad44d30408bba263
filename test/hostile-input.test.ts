import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/** Whatever a client sends, the answer is never a server error: each refusal below was a 500 once. */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** A REST refusal with exactly the documented error body. */
function expectRestBadRequest(answer: Answer, label = ''): void {
  expect(answer.status, `${label} ${answer.text}`).toBe(400);
  expect(Object.keys(answer.body).sort(), label).toEqual(expect.arrayContaining(['error', 'message', 'status']));
  expect(answer.body, label).toMatchObject({ error: 'Bad Request', status: 400 });
  expect(typeof answer.body.message, label).toBe('string');
}

/** A GraphQL request refused before it runs: HTTP 400, no data, every error BAD_REQUEST/400. */
function expectGraphqlBadRequest(answer: Answer<{ data?: unknown; errors?: any[] }>, label = ''): void {
  expect(answer.status, `${label} ${answer.text}`).toBe(400);
  expect(answer.body.data, label).toBeUndefined();
  expect(answer.body.errors?.length, `${label} ${answer.text}`).toBeGreaterThan(0);
  for (const error of answer.body.errors!) expect(error.extensions, `${label} ${answer.text}`).toEqual({ code: 'BAD_REQUEST', status: 400 });
}

/** A GraphQL operation that ran and was refused by the engine: one BAD_REQUEST/400 error naming `field`. */
function expectGraphqlFieldRefused(answer: Answer<{ data?: unknown; errors?: any[] }>, field: string): void {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.errors, answer.text).toHaveLength(1);
  expect(answer.body.errors![0].extensions, answer.text).toMatchObject({ code: 'BAD_REQUEST', status: 400, details: [{ field }] });
}

const postGraphql = (body: unknown) => server.request('POST', '/graphql', { body });

describe('path ids with broken percent-encoding', () => {
  const broken = ['%ff', '%', '%zz', '%c0%af', '%E2%82', '%ED%A0%80'];

  it('answer 400 with the error body on every route that takes an id, never 500', async () => {
    for (const id of broken) {
      for (const resource of ['tasks', 'organizations']) {
        const routes: [string, string][] = [
          ['GET', `/api/${resource}/${id}`],
          ['GET', `/api/${resource}/${id}/sequence`],
          ['PUT', `/api/${resource}/${id}`],
          ['DELETE', `/api/${resource}/${id}`],
        ];
        for (const [method, path] of routes) {
          const answer = await server.request(method, path, method === 'PUT' ? { body: { name: 'x' } } : {});
          expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(400);
          expect(answer.body, `${method} ${path}`).toEqual({ error: 'Bad Request', message: expect.stringMatching(/percent-encoded/), status: 400 });
        }
      }
    }
  });

  it('answers 400 naming the id for a decodable id that is not a UUID: NUL, an over-long one', async () => {
    for (const id of ['%00', 'x'.repeat(8000), `${'%41'.repeat(2000)}`]) {
      for (const [method, path] of [
        ['GET', `/api/tasks/${id}`],
        ['GET', `/api/tasks/${id}/sequence`],
        ['PUT', `/api/tasks/${id}`],
        ['DELETE', `/api/tasks/${id}`],
      ]) {
        const answer = await server.request(method, path, method === 'PUT' ? { body: {} } : {});
        expectRestBadRequest(answer, `${method} ${path.slice(0, 40)}`);
        expect(answer.body.details).toEqual([{ field: 'id', message: 'must be a UUID' }]);
      }
    }
  });
});

describe('GraphQL documents that fail validation', () => {
  it('are refused with HTTP 400 and BAD_REQUEST/400: undefined and self-referencing fragments', async () => {
    for (const query of [
      '{ ...F }',
      'fragment F on Query { ...F } { ...F }',
      'fragment F on Query { ...G } fragment G on Query { me { ...F } } { ...F }',
      'fragment F on Query { me { id } } { ...F ...G }',
    ]) {
      expectGraphqlBadRequest(await postGraphql({ query }), query);
    }
  });

  it('are refused with HTTP 400 and BAD_REQUEST/400: operation names the document does not resolve', async () => {
    expectGraphqlBadRequest(await postGraphql({ query: 'query A { me { id } }', operationName: 'B' }), 'unknown operationName');
    expectGraphqlBadRequest(await postGraphql({ query: 'query A { me { id } } query B { me { email } }' }), 'no operationName for two operations');
    expectGraphqlBadRequest(await postGraphql({ query: '{ me { id } }', operationName: 'A' }), 'an anonymous operation named');
    // The same document with its own name runs (the refusals above can fail).
    const named = await postGraphql({ query: 'query A { me { id } } query B { me { email } }', operationName: 'B' });
    expect(named.status, named.text).toBe(200);
    expect(named.body.data.me.email).toBe('admin@localhost');
  });

  it('are refused with HTTP 400 and BAD_REQUEST/400: syntax, unknown fields, variables of the wrong type', async () => {
    const cases: [string, unknown][] = [
      ['parse error', { query: '{ me { ' }],
      ['unknown field', { query: '{ nope }' }],
      ['unknown type', { query: 'fragment F on Nope { id } { ...F }' }],
      ['variable of the wrong type', { query: 'query($p: Int) { tasks(pageSize: $p) { totalElements } }', variables: { p: 'ten' } }],
      ['variable of an unknown type', { query: 'query($p: Nope) { tasks { totalElements } }', variables: { p: 1 } }],
      ['required variable missing', { query: 'query($id: ID!) { task(id: $id) { id } }' }],
      ['unknown input field', { query: 'mutation($i: LabelCreateRequest!) { createLabel(input: $i) { id } }', variables: { i: { name: 'x', nope: 1 } } }],
    ];
    for (const [label, body] of cases) expectGraphqlBadRequest(await postGraphql(body), label);
  });

  it('are refused with HTTP 400 and BAD_REQUEST/400: bodies that are not one GraphQL request', async () => {
    const cases: [string, unknown][] = [
      ['a JSON array', JSON.stringify([{ query: '{ me { id } }' }])],
      ['a JSON string', JSON.stringify('{ me { id } }')],
      ['a number', '3'],
      ['query not a string', { query: 5 }],
      ['query an object', { query: { me: 'id' } }],
      ['variables not an object', { query: '{ me { id } }', variables: [1] }],
      ['operationName not a string', { query: '{ me { id } }', operationName: 5 }],
    ];
    for (const [label, body] of cases) expectGraphqlBadRequest(await postGraphql(body), label);
  });

  it('refuses a long chain of fragments, and a fragment spread exponentially often, as too large to estimate (never a 5xx)', async () => {
    const links = 3000;
    const chain = Array.from({ length: links }, (_, i) => `fragment F${i} on Query { ...F${i + 1} }`).join(' ');
    const long = await postGraphql({ query: `{ ...F0 } ${chain} fragment F${links} on Query { me { id } }` });
    expectGraphqlBadRequest(long, 'chain of fragments');
    expect(long.body.errors![0].message).toMatch(/too large to estimate its cost/);

    // D40 spreads D39 twice, which spreads D38 twice ...: 2^40 spreads when followed one by one.
    const doubling = Array.from({ length: 40 }, (_, i) => `fragment D${i + 1} on Query { ...D${i} ...D${i} }`).join(' ');
    const wide = await postGraphql({ query: `{ ...D40 } ${doubling} fragment D0 on Query { me { id } }` });
    expectGraphqlBadRequest(wide, 'doubling fragments');
    expect(wide.body.errors![0].message).toMatch(/too large to estimate its cost/);
  });

  it("refuses a selection of 100,000 fields, and 150 operations too deep, as the client's", async () => {
    expectGraphqlBadRequest(await postGraphql({ query: `{ me { ${'id '.repeat(100_000)} } }` }), 'wide');
    const deep = `organizations { content { ${'projects { content { organization { '.repeat(4)} id ${'} } } '.repeat(4)} } }`;
    const operations = Array.from({ length: 150 }, (_, i) => `query Q${i} { ${deep} }`).join(' ');
    const answer = await postGraphql({ query: operations, operationName: 'Q0' });
    expectGraphqlBadRequest(answer, 'deep operations');
    expect(answer.body.errors![0].message).toMatch(/too deep/);
  });
});

describe('text PostgreSQL cannot store exactly (unpaired UTF-16 surrogates)', () => {
  let organization: { id: string; description: string };
  let projectId: string;
  beforeAll(async () => {
    organization = await createOrganization(server);
    projectId = (await createProject(server, organization.id)).id;
  });

  /** A JSON body with `\uXXXX` escapes kept as written (JSON.stringify would keep them too; this reads plainly). */
  const raw = (fields: string) => `{${fields}}`;

  it('is refused with 400 naming the field in a string field, on create and update; nothing is written', async () => {
    const title = unique('surrogate');
    const created = await server.request('POST', '/api/tasks', { body: raw(`"projectId":"${projectId}","title":"${title}\\ud800b"`) });
    expectRestBadRequest(created);
    expect(created.body.details).toEqual([{ field: 'title', message: 'must not contain unpaired UTF-16 surrogates' }]);
    const listed = await server.request('GET', `/api/tasks?filter=${encodeURIComponent(`title=like='${title}*'`)}`);
    expect(listed.body.totalElements, listed.text).toBe(0);

    const updated = await server.request('PUT', `/api/organizations/${organization.id}`, { body: raw('"description":"\\udc00 low first"') });
    expectRestBadRequest(updated);
    expect(updated.body.details).toEqual([{ field: 'description', message: 'must not contain unpaired UTF-16 surrogates' }]);
    expect((await server.request('GET', `/api/organizations/${organization.id}`)).body.description).toBe(organization.description);
  });

  it('is refused with 400 naming the field inside JSON fields (values, nested arrays, object keys) and string arrays', async () => {
    const cases: [string, string, string][] = [
      ['organizations', raw('"properties":{"a":"x\\ud800"}'), 'properties'],
      ['organizations', raw('"properties":{"a":[[{"b":"\\udbff"}]]}'), 'properties'],
      ['organizations', raw('"properties":{"key\\udc00":1}'), 'properties'],
      ['organizations', raw('"memory":{"orderedDashboards":["\\ud800"]}'), 'memory'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await server.request('PUT', `/api/${path}/${organization.id}`, { body });
      expectRestBadRequest(answer, body);
      expect(answer.body.details, body).toEqual([{ field, message: 'must not contain unpaired UTF-16 surrogates' }]);
    }
    const task = await server.request('POST', '/api/tasks', { body: raw(`"projectId":"${projectId}","documentFamilyIds":["ok","a\\ud800"]`) });
    expectRestBadRequest(task);
    expect(task.body.details).toEqual([{ field: 'documentFamilyIds', message: 'must not contain unpaired UTF-16 surrogates' }]);
  });

  it('still accepts paired surrogates (characters outside the BMP) and reads them back exactly', async () => {
    const title = `smile \u{1F600} ${unique('pair')}`;
    const created = await server.request('POST', '/api/tasks', {
      body: { projectId, title, properties: { 'k\u{1F600}': ['\u{1F600}'] }, documentFamilyIds: ['\u{1F600}'] },
    });
    expect(created.status, created.text).toBe(201);
    const read = await server.request('GET', `/api/tasks/${created.body.id}`);
    expect(read.body).toMatchObject({ title, properties: { 'k\u{1F600}': ['\u{1F600}'] }, documentFamilyIds: ['\u{1F600}'] });
  });

  it('is refused in GraphQL inputs and in the filter, query and sort arguments', async () => {
    const label = await server.graphql('mutation($i: LabelCreateRequest!) { createLabel(input: $i) { id } }', {
      i: { name: 'x\ud800', organizationId: organization.id },
    });
    expectGraphqlFieldRefused(label, 'name');
    const properties = await server.graphql('mutation($id: ID!, $i: OrganizationUpdateRequest!) { updateOrganization(id: $id, input: $i) { id } }', {
      id: organization.id,
      i: { properties: { 'k\udfff': 1 } },
    });
    expectGraphqlFieldRefused(properties, 'properties');
    for (const argument of ['filter', 'query', 'sort']) {
      const value = argument === 'filter' ? "title=='a\ud800'" : argument === 'sort' ? 'title\ud800:asc' : 'a\ud800';
      const answer = await server.graphql(`query($v: String) { tasks(${argument}: $v) { totalElements } }`, { v: value });
      expectGraphqlFieldRefused(answer, argument);
      expect(answer.body.errors![0].message).toMatch(/surrogates/);
    }
  });

  it('keeps refusing NUL characters in the query parameters, over REST', async () => {
    for (const query of ["filter=title=='a%00'", 'query=a%00', 'sort=title%00:asc']) {
      const answer = await server.request('GET', `/api/tasks?${query}`);
      expectRestBadRequest(answer, query);
      expect(answer.body.message, query).toMatch(/NUL/);
    }
  });
});

describe('large JSON values', () => {
  it('accepts a long array in a JSON field (its strings are checked without spreading it onto the stack)', async () => {
    const organization = await createOrganization(server);
    const answer = await server.request('PUT', `/api/organizations/${organization.id}`, { body: `{"properties":{"a":[${Array(200_000).fill(0).join(',')}]}}` });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.body.properties.a).toHaveLength(200_000);
  });
});

describe('bodies over the limit', () => {
  it('are 413 naming the limit, on REST and GraphQL, and nothing is written', async () => {
    const organization = await createOrganization(server);
    const projectId = (await createProject(server, organization.id)).id;
    const title = unique('huge');
    const rest = await server.request('POST', '/api/tasks', { body: { projectId, title, description: 'x'.repeat(1024 * 1024) } });
    expect(rest.status, rest.text.slice(0, 300)).toBe(413);
    expect(rest.body).toEqual({ error: 'Payload Too Large', message: 'request body is larger than the limit of 1 MB', status: 413 });
    const graphql = await postGraphql({
      query: `mutation { createTask(input: { projectId: "${projectId}", title: "${title}", description: "${'x'.repeat(1024 * 1024)}" }) { id } }`,
    });
    expect(graphql.status, graphql.text.slice(0, 300)).toBe(413);
    expect(graphql.body.errors).toEqual([{ message: 'request body is larger than the limit of 1 MB', extensions: { code: 'PAYLOAD_TOO_LARGE', status: 413 } }]);
    const listed = await server.request('GET', `/api/tasks?filter=${encodeURIComponent(`title=='${title}'`)}`);
    expect(listed.body.totalElements, listed.text).toBe(0);
  });

  it('just under the limit are read', async () => {
    const organization = await createOrganization(server);
    const projectId = (await createProject(server, organization.id)).id;
    const answer = await server.request('POST', '/api/tasks', { body: { projectId, title: unique('big'), description: 'x'.repeat(1000 * 1000) } });
    expect(answer.status, answer.text.slice(0, 300)).toBe(201);
  });
});
