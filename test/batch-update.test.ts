import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { tenantKeyViolations } from './support/tenant-keys';

/**
 * POST /api/batch-update and the batchUpdate mutation: each operation answered as its single PUT
 * /api/content-objects/{id} would be, in its own transaction, in request order.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let stranger: Caller;
let familyId: string;
let strangersObjectId: string;

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Batch');
  stranger = await newCaller('BatchStranger');
  familyId = await newFamily(member);
  strangersObjectId = (await newContentObject(stranger, await newFamily(stranger))).id;
});
afterAll(() => server.close());

/** A family in a document store of a new organization of `caller`. */
async function newFamily(caller: Caller): Promise<string> {
  const organization = await createOrganization(server, { name: unique('BatchOrg') }, caller.key);
  const store = await rest(caller, 'POST', '/api/document-stores', 201, { organizationId: organization.id, name: unique('Store') });
  return (await rest(caller, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: 'in/batch.pdf' })).id;
}

function newContentObject(caller: Caller, documentFamilyId = familyId, body: Record<string, unknown> = {}) {
  return rest(caller, 'POST', '/api/content-objects', 201, { documentFamilyId, name: unique('Content'), ...body });
}

const BATCH_MUTATION = `mutation($operations: [JSON!]!) {
  batchUpdate(operations: $operations) { results { index ok status error reason contentObject { id changeSequence } } }
}`;

