import 'reflect-metadata';
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatGraphqlError } from '../src/graphql/errors';
import { MAX_DOCUMENT_NESTING, MAX_DOCUMENT_TOKENS, requestBoundsIssue } from '../src/graphql/json-depth';
import { MAX_JSON_DEPTH, nestingOf, valueDepth } from '../src/rest/json-body';
import { createOrganization } from './support/fixtures';
import { startServer, type Answer, type TestServer } from './support/server';

/** JSON nesting deeper than 64 levels is 400 on both faces; no message carries an internal error text. */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** `levels` objects one inside the other, as JSON text (JSON.stringify itself recurses once per level). */
const nestedJson = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
/** The same value as a GraphQL literal. */
const nestedLiteral = (levels: number) => '{a:'.repeat(levels) + '1' + '}'.repeat(levels);

const UPDATE = 'mutation($id: ID!, $p: JSON) { updateOrganization(id: $id, input: { properties: $p }) { id properties } }';

/** A POST /graphql whose variables are `{ "id": id, "p": <p as JSON text> }`, written as text. */
const withVariable = (id: string, p: string, key?: string) =>
  server.request('POST', '/graphql', { body: `{"query":${JSON.stringify(UPDATE)},"variables":{"id":${JSON.stringify(id)},"p":${p}}}`, key });

/** A mutation writing `literal` inline as the organization's properties. */
const withLiteral = (id: string, literal: string) =>
  server.request('POST', '/graphql', { body: { query: `mutation { updateOrganization(id: "${id}", input: { properties: ${literal} }) { id } }` } });

/** A GraphQL refusal before anything runs: HTTP 400, no data, BAD_REQUEST/400, a message naming `limit` and no internal text. */
function expectGraphqlRefused(answer: Answer, limit: number, about: RegExp): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.data, answer.text).toBeUndefined();
  expect(answer.body.errors, answer.text).toHaveLength(1);
  const [error] = answer.body.errors;
  expect(error.extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
  expect(error.message).toMatch(about);
  expect(error.message).toContain(String(limit));
  expect(answer.text).not.toMatch(/Maximum call stack|RangeError/);
}

