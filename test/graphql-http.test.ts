import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, unique, type TestServer } from './support/server';

/**
 * GraphQL over HTTP as its specification describes it: the status of a request error follows the
 * response's media type (200 as application/json, 400 as application/graphql-response+json), while
 * refusals of the HTTP request itself keep theirs; every error's code agrees with its status; and
 * GET / tells where everything is.
 */

let server: TestServer;
/** A server whose budget is two requests a minute (per key, and per address without one). */
let limited: TestServer;
beforeAll(async () => {
  server = await startServer();
  limited = await startServer({ rateLimits: { perMinute: 2, burstPerSecond: 100 } });
});
afterAll(async () => {
  await limited.close();
  await server.close();
});

const JSON_TYPE = 'application/json';
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

interface Answer {
  status: number;
  contentType: string;
  headers: Headers;
  body: any;
  text: string;
}

/** A raw request to `target` (the shared server unless named) with exactly these headers, the admin key added unless `key` is null. */
async function call(
  method: string,
  path: string,
  {
    accept,
    body,
    key,
    headers = {},
    target = server,
  }: { accept?: string; body?: unknown; key?: string | null; headers?: Record<string, string>; target?: TestServer } = {},
): Promise<Answer> {
  const sent: Record<string, string> = { ...headers };
  if (accept !== undefined) sent.accept = accept;
  const credential = key === undefined ? target.adminKey : key;
  if (credential) sent['x-api-key'] = credential;
  if (body !== undefined) sent['content-type'] = 'application/json';
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', headers: response.headers, body: parsed, text };
}

const post = (body: unknown, accept?: string, options: { key?: string | null; target?: TestServer } = {}) =>
  call('POST', '/graphql', { body, accept, ...options });
const get = (params: Record<string, string>, options: { accept?: string; key?: string | null; headers?: Record<string, string> } = {}) =>
  call('GET', `/graphql?${new URLSearchParams(params)}`, options);

/** A request error: no data, every error BAD_REQUEST/400 (the status its meaning has, whatever the HTTP status). */
function expectRequestError(answer: Answer, status: number, mediaType: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.contentType, answer.text).toContain(mediaType);
  expect(answer.body.data, answer.text).toBeUndefined();
  expect(answer.body.errors?.length, answer.text).toBeGreaterThan(0);
  for (const error of answer.body.errors) expect(error.extensions, answer.text).toEqual({ code: 'BAD_REQUEST', status: 400 });
}

/** Organizations named `name`, as REST counts them. */
async function organizationsNamed(name: string): Promise<number> {
  const page = await server.request('GET', `/api/organizations?filter=${encodeURIComponent(`name=="${name}"`)}`);
  expect(page.status, page.text).toBe(200);
  return page.body.totalElements;
}

const REQUEST_ERRORS: [string, unknown][] = [
  ['a document that does not parse', { query: '{ organizations { ' }],
  ['a field the schema lacks', { query: '{ organizations { noSuchField } }' }],
  ['an operation name the document does not define', { query: 'query A { me { id } }', operationName: 'B' }],
  [
    'a query variable that does not coerce (compiled execution)',
    { query: 'query($n: Int!) { organizations(pageSize: $n) { totalElements } }', variables: { n: 'many' } },
  ],
  ['a mutation variable that does not coerce (graphql-js execution)', { query: 'mutation($id: ID!) { deleteOrganization(id: $id) }', variables: {} }],
];

