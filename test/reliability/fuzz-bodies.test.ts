import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowParamOf, type ArgumentKind } from '../../src/model/operation';
import { operations } from '../../src/catalog/operations';
import { collectionPath, type Resource } from '../../src/model/resource';
import { resources } from '../../src/catalog/registry';
import { createOrganization } from '../support/fixtures';
import { buildCreateBody, createRecord, parentIdOf, resourceByPath } from '../support/resource-bodies';
import { startServer, type Answer, type TestServer } from '../support/server';
import { describeRequest, expectErrorBody, expectNoServerError, upstreamStatuses } from './support/answers';
import { anyValue, deepValue, edgeNumber, hostileValue, jsonValue, junkKey, oddString } from './support/arbitraries';
import { Fingerprinter, scratchDatabase, type Fingerprint, type ScratchDatabase } from './support/database';
import { analyticsEmbedOptions } from './support/embed';
import { runs, tally, type Tally } from './support/figures';

/**
 * Property-based fuzzing of REST create and update bodies over every resource of the registry: each
 * field given values of the wrong type, numbers past every edge, odd and long text, deep nesting,
 * repeated keys. Never a 5xx; a refusal is always `{error, message, status}`; and a refused write
 * leaves the whole database as it was (a fingerprint of every table before and after). On a database
 * of its own, so that nothing else writes while a fingerprint is compared.
 */

let database: ScratchDatabase;
let server: TestServer;
let prints: Fingerprinter;
/** One live row per resource (updated from each accepted PUT). */
const rows = new Map<string, Record<string, any>>();
/** One valid create body per resource that has creates. */
const createBodies = new Map<string, Record<string, unknown>>();

const creatable = resources.filter((r) => r.operations.create);
const updatable = resources.filter((r) => r.operations.update);
/** A field of kind id, for hostile ids in operation arguments. */
const idField = resources[0].fields.find((f) => f.name === 'id')!;

beforeAll(async () => {
  database = await scratchDatabase('platform_fuzz_bodies');
  server = await startServer({ databaseUrl: database.url, workerConcurrency: 0, analyticsEmbed: analyticsEmbedOptions() });
  prints = await Fingerprinter.open(database.url);
  const organizationId = (await createOrganization(server)).id;
  for (const resource of resources) {
    rows.set(resource.path, await createRecord(server, resource, { organizationId }));
    if (resource.operations.create) createBodies.set(resource.path, await buildCreateBody(server, resource, { organizationId }));
  }
}, 180_000);

afterAll(async () => {
  await prints?.close();
  await server?.close();
  await database?.drop();
});

/** The database's fingerprint after the last case, when that case passed (taken anew otherwise). */
let known: Fingerprint | undefined;

/**
 * Sends one write and checks the answer: never a 5xx; a refusal has the error body and changed
 * nothing in the database.
 */
async function checkWrite(counts: Tally, label: string, send: () => Promise<Answer>, upstream: readonly number[] = []): Promise<Answer> {
  const before = known ?? (await prints.take());
  known = undefined;
  const answer = await send();
  counts.ran();
  counts.answered(answer.status);
  expectNoServerError(answer, label, upstream);
  const after = await prints.take();
  if (answer.status >= 400) {
    expectErrorBody(answer, label, upstream);
    expect(after, `${label}\n→ ${answer.status}, yet the database changed`).toEqual(before);
  }
  known = after;
  return answer;
}

/** Sets `key` as an own property, also `__proto__` (which plain assignment would treat as the prototype). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A body from `base`: one to three fields (any declared field, also server-owned ones) with hostile
 * values, up to two of the base's fields dropped, up to two keys the resource does not have.
 */
function hostileBody(resource: Resource, base: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const names = resource.fields.map((f) => f.name);
  const replaced = fc
    .subarray(resource.fields, { minLength: 1, maxLength: 3 })
    .chain((fields) => fc.tuple(...fields.map((field) => hostileValue(field).map((value) => [field.name, value] as const))));
  return fc
    .record({
      replaced,
      dropped: fc.subarray(Object.keys(base), { maxLength: Math.min(2, Object.keys(base).length) }),
      junk: fc.array(fc.tuple(junkKey(names), anyValue), { maxLength: 2 }),
    })
    .map(({ replaced, dropped, junk }) => {
      const body: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(base)) if (!dropped.includes(key)) put(body, key, value);
      for (const [key, value] of junk) put(body, key, value);
      for (const [key, value] of replaced) put(body, key, value);
      return body;
    });
}

/** The collection path of `resource` for the row (or body) `row`: its parent's id filled in. */
function pathOf(resource: Resource, row: Record<string, unknown>): string {
  return `/api/${collectionPath(resource, parentIdOf(resource, row))}`;
}

/** The REST body limit (1 MB). */
const BODY_LIMIT_BYTES = 1024 * 1024;

