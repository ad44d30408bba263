import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * POST /api/linked-deltas and createLinkedDelta: the operations applied to the family's data objects in
 * order, in one transaction; dropped operations reported; APPLIED, APPLIED_PARTIAL and FAILED.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organizationId: string;

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Deltas');
  organizationId = (await createOrganization(server, { name: unique('DeltaOrg') }, member.key)).id;
});
afterAll(() => server.close());

async function newFamily(): Promise<string> {
  const store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId, name: unique('Store') });
  return (await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: 'in/delta.pdf' })).id;
}

function newDataObject(documentFamilyId: string, body: Record<string, unknown> = {}) {
  return rest(member, 'POST', '/api/data-objects', 201, { documentFamilyId, path: 'invoice', taxonomyRef: 'acme/invoice', attributes: {}, ...body });
}

async function dataObjectsOf(documentFamilyId: string): Promise<any[]> {
  const page = await rest(member, 'GET', `/api/data-objects?filter=${encodeURIComponent(`documentFamilyId==${documentFamilyId}`)}&pageSize=100`, 200);
  return page.content;
}

const post = (documentFamilyId: string, operations: unknown, status = 201) =>
  rest(member, 'POST', '/api/linked-deltas', status, { documentFamilyId, operations });

describe('POST /api/linked-deltas', () => {
  it('applies every operation in order: APPLIED', async () => {
    const familyId = await newFamily();
    const existing = await newDataObject(familyId, { attributes: { total: 1 } });
    const doomed = await newDataObject(familyId);
    const newId = randomUUID();
    const operations = [
      { op: 'create', id: newId, path: 'invoice/line', parentId: existing.id, taxonomyRef: 'acme/line', attributes: { amount: 5 } },
      { op: 'update', id: existing.id, attributes: { total: 2 } },
      { op: 'delete', id: doomed.id },
    ];
    const delta = await post(familyId, operations);
    expect(delta).toMatchObject({ documentFamilyId: familyId, operations, state: 'APPLIED', errorMessage: null, changeSequence: 0 });
    expect(await rest(member, 'GET', `/api/linked-deltas/${delta.id}`, 200)).toEqual(delta);

    const objects = await dataObjectsOf(familyId);
    expect(objects.map((o) => o.id).sort()).toEqual([existing.id, newId].sort());
    expect(objects.find((o) => o.id === newId)).toMatchObject({
      parentId: existing.id,
      path: 'invoice/line',
      taxonomyRef: 'acme/line',
      attributes: { amount: 5 },
      changeSequence: 0,
    });
    expect(objects.find((o) => o.id === existing.id)).toMatchObject({ attributes: { total: 2 }, changeSequence: 1 });
  });

  it('drops operations naming no data object of the family and applies the rest: APPLIED_PARTIAL with each cause', async () => {
    const familyId = await newFamily();
    const otherFamilysObject = await newDataObject(await newFamily());
    const kept = await newDataObject(familyId, { attributes: { a: 1 } });
    const missing = randomUUID();
    const delta = await post(familyId, [
      { op: 'update', id: kept.id, attributes: { a: 2 } },
      { op: 'create', parentId: missing, path: 'orphan', attributes: {} },
      { op: 'update', id: missing, attributes: { a: 3 } },
      { op: 'delete', id: otherFamilysObject.id },
      { op: 'update', id: otherFamilysObject.id, attributes: { stolen: true } },
      { op: 'create', path: 'line', attributes: { n: 1 } },
    ]);
    expect(delta.state).toBe('APPLIED_PARTIAL');
    expect(delta.errorMessage).toBe(
      [
        `operation 1 (create): parent data object ${missing} not found`,
        `operation 2 (update): data object ${missing} not found`,
        `operation 3 (delete): data object ${otherFamilysObject.id} not found`,
        `operation 4 (update): data object ${otherFamilysObject.id} not found`,
      ].join('; '),
    );
    const objects = await dataObjectsOf(familyId);
    expect(objects.map((o) => o.path).sort()).toEqual(['invoice', 'line']);
    expect(objects.find((o) => o.id === kept.id).attributes).toEqual({ a: 2 });
    // The other family's object was neither deleted nor changed.
    expect(await rest(member, 'GET', `/api/data-objects/${otherFamilysObject.id}`, 200)).toMatchObject({ attributes: {}, changeSequence: 0 });
    const listed = await rest(member, 'GET', `/api/linked-deltas?filter=${encodeURIComponent(`documentFamilyId==${familyId}`)}`, 200);
    expect(listed.content).toEqual([expect.objectContaining({ id: delta.id, state: 'APPLIED_PARTIAL', errorMessage: delta.errorMessage })]);
  });

  it('writes nothing but the delta itself when no operation applies: FAILED', async () => {
    const familyId = await newFamily();
    const kept = await newDataObject(familyId, { attributes: { a: 1 } });
    const [first, second] = [randomUUID(), randomUUID()];
    const delta = await post(familyId, [
      { op: 'update', id: first, attributes: { a: 2 } },
      { op: 'delete', id: second },
      { op: 'create', id: kept.id, path: 'again', attributes: {} },
    ]);
    expect(delta).toMatchObject({
      state: 'FAILED',
      errorMessage: `operation 0 (update): data object ${first} not found; operation 1 (delete): data object ${second} not found; operation 2 (create): data object ${kept.id} already exists`,
    });
    expect(await dataObjectsOf(familyId)).toEqual([expect.objectContaining({ id: kept.id, attributes: { a: 1 }, changeSequence: 0 })]);
    expect(await rest(member, 'GET', `/api/linked-deltas/${delta.id}`, 200)).toMatchObject({ state: 'FAILED' });
  });

  it('drops an update of an object deleted earlier in the same delta, with its children', async () => {
    const familyId = await newFamily();
    const parent = await newDataObject(familyId);
    const child = await newDataObject(familyId, { parentId: parent.id, path: 'invoice/line' });
    const delta = await post(familyId, [
      { op: 'delete', id: parent.id },
      { op: 'update', id: parent.id, attributes: { late: true } },
      { op: 'update', id: child.id, attributes: { late: true } },
    ]);
    expect(delta).toMatchObject({
      state: 'APPLIED_PARTIAL',
      errorMessage: `operation 1 (update): data object ${parent.id} not found; operation 2 (update): data object ${child.id} not found`,
    });
    expect(await dataObjectsOf(familyId)).toEqual([]);
  });

  it('creates under an object created earlier in the same delta', async () => {
    const familyId = await newFamily();
    const parentId = randomUUID();
    const childId = randomUUID();
    const delta = await post(familyId, [
      { op: 'create', id: parentId, path: 'invoice', attributes: {} },
      { op: 'create', id: childId, parentId, path: 'invoice/line', attributes: { n: 1 } },
      { op: 'update', id: childId, attributes: { n: 2 } },
    ]);
    expect(delta).toMatchObject({ state: 'APPLIED', errorMessage: null });
    const objects = await dataObjectsOf(familyId);
    expect(objects.find((o) => o.id === childId)).toMatchObject({ parentId, attributes: { n: 2 }, taxonomyRef: '', changeSequence: 1 });
  });

  it('refuses malformed operations with 400 naming the field, writing nothing', async () => {
    const familyId = await newFamily();
    const object = await newDataObject(familyId);
    for (const [operations, field] of [
      [{}, 'operations'],
      [[{ op: 'update', id: object.id, attributes: {} }, 'x'], 'operations[1]'],
      [
        [
          { op: 'update', id: object.id, attributes: {} },
          { op: 'add', path: 'a' },
          { op: 'move', id: object.id },
        ],
        'operations[1].op',
      ],
      [[{ op: 'create', attributes: {} }], 'operations[0].path'],
      [[{ op: 'create', path: 'p' }], 'operations[0].attributes'],
      [[{ op: 'update', id: 'nope', attributes: {} }], 'operations[0].id'],
      [[{ op: 'delete' }], 'operations[0].id'],
      [[{ op: 'update', id: object.id, attributes: [] }], 'operations[0].attributes'],
      [[{ op: 'create', parentId: 5, path: 'p', attributes: {} }], 'operations[0].parentId'],
    ] as const) {
      const refused = await post(familyId, operations, 400);
      expect(refused.details?.[0]?.field, JSON.stringify(refused)).toBe(field);
    }
    const unknownOps = await post(familyId, [{ op: 'add' }, { op: 'move' }], 400);
    expect(unknownOps.details.map((d: any) => d.field)).toEqual(['operations[0].op', 'operations[1].op']);
    expect(await rest(member, 'GET', `/api/linked-deltas?filter=${encodeURIComponent(`documentFamilyId==${familyId}`)}`, 200)).toMatchObject({
      totalElements: 0,
    });
    expect(await rest(member, 'GET', `/api/data-objects/${object.id}`, 200)).toMatchObject({ changeSequence: 0 });
  });

  it("refuses another tenant's family with 403 and applies nothing", async () => {
    const familyId = await newFamily();
    const object = await newDataObject(familyId);
    const stranger = await newCaller('DeltaStranger');
    const refused = await rest(stranger, 'POST', '/api/linked-deltas', 403, { documentFamilyId: familyId, operations: [{ op: 'delete', id: object.id }] });
    expect(refused.status).toBe(403);
    await rest(member, 'GET', `/api/data-objects/${object.id}`, 200);
  });

  it('applies an empty list (APPLIED) and is never updated: PUT is 405', async () => {
    const familyId = await newFamily();
    const delta = await post(familyId, []);
    expect(delta).toMatchObject({ state: 'APPLIED', errorMessage: null, operations: [] });
    const refused = await server.request('PUT', `/api/linked-deltas/${delta.id}`, { body: { state: 'FAILED' }, key: member.key });
    expect(refused.status, refused.text).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET, HEAD, DELETE');
    // The state in a create body is the server's to decide.
    expect(
      await rest(member, 'POST', '/api/linked-deltas', 201, { documentFamilyId: familyId, operations: [], state: 'FAILED', errorMessage: 'x' }),
    ).toMatchObject({
      state: 'APPLIED',
      errorMessage: null,
    });
  });
});