describe('POST /api/batch-update', () => {
  it('answers a stale, a missing, a forbidden, an invalid and a good operation each with its own result, in request order', async () => {
    const stale = await newContentObject(member);
    await rest(member, 'PUT', `/api/content-objects/${stale.id}`, 200, { summary: 'moved on' });
    const invalid = await newContentObject(member);
    const good = await newContentObject(member, familyId, { summary: 'before' });
    const missingId = randomUUID();

    const answer = await rest(member, 'POST', '/api/batch-update', 200, {
      operations: [
        { id: stale.id, changeSequence: 0, summary: 'too late' },
        { id: missingId, summary: 'nobody' },
        { id: strangersObjectId, summary: 'not mine' },
        { id: invalid.id, index: 'first' },
        { id: good.id, changeSequence: 0, summary: 'after', index: 7 },
      ],
    });

    expect(answer).toEqual({
      results: [
        {
          index: 0,
          ok: false,
          status: 409,
          error: 'Conflict',
          reason: 'changeSequence 0 is stale; the current changeSequence is 1',
          contentObject: { id: stale.id, changeSequence: 1 },
        },
        { index: 1, ok: false, status: 404, error: 'Not Found', reason: `no ContentObject with id ${missingId}`, contentObject: null },
        { index: 2, ok: false, status: 403, error: 'Forbidden', reason: `you may not access ContentObject ${strangersObjectId}`, contentObject: null },
        { index: 3, ok: false, status: 400, error: 'Bad Request', reason: 'index: must be a number', contentObject: { id: invalid.id, changeSequence: 0 } },
        { index: 4, ok: true, status: 200, contentObject: { id: good.id, changeSequence: 1 } },
      ],
    });

    // Each result is what the single PUT answers.
    const single = await server.request('PUT', `/api/content-objects/${stale.id}`, { body: { changeSequence: 0, summary: 'too late' }, key: member.key });
    expect(single.body).toMatchObject({ status: 409, error: 'Conflict', message: answer.results[0].reason });
    const forbidden = await server.request('PUT', `/api/content-objects/${strangersObjectId}`, { body: { summary: 'not mine' }, key: member.key });
    expect(forbidden.body).toMatchObject({ status: 403, error: 'Forbidden', message: answer.results[2].reason });

    // The good operation is stored; the failures left their objects as they were.
    expect(await rest(member, 'GET', `/api/content-objects/${good.id}`, 200)).toMatchObject({ summary: 'after', index: 7, changeSequence: 1 });
    expect(await rest(member, 'GET', `/api/content-objects/${stale.id}`, 200)).toMatchObject({ summary: 'moved on', changeSequence: 1 });
    expect(await rest(member, 'GET', `/api/content-objects/${invalid.id}`, 200)).toMatchObject({ index: 0, changeSequence: 0 });
    expect(await rest(stranger, 'GET', `/api/content-objects/${strangersObjectId}`, 200)).toMatchObject({ summary: null, changeSequence: 0 });
    expect(await tenantKeyViolations(server.orm)).toEqual([]);
  });

  it('keeps request order over many operations, and runs those on one object one after the other', async () => {
    const objects = await Promise.all(Array.from({ length: 12 }, () => newContentObject(member)));
    const twice = objects[0];
    const operations = [
      ...objects.map((o, i) => ({ id: o.id, changeSequence: 0, index: i + 1 })),
      // The second write on an object sees the first one's change sequence.
      { id: twice.id, changeSequence: 1, summary: 'second write' },
      { id: 'not-a-uuid', summary: 'x' },
      { summary: 'no id' },
    ];
    const { results } = await rest(member, 'POST', '/api/batch-update', 200, { operations });
    expect(results.map((r: any) => r.index)).toEqual(operations.map((_, i) => i));
    for (const [i, o] of objects.entries()) expect(results[i]).toEqual({ index: i, ok: true, status: 200, contentObject: { id: o.id, changeSequence: 1 } });
    expect(results[12]).toEqual({ index: 12, ok: true, status: 200, contentObject: { id: twice.id, changeSequence: 2 } });
    expect(results[13]).toEqual({ index: 13, ok: false, status: 400, error: 'Bad Request', reason: 'id: must be a UUID', contentObject: null });
    expect(results[14]).toEqual({ index: 14, ok: false, status: 400, error: 'Bad Request', reason: 'id: is required', contentObject: null });
    expect(await rest(member, 'GET', `/api/content-objects/${twice.id}`, 200)).toMatchObject({ index: 1, summary: 'second write', changeSequence: 2 });
  });

  it('answers 200 with the unchanged change sequence for an operation that changes nothing', async () => {
    const object = await newContentObject(member, familyId, { summary: 'same' });
    const { results } = await rest(member, 'POST', '/api/batch-update', 200, { operations: [{ id: object.id, changeSequence: 0, summary: 'same' }] });
    expect(results).toEqual([{ index: 0, ok: true, status: 200, contentObject: { id: object.id, changeSequence: 0 } }]);
  });

  it('refuses 0 and 1,001 operations, and a body that is not {operations: [...]}, with 400', async () => {
    const object = await newContentObject(member);
    const many = Array.from({ length: 1001 }, () => ({ id: object.id, summary: 'x' }));
    for (const [body, field] of [
      [{ operations: [] }, 'operations'],
      [{ operations: many }, 'operations'],
      [{ operations: { id: object.id } }, 'operations'],
      [{}, 'operations'],
      [{ operations: [{ id: object.id }, 'x'] }, 'operations[1]'],
    ] as const) {
      const refused = await rest(member, 'POST', '/api/batch-update', 400, body);
      expect(refused).toMatchObject({ error: 'Bad Request', status: 400 });
      expect(refused.details?.[0]?.field, JSON.stringify(refused)).toBe(field);
    }
    expect(await rest(member, 'POST', '/api/batch-update', 400, [{ id: object.id }])).toMatchObject({ status: 400 });
    expect((await rest(member, 'POST', '/api/batch-update', 400, { operations: many })).message).toBe('operations: must hold 1 to 1000 operations, not 1001');
    // Nothing of a refused batch was written.
    expect(await rest(member, 'GET', `/api/content-objects/${object.id}`, 200)).toMatchObject({ summary: null, changeSequence: 0 });
    await rest(null, 'POST', '/api/batch-update', 200, { operations: [{ id: object.id, summary: 'by the administrator' }] });
    expect((await server.request('POST', '/api/batch-update', { body: { operations: [{ id: object.id }] }, key: null })).status).toBe(401);
  });

  it('takes 1,000 operations in one batch', async () => {
    const objects = await Promise.all(Array.from({ length: 20 }, () => newContentObject(member)));
    // index i + 1: every write changes its object (a new content object's index is 0).
    const operations = Array.from({ length: 1000 }, (_, i) => ({ id: objects[i % objects.length].id, index: i + 1 }));
    const { results } = await rest(member, 'POST', '/api/batch-update', 200, { operations });
    expect(results).toHaveLength(1000);
    expect(results.every((r: any, i: number) => r.ok && r.index === i)).toBe(true);
    // Every object took its 50 writes in request order: the last one wins.
    for (const [i, o] of objects.entries()) {
      expect(await rest(member, 'GET', `/api/content-objects/${o.id}`, 200)).toMatchObject({ index: 981 + i, changeSequence: 50 });
    }
  });
});