describe('request errors follow the media type of the answer', () => {
  for (const [what, body] of REQUEST_ERRORS) {
    it(`${what}: 200 as application/json, 400 as application/graphql-response+json`, async () => {
      expectRequestError(await post(body, JSON_TYPE), 200, JSON_TYPE);
      expectRequestError(await post(body, GRAPHQL_RESPONSE), 400, GRAPHQL_RESPONSE);
      expectRequestError(await post(body, `${GRAPHQL_RESPONSE}, ${JSON_TYPE};q=0.9`), 400, GRAPHQL_RESPONSE);
    });
  }

  it('answers no Accept, */* and application/json first as application/json (the audit suite of GraphQL over HTTP)', async () => {
    const body = { query: '{ organizations { ' };
    expectRequestError(await post(body), 200, JSON_TYPE);
    expectRequestError(await post(body, '*/*'), 200, JSON_TYPE);
    expectRequestError(await post(body, `${JSON_TYPE}, ${GRAPHQL_RESPONSE};q=0.5`), 200, JSON_TYPE);
    expectRequestError(await get({ query: '{ organizations { ' }), 200, JSON_TYPE);
  });

  it('treats the cost, depth and root-mutation limits as validation rules: 200 as application/json, 400 otherwise, and nothing runs', async () => {
    const costly = {
      query: '{ organizations(pageSize: 100) { content { projects(pageSize: 100) { content { tasks(pageSize: 100) { content { id } } } } } } }',
    };
    expect((await post(costly, JSON_TYPE)).body.errors[0].message).toMatch(/too expensive/);
    expectRequestError(await post(costly, JSON_TYPE), 200, JSON_TYPE);
    expectRequestError(await post(costly, GRAPHQL_RESPONSE), 400, GRAPHQL_RESPONSE);

    const deep = { query: `{ organizations { content { ${'projects { content { organization { '.repeat(4)} id ${'} } } '.repeat(4)} } } }` };
    expect((await post(deep, JSON_TYPE)).body.errors[0].message).toMatch(/too deep/);
    expectRequestError(await post(deep, JSON_TYPE), 200, JSON_TYPE);
    expectRequestError(await post(deep, GRAPHQL_RESPONSE), 400, GRAPHQL_RESPONSE);

    const name = unique('TooManyRoots');
    const roots = Array.from({ length: 21 }, (_, i) => `c${i}: createOrganization(input: { name: "${name}-${i}" }) { id }`).join('\n');
    const mutation = { query: `mutation { ${roots} }` };
    expect((await post(mutation, JSON_TYPE)).body.errors[0].message).toMatch(/root mutation fields/);
    expectRequestError(await post(mutation, JSON_TYPE), 200, JSON_TYPE);
    expectRequestError(await post(mutation, GRAPHQL_RESPONSE), 400, GRAPHQL_RESPONSE);
    const created = await server.request('GET', `/api/organizations?filter=${encodeURIComponent(`name=like="${name}*"`)}`);
    expect(created.body.totalElements, created.text).toBe(0);
  });

  it('answers a field error with 200 and data under both media types', async () => {
    for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE]) {
      const answer = await post({ query: '{ organization(id: "nope") { id } }' }, accept);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toEqual({ organization: null });
      expect(answer.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    }
  });
});