describe('createLinkedDelta mutation', () => {
  it('applies the operations as REST does', async () => {
    const familyId = await newFamily();
    const kept = await newDataObject(familyId);
    const missing = randomUUID();
    const data = await server.graphqlData(
      `mutation($input: LinkedDeltaCreateRequest!) { createLinkedDelta(input: $input) { id state errorMessage operations } }`,
      {
        input: {
          documentFamilyId: familyId,
          operations: [
            { op: 'update', id: kept.id, attributes: { via: 'graphql' } },
            { op: 'delete', id: missing },
          ],
        },
      },
      member.key,
    );
    expect(data.createLinkedDelta).toMatchObject({ state: 'APPLIED_PARTIAL', errorMessage: `operation 1 (delete): data object ${missing} not found` });
    expect(await rest(member, 'GET', `/api/data-objects/${kept.id}`, 200)).toMatchObject({ attributes: { via: 'graphql' }, changeSequence: 1 });

    const failed = await server.graphqlData(
      `mutation($input: LinkedDeltaCreateRequest!) { createLinkedDelta(input: $input) { state errorMessage } }`,
      { input: { documentFamilyId: familyId, operations: [{ op: 'delete', id: missing }] } },
      member.key,
    );
    expect(failed.createLinkedDelta).toEqual({ state: 'FAILED', errorMessage: `operation 0 (delete): data object ${missing} not found` });

    const refused = await server.graphql(
      `mutation($input: LinkedDeltaCreateRequest!) { createLinkedDelta(input: $input) { id } }`,
      { input: { documentFamilyId: familyId, operations: [{ op: 'rename' }] } },
      member.key,
    );
    expect(refused.body.errors?.[0]?.extensions, refused.text).toMatchObject({ code: 'BAD_REQUEST', details: [{ field: 'operations[0].op' }] });
  });
});