describe('batchUpdate mutation', () => {
  it('answers the same results as REST', async () => {
    const good = await newContentObject(member);
    const stale = await newContentObject(member);
    const missingId = randomUUID();
    const data = await server.graphqlData(
      BATCH_MUTATION,
      {
        operations: [
          { id: good.id, summary: 'through GraphQL' },
          { id: stale.id, changeSequence: 3, summary: 'stale' },
          { id: missingId },
          { id: strangersObjectId, summary: 'not mine' },
        ],
      },
      member.key,
    );
    expect(data.batchUpdate.results).toEqual([
      { index: 0, ok: true, status: 200, error: null, reason: null, contentObject: { id: good.id, changeSequence: 1 } },
      {
        index: 1,
        ok: false,
        status: 409,
        error: 'Conflict',
        reason: 'changeSequence 3 is stale; the current changeSequence is 0',
        contentObject: { id: stale.id, changeSequence: 0 },
      },
      { index: 2, ok: false, status: 404, error: 'Not Found', reason: `no ContentObject with id ${missingId}`, contentObject: null },
      { index: 3, ok: false, status: 403, error: 'Forbidden', reason: `you may not access ContentObject ${strangersObjectId}`, contentObject: null },
    ]);
    expect(await rest(member, 'GET', `/api/content-objects/${good.id}`, 200)).toMatchObject({ summary: 'through GraphQL', changeSequence: 1 });
  });

  it('refuses 0 and 1,001 operations with BAD_REQUEST', async () => {
    const object = await newContentObject(member);
    for (const operations of [[], Array.from({ length: 1001 }, () => ({ id: object.id }))]) {
      const answer = await server.graphql(BATCH_MUTATION, { operations }, member.key);
      expect(answer.body.errors?.[0]?.extensions, answer.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    }
  });
});

describe('batchUpdate in the OpenAPI document', () => {
  it('declares the request and the answer components read from the GraphQL types', async () => {
    const doc = (await server.request('GET', '/v3/api-docs')).body;
    const operation = doc.paths['/api/batch-update'].post;
    expect(operation.operationId).toBe('batchUpdate');
    expect(operation.requestBody.content['application/json'].schema).toMatchObject({ required: ['operations'], properties: { operations: { type: 'array' } } });
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/BatchUpdateResult' });
    const schemas = doc.components.schemas;
    expect(schemas.BatchUpdateResult.properties.results).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/BatchUpdateOperationResult' },
      description: expect.any(String),
    });
    expect(schemas.BatchUpdateOperationResult.required).toEqual(['index', 'ok', 'status']);
    expect(Object.keys(schemas.BatchUpdateOperationResult.properties)).toEqual(['index', 'ok', 'status', 'error', 'reason', 'contentObject']);
    expect(schemas.BatchUpdateContentObject).toMatchObject({ required: ['id', 'changeSequence'] });
  });
});