describe('refusals of the HTTP request keep their status whatever the media type', () => {
  it('answers a request that is not a GraphQL request with 400: no query, variables that are not an object, JSON nested too deeply', async () => {
    const deepVariables = { query: 'query($p: JSON) { me { id } }', variables: { p: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`) } };
    for (const body of [{ variables: {} }, { query: '{ me { id } }', variables: [1] }, deepVariables]) {
      for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE]) {
        const answer = await post(body, accept);
        expect(answer.status, `${JSON.stringify(body).slice(0, 80)} ${answer.text}`).toBe(400);
        expect(answer.body.errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
      }
    }
  });

  it('answers a mutation over GET with 405, METHOD_NOT_ALLOWED/405 and Allow: POST, and runs nothing', async () => {
    const name = unique('OverGet');
    for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE, undefined]) {
      const answer = await get({ query: `mutation { createOrganization(input: { name: "${name}" }) { id } }` }, { accept });
      expect(answer.status, answer.text).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors).toEqual([
        { message: expect.stringMatching(/GET requests only support query operations/), extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 } },
      ]);
    }
    expect(await organizationsNamed(name)).toBe(0);
  });

  it('answers a method other than GET and POST with 405 and METHOD_NOT_ALLOWED/405', async () => {
    const answer = await call('PUT', '/graphql', { body: { query: '{ me { id } }' }, accept: JSON_TYPE });
    expect(answer.status, answer.text).toBe(405);
    expect(answer.body.errors[0].extensions).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
  });

  it('refuses an Accept that admits neither JSON type with 406 before anything runs', async () => {
    const name = unique('NotAcceptable');
    const answer = await post({ query: `mutation { createOrganization(input: { name: "${name}" }) { id } }` }, 'text/plain');
    expect(answer.status, answer.text).toBe(406);
    expect(answer.body.errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 406 });
    expect(await organizationsNamed(name)).toBe(0);
  });

  it('answers missing credentials with 401 and a rate limit with 429 under application/json too', async () => {
    const unauthenticated = await post({ query: '{ me { id } }' }, JSON_TYPE, { key: null });
    expect(unauthenticated.status, unauthenticated.text).toBe(401);
    expect(unauthenticated.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });

    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await post({ query: '{ me { id } }' }, JSON_TYPE, { target: limited }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2].body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });
});

describe('errors of queries and mutations', () => {
  it('carry locations for queries (compiled execution) as for mutations', async () => {
    const query = await post({ query: '{\n  organization(id: "nope") { id }\n}' });
    expect(query.body.errors[0]).toMatchObject({ locations: [{ line: 2, column: 3 }], path: ['organization'] });
    const mutation = await post({ query: 'mutation {\n  deleteOrganization(id: "nope")\n}' });
    expect(mutation.body.errors[0]).toMatchObject({ locations: [{ line: 2, column: 3 }], path: ['deleteOrganization'] });
    const coercion = await post(
      { query: 'query Q(\n  $n: Int!\n) { organizations(pageSize: $n) { totalElements } }', variables: { n: 'x' } },
      GRAPHQL_RESPONSE,
    );
    expect(coercion.body.errors[0].locations, coercion.text).toEqual([{ line: 2, column: 3 }]);
  });
});

describe('GET queries and CSRF prevention', () => {
  it('runs a GET query that carries a credential header without apollo-require-preflight', async () => {
    const viaKey = await get({ query: '{ me { id } }' });
    expect(viaKey.status, viaKey.text).toBe(200);
    expect(viaKey.body.data.me.id).toEqual(expect.any(String));
    const viaLegacyHeader = await get({ query: '{ me { id } }' }, { key: null, headers: { 'x-access-token': server.adminKey } });
    expect(viaLegacyHeader.status, viaLegacyHeader.text).toBe(200);
  });
});

describe('automatic persisted queries', () => {
  const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('answers a hash it does not know with PERSISTED_QUERY_NOT_FOUND, then runs the document sent with it, then the hash alone', async () => {
    const query = `{ me { id } } # ${unique('apq')}`;
    const hash = sha256(query);
    for (const attempt of [() => post({ extensions: persisted(hash) }), () => get({ extensions: JSON.stringify(persisted(hash)) })]) {
      const miss = await attempt();
      expect(miss.status, miss.text).toBe(200);
      expect(miss.body.data).toBeUndefined();
      expect(miss.body.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', status: 404 } }]);
    }
    const registered = await post({ query, extensions: persisted(hash) });
    expect(registered.body.data?.me.id, registered.text).toEqual(expect.any(String));
    const byHash = await get({ extensions: JSON.stringify(persisted(hash)) });
    expect(byHash.status, byHash.text).toBe(200);
    expect(byHash.body.data).toEqual(registered.body.data);
  });

  it('refuses a document whose hash is not the one sent with it, and runs nothing', async () => {
    const name = unique('Persisted');
    const query = `mutation { createOrganization(input: { name: "${name}" }) { id } }`;
    const refused = await post({ query, extensions: persisted(sha256('another document')) });
    // A malformed request, whatever the media type.
    expectRequestError(refused, 400, JSON_TYPE);
    expect(refused.body.errors[0].message).toBe('provided sha does not match query');
    expect(await organizationsNamed(name)).toBe(0);
  });
});

describe('subscriptions answer the codes of HTTP', () => {
  it('refuses a document that does not parse, a field the schema lacks and a query with BAD_REQUEST/400 (with locations)', async () => {
    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': server.adminKey },
      retryAttempts: 0,
    });
    const errorsOf = (query: string) =>
      new Promise<any[]>((resolve) => {
        client.subscribe(
          { query },
          { next: (result) => resolve([...(result.errors ?? [])]), error: (error) => resolve(error as any[]), complete: () => resolve([]) },
        );
      });
    try {
      const syntax = await errorsOf('subscription {\n  taskChanged(');
      expect(syntax[0]).toMatchObject({ locations: [{ line: 2, column: 15 }], extensions: { code: 'BAD_REQUEST', status: 400 } });
      expect((await errorsOf('subscription { noSuchField }'))[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
      expect((await errorsOf('{ me { id } }'))[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
    } finally {
      await client.dispose();
    }
  });
});

describe('GET /', () => {
  it('answers the index without credentials: name and version of the API description, and where everything is', async () => {
    const answer = await call('GET', '/', { key: null });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.contentType).toContain(JSON_TYPE);
    const openApi = await server.request('GET', '/v3/api-docs');
    expect(answer.body).toEqual({
      name: openApi.body.info.title,
      version: openApi.body.info.version,
      links: { graphql: '/graphql', graphiql: '/graphql', swaggerUi: '/swagger-ui/', openapi: '/v3/api-docs', health: '/health' },
    });
    expect(answer.headers.get('vary')).toMatch(/accept/i);
    expect((await call('GET', '/', { key: null, accept: '*/*' })).status).toBe(200);
  });

  it('sends a browser on to GraphiQL, which opens without credentials', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    const answer = await call('GET', '/', { key: null, accept: browser });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/graphql');
    const page = await call('GET', '/graphql', { key: null, accept: browser });
    expect(page.status).toBe(200);
    expect(page.contentType).toContain('text/html');
  });

  it("counts against the address's rate limit like the other public answers", async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await call('GET', '/', { key: null, target: limited }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[0].headers.get('x-ratelimit-limit')).toBe('2');
  });
});