describe('REST bodies over every resource of the registry', () => {
  it('create: hostile fields are refused with the error body and write nothing; never a 5xx', async ({ task }) => {
    const counts = tally(task);
    const cases = fc
      .constantFrom(...creatable)
      .chain((resource) => hostileBody(resource, createBodies.get(resource.path)!).map((body) => [resource.path, body] as const));
    await fc.assert(
      fc.asyncProperty(cases, async ([collection, body]) => {
        const resource = resourceByPath(collection);
        const path = pathOf(resource, createBodies.get(resource.path)!);
        await checkWrite(counts, describeRequest('POST', path, body), () => server.request('POST', path, { body }));
      }),
      runs(300, 3000),
    );
  }, 300_000);

  it('update: hostile fields and change sequences are refused with the error body and write nothing; never a 5xx', async ({ task }) => {
    const counts = tally(task);
    const changeSequence = fc.option(fc.oneof(fc.constant('current' as const), fc.constant('stale' as const), edgeNumber, anyValue), { nil: undefined });
    const cases = fc.constantFrom(...updatable).chain((resource) => fc.tuple(fc.constant(resource.path), hostileBody(resource, {}), changeSequence));
    await fc.assert(
      fc.asyncProperty(cases, async ([collection, fields, sequence]) => {
        const resource = resourceByPath(collection);
        const row = rows.get(resource.path)!;
        const body: Record<string, unknown> = { ...fields };
        if (sequence === 'current') body.changeSequence = row.changeSequence;
        else if (sequence === 'stale') body.changeSequence = row.changeSequence + 1;
        else if (sequence !== undefined) body.changeSequence = sequence;
        const path = `${pathOf(resource, row)}/${row.id}`;
        const answer = await checkWrite(counts, describeRequest('PUT', path, body), () => server.request('PUT', path, { body }));
        if (answer.status === 200) rows.set(resource.path, answer.body);
        // A stale sequence is refused; a body over the limit is not even read.
        const unread = Buffer.byteLength(JSON.stringify(body)) > BODY_LIMIT_BYTES;
        if (sequence === 'stale') expect(unread ? [413] : [400, 409], answer.text).toContain(answer.status);
      }),
      runs(300, 3000),
    );
  }, 300_000);

  it('raw JSON text: repeated keys (also in another letter case) and nesting past 64 levels are 400; malformed text and odd literals are refused; never a 5xx', async ({
    task,
  }) => {
    const counts = tally(task);
    const literal = fc.constantFrom(
      '1e999',
      '-1e999',
      '-0',
      '123456789012345678901234567890',
      '0.0000000000000000000001',
      '"\\ud800"',
      '"\\u0000"',
      '"\\udc00\\ud800"',
      'true',
      '[]',
      '{}',
      'null',
      '""',
    );
    const kinds = fc.oneof(
      fc.record({ kind: fc.constant('duplicate' as const), pick: fc.nat(), spelling: fc.nat({ max: 3 }), value: jsonValue }),
      fc.record({ kind: fc.constant('nested-duplicate' as const), key: oddString, value: jsonValue }),
      fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 65, max: 50_000 }), open: fc.constantFrom('[', '{"a":') }),
      fc.record({ kind: fc.constant('literal' as const), pick: fc.nat(), literal }),
      fc.record({
        kind: fc.constant('mutated' as const),
        at: fc.nat(),
        cut: fc.nat({ max: 5 }),
        insert: fc.string({
          unit: fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', '\ud800', 'NaN', ' ', '/*', '//', "'", '\ufeff'),
          maxLength: 4,
        }),
      }),
      fc.record({
        kind: fc.constant('not-an-object' as const),
        text: fc.constantFrom('[]', '"x"', '1', 'null', 'true', ' ', '\ufeff{}', '[{}]', '{} {}', '{"a":1}x'),
      }),
      fc.record({ kind: fc.constant('deep-value' as const), value: deepValue }),
    );
    /** A key's spellings that collide with it: itself, upper case, lower case, first letter capitalised. */
    const spellings = (key: string) => [key, key.toUpperCase(), key.toLowerCase(), key[0].toUpperCase() + key.slice(1)];
    const cases = fc.tuple(fc.constantFrom(...creatable.map((r) => r.path)), fc.boolean(), kinds);
    await fc.assert(
      fc.asyncProperty(cases, async ([collection, update, shape]) => {
        const resource = resourceByPath(collection);
        const base = update && resource.operations.update ? {} : createBodies.get(resource.path)!;
        const keys = Object.keys(base).length ? Object.keys(base) : resource.fields.map((f) => f.name);
        // The body as [key, value] texts, so that keys can repeat and values be any literal.
        const entries: [string, string][] = Object.entries(base).map(([key, value]) => [JSON.stringify(key), JSON.stringify(value)]);
        const json = (value: unknown) => JSON.stringify(value) ?? 'null';
        let text: string | undefined;
        let expected: number | undefined;
        switch (shape.kind) {
          case 'duplicate': {
            const key = keys[shape.pick % keys.length];
            entries.push([JSON.stringify(key), json(shape.value)], [JSON.stringify(spellings(key)[shape.spelling]), json(shape.value)]);
            expected = 400;
            break;
          }
          case 'nested-duplicate':
            entries.push(['"extra"', `{${JSON.stringify(shape.key)}:1,${JSON.stringify(shape.key)}:${json(shape.value)}}`]);
            expected = 400;
            break;
          case 'deep':
            entries.push(['"extra"', `${shape.open.repeat(shape.depth)}1${(shape.open === '[' ? ']' : '}').repeat(shape.depth)}`]);
            expected = 400;
            break;
          case 'literal': {
            const key = JSON.stringify(keys[shape.pick % keys.length]);
            const at = entries.findIndex(([k]) => k === key);
            if (at >= 0) entries[at] = [key, shape.literal];
            else entries.push([key, shape.literal]);
            break;
          }
          case 'mutated': {
            const whole = `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`;
            const at = shape.at % (whole.length + 1);
            text = whole.slice(0, at) + shape.insert + whole.slice(at + shape.cut);
            break;
          }
          case 'not-an-object':
            text = shape.text;
            break;
          case 'deep-value':
            entries.push(['"extra"', json(shape.value)]);
            break;
        }
        text ??= `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`;
        // Whatever it holds, a body over the limit is not read.
        if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) expected = 413;
        const row = rows.get(resource.path)!;
        const [method, path] =
          update && resource.operations.update ? ['PUT', `${pathOf(resource, row)}/${row.id}`] : ['POST', pathOf(resource, createBodies.get(resource.path)!)];
        const label = `${shape.kind}: ${describeRequest(method, path, text)}`;
        const answer = await checkWrite(counts, label, () => server.request(method, path, { body: text }));
        if (answer.status === 200 && method === 'PUT') rows.set(resource.path, answer.body);
        if (expected !== undefined) expect(answer.status, `${label}\n→ ${answer.text.slice(0, 300)}`).toBe(expected);
      }),
      runs(200, 2000),
    );
  }, 300_000);

  it('domain operations: hostile arguments and bodies are refused with the error body and write nothing; never a 5xx', async ({ task }) => {
    const counts = tally(task);
    const writes = operations.filter((o) => o.method !== 'get');
    const argument: Record<ArgumentKind, fc.Arbitrary<unknown>> = {
      id: fc.oneof(fc.constantFrom(...[...rows.values()].map((r) => r.id as string)), hostileValue(idField)),
      string: fc.oneof(fc.string({ maxLength: 20 }), oddString, anyValue),
      stringArray: fc.oneof(fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }), fc.array(oddString, { maxLength: 3 }), anyValue),
      json: fc.oneof(jsonValue, deepValue, fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 3 })),
      jsonArray: fc.oneof(fc.array(fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 3 }), { maxLength: 3 }), anyValue),
      jsonValue: anyValue,
    };
    const cases = fc
      .constantFrom(...writes)
      .chain((operation) =>
        fc.tuple(
          fc.constant(operation.operationId),
          fc.record(Object.fromEntries(operation.body.map((a) => [a.name, argument[a.kind]])), { requiredKeys: [] }),
          fc.oneof({ weight: 5, arbitrary: fc.constant('object' as const) }, fc.constantFrom('none' as const, 'array' as const, 'junk' as const)),
          fc.array(fc.tuple(junkKey(operation.body.map((a) => a.name).concat('id')), anyValue), { maxLength: 2 }),
          fc.boolean(),
        ),
      );
    await fc.assert(
      fc.asyncProperty(cases, async ([operationId, fields, shape, junk, liveRow]) => {
        const operation = writes.find((o) => o.operationId === operationId)!;
        // The row the operation acts on: the live one of its collection (or of activities, for the orchestrator), or an id that names nothing.
        const row = rows.get(operation.tag) ?? (operation.tag === 'orchestrator' ? rows.get('activities') : undefined);
        let path = operation.path;
        const rowParam = rowParamOf(operation);
        if (rowParam) path = path.replace(`{${rowParam}}`, liveRow && row ? row.id : randomUUID());
        for (const param of operation.pathParams ?? []) path = path.replace(`{${param}}`, liveRow ? (row?.steps?.[0]?.id ?? randomUUID()) : 'not-a-uuid');
        const body: Record<string, unknown> = { ...fields };
        for (const [key, value] of junk) put(body, key, value);
        const sent = shape === 'object' ? body : shape === 'array' ? [body] : shape === 'junk' ? JSON.stringify(body).slice(1) : undefined;
        const method = operation.method.toUpperCase();
        const upstream = upstreamStatuses.get(operation.operationId);
        await checkWrite(counts, describeRequest(method, `/api/${path}`, sent), () => server.request(method, `/api/${path}`, { body: sent }), upstream);
      }),
      runs(150, 1500),
    );
  }, 300_000);
});