async function propertiesOf(id: string): Promise<unknown> {
  const answer = await server.request('GET', `/api/organizations/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.properties;
}

describe('REST bodies', () => {
  it(`accept ${MAX_JSON_DEPTH} levels and refuse ${MAX_JSON_DEPTH + 1} with 400 naming the limit`, async () => {
    const organization = await createOrganization(server);
    // The body is one level: properties nested one less than the limit fill it exactly.
    const accepted = await server.request('PUT', `/api/organizations/${organization.id}`, { body: `{"properties":${nestedJson(MAX_JSON_DEPTH - 1)}}` });
    expect(accepted.status, accepted.text).toBe(200);
    expect(await propertiesOf(organization.id)).toEqual(JSON.parse(nestedJson(MAX_JSON_DEPTH - 1)));

    const refused = await server.request('PUT', `/api/organizations/${organization.id}`, { body: `{"properties":${nestedJson(MAX_JSON_DEPTH)}}` });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain(String(MAX_JSON_DEPTH));
    expect(await propertiesOf(organization.id)).toEqual(JSON.parse(nestedJson(MAX_JSON_DEPTH - 1)));
  });
});

describe('GraphQL variables', () => {
  it(`accept a variables object of ${MAX_JSON_DEPTH} levels (what REST accepts) and refuse ${MAX_JSON_DEPTH + 1}; nothing is stored`, async () => {
    const organization = await createOrganization(server);
    const accepted = await withVariable(organization.id, nestedJson(MAX_JSON_DEPTH - 1));
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.errors, accepted.text).toBeUndefined();
    const stored = await propertiesOf(organization.id);
    expect(stored).toEqual(JSON.parse(nestedJson(MAX_JSON_DEPTH - 1)));
    // What GraphQL stored, a REST PUT sends back unchanged.
    const echoed = await server.request('PUT', `/api/organizations/${organization.id}`, { body: { properties: stored } });
    expect(echoed.status, echoed.text).toBe(200);

    expectGraphqlRefused(await withVariable(organization.id, nestedJson(MAX_JSON_DEPTH)), MAX_JSON_DEPTH, /^variables: JSON nested deeper than the limit/);
    expect(await propertiesOf(organization.id)).toEqual(stored);
  });

  it('refuse 5,000 levels with 400 (not 500), over POST (and 500 over GET); nothing is stored', async () => {
    const organization = await createOrganization(server, { properties: { kept: true } });
    expectGraphqlRefused(await withVariable(organization.id, nestedJson(5_000)), MAX_JSON_DEPTH, /^variables: /);
    const query = encodeURIComponent('query($p: JSON) { organizations(filter: "name==x") { totalElements } }');
    // A URL holds fewer levels (longer ones are refused by the HTTP server itself, 431).
    const viaGet = await server.request('GET', `/graphql?query=${query}&variables=${encodeURIComponent(`{"p":${nestedJson(500)}}`)}`);
    expectGraphqlRefused(viaGet, MAX_JSON_DEPTH, /^variables: /);
    const extensions = await server.request('POST', '/graphql', { body: `{"query":"{ me { id } }","extensions":${nestedJson(5_000)}}` });
    expectGraphqlRefused(extensions, MAX_JSON_DEPTH, /^extensions: /);
    expect(await propertiesOf(organization.id)).toEqual({ kept: true });
  });
});

describe('GraphQL literals', () => {
  it(`accept a value of ${MAX_JSON_DEPTH} levels and refuse ${MAX_JSON_DEPTH + 1} with 400 naming the limit`, async () => {
    const organization = await createOrganization(server);
    // The input object is one level, as a REST body is.
    const accepted = await withLiteral(organization.id, nestedLiteral(MAX_JSON_DEPTH - 1));
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.errors, accepted.text).toBeUndefined();
    expect(await propertiesOf(organization.id)).toEqual(JSON.parse(nestedJson(MAX_JSON_DEPTH - 1)));

    expectGraphqlRefused(await withLiteral(organization.id, nestedLiteral(MAX_JSON_DEPTH)), MAX_JSON_DEPTH, /^query: a value is nested deeper than the limit/);
    const list = `[${'['.repeat(MAX_JSON_DEPTH)}1${']'.repeat(MAX_JSON_DEPTH)}]`;
    expectGraphqlRefused(await withLiteral(organization.id, `{ list: ${list} }`), MAX_JSON_DEPTH, /^query: a value/);
    expect(await propertiesOf(organization.id)).toEqual(JSON.parse(nestedJson(MAX_JSON_DEPTH - 1)));
  });

  it('refuse 5,000 levels of a value, and of selections, with 400 (not 500), and store nothing', async () => {
    const organization = await createOrganization(server, { properties: { kept: true } });
    expectGraphqlRefused(await withLiteral(organization.id, nestedLiteral(5_000)), MAX_JSON_DEPTH, /^query: a value/);
    const selections = await server.request('POST', '/graphql', { body: { query: `{ ${'me { '.repeat(5_000)} id ${'} '.repeat(5_000)} }` } });
    expectGraphqlRefused(selections, MAX_DOCUMENT_NESTING, /^query: nested deeper than the limit/);
    expect(await propertiesOf(organization.id)).toEqual({ kept: true });
  });

  it('do not count brackets inside strings, block strings and comments', async () => {
    const brackets = '{['.repeat(200);
    const name = `Brackets ${'[{'.repeat(100)}`;
    const query = `mutation($id: ID!) {
      # ${'{'.repeat(500)}
      a: updateOrganization(id: $id, input: { description: """${brackets}""" }) { id }
      b: updateOrganization(id: $id, input: { name: ${JSON.stringify(name)} }) { id name description }
    }`;
    const organization = await createOrganization(server);
    const data = await server.graphqlData(query, { id: organization.id });
    expect(data.b).toMatchObject({ name, description: brackets });
  });
});

describe('the measure', () => {
  it('of a JSON value is the same in its text and parsed (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
        const text = JSON.stringify(value);
        expect(nestingOf(text)).toEqual({ depth: valueDepth(value), valueDepth: 0 });
        expect(valueDepth(JSON.parse(text))).toBe(valueDepth(value));
      }),
    );
  });

  it('of a request names the first part too deep, and nothing within the limits', () => {
    expect(requestBoundsIssue({ query: '{ me { id } }', variables: JSON.parse(nestedJson(MAX_JSON_DEPTH)) })).toBeUndefined();
    expect(requestBoundsIssue({ variables: JSON.parse(nestedJson(MAX_JSON_DEPTH + 1)) })).toMatch(/^variables: /);
    expect(requestBoundsIssue({ query: `{ f(a: ${nestedLiteral(MAX_JSON_DEPTH)}) }` })).toBeUndefined();
    expect(requestBoundsIssue({ query: `{ f(a: ${nestedLiteral(MAX_JSON_DEPTH + 1)}) }` })).toMatch(/^query: a value/);
    expect(requestBoundsIssue({ query: `query($a: JSON = ${nestedLiteral(MAX_JSON_DEPTH + 1)}) { me { id } }` })).toMatch(/^query: a value/);
  });
});

describe('GraphQL error messages', () => {
  it('never carry the text of an internal failure, whatever wraps it', () => {
    const overflow = new RangeError('Maximum call stack size exceeded');
    const parseFailure = new GraphQLError(overflow.message, { originalError: overflow, extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
    const formatted = formatGraphqlError(parseFailure.toJSON(), parseFailure);
    expect(formatted.extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
    expect(formatted.message).not.toMatch(/Maximum call stack/);

    const inResolver = new GraphQLError(overflow.message, { originalError: overflow, path: ['x'] });
    const internal = formatGraphqlError(inResolver.toJSON(), inResolver);
    expect(internal.message).not.toMatch(/Maximum call stack/);
    expect(internal.extensions?.status).toBe(500);

    const variable = new GraphQLError('Variable "$p" got invalid value; Maximum call stack size exceeded', { extensions: { code: 'BAD_USER_INPUT' } });
    expect(formatGraphqlError(variable.toJSON(), variable).message).not.toMatch(/Maximum call stack/);
  });
});

describe('the size of a GraphQL document', () => {
  const TOKEN_LIMIT_MESSAGE = `query: holds more than the limit of ${MAX_DOCUMENT_TOKENS} tokens`;
  /** `{ id id … }`: exactly `tokens` tokens. */
  const ofTokens = (tokens: number) => `{ ${'id '.repeat(tokens - 2)}}`;

  it(`is at most ${MAX_DOCUMENT_TOKENS} tokens (comments not counted): past it, 400 naming the limit before parsing`, () => {
    expect(requestBoundsIssue({ query: ofTokens(MAX_DOCUMENT_TOKENS) })).toBeUndefined();
    expect(requestBoundsIssue({ query: ofTokens(MAX_DOCUMENT_TOKENS + 1) })).toBe(TOKEN_LIMIT_MESSAGE);
    expect(requestBoundsIssue({ query: `# ${'a comment '.repeat(50_000)}\n${ofTokens(MAX_DOCUMENT_TOKENS)}` })).toBeUndefined();
  });

  it('refuses 10,000 aliases over HTTP with 400 and the GraphQL error body, and runs none of them', async () => {
    const aliases = `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: me { id }`).join(' ')} }`;
    const answer = await server.request('POST', '/graphql', { body: { query: aliases } });
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(answer.body.errors).toEqual([
      expect.objectContaining({ message: TOKEN_LIMIT_MESSAGE, extensions: expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }) }),
    ]);
    expect(answer.body.data).toBeUndefined();
  });

  it('lets a document just under the limit through to the usual checks', async () => {
    const aliases = `{ ${Array.from({ length: 1_000 }, (_, i) => `a${i}: me { id }`).join(' ')} }`;
    const answer = await server.request('POST', '/graphql', { body: { query: aliases } });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(Object.keys(answer.body.data)).toHaveLength(1_000);
  });
});
