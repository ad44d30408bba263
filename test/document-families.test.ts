import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * A document family's status (PUT and DELETE /status), lock and unlock (REST and GraphQL), and the
 * document_locked events a lock records in its own transaction.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organizationId: string;
let projectId: string;
let storeId: string;
let reviewed: any;
/** A status of a project of another organization of the same caller. */
let elsewhere: any;

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('DocFamilies');
  organizationId = (await createOrganization(server, { name: unique('DocFamOrg') }, member.key)).id;
  projectId = (await createProject(server, organizationId, {}, member.key)).id;
  storeId = (await rest(member, 'POST', '/api/document-stores', 201, { name: unique('Store'), organizationId })).id;
  reviewed = await rest(member, 'POST', '/api/document-statuses', 201, { status: 'Reviewed', projectId });
  const otherOrganizationId = (await createOrganization(server, { name: unique('DocFamOther') }, member.key)).id;
  const otherProjectId = (await createProject(server, otherOrganizationId, {}, member.key)).id;
  elsewhere = await rest(member, 'POST', '/api/document-statuses', 201, { status: 'Elsewhere', projectId: otherProjectId });
});
afterAll(() => server.close());

const newFamily = (body: Record<string, unknown> = {}) =>
  rest(member, 'POST', '/api/document-families', 201, { documentStoreId: storeId, path: unique('doc'), ...body });

async function lockEventsOf(familyId: string): Promise<any[]> {
  const filter = encodeURIComponent('eventType==document_locked');
  const answer = await rest(member, 'GET', `/api/events?filter=${filter}&pageSize=100`, 200);
  return answer.content.filter((e: any) => e.eventDetail?.documentFamilyId === familyId);
}

describe('document status', () => {
  it('sets the status from a DocumentStatus body (only id is read), embeds it on reads, and DELETE clears it', async () => {
    const family = await newFamily();
    const set = await rest(member, 'PUT', `/api/document-families/${family.id}/status`, 200, { ...reviewed, status: 'ignored', slug: 'ignored' });
    expect(set).toMatchObject({ id: family.id, documentStatusId: reviewed.id, changeSequence: family.changeSequence + 1 });
    expect(set.documentStatus).toMatchObject({ id: reviewed.id, status: 'Reviewed', projectId });
    expect(await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).toEqual(set);
    const listed = await rest(member, 'GET', `/api/document-families?filter=${encodeURIComponent(`documentStatus.status=='Reviewed';id==${family.id}`)}`, 200);
    expect(listed.content.map((f: any) => f.id)).toEqual([family.id]);

    const cleared = await rest(member, 'DELETE', `/api/document-families/${family.id}/status`, 200);
    expect(cleared).toMatchObject({ id: family.id, documentStatusId: null, documentStatus: null, changeSequence: family.changeSequence + 2 });
    // Clearing what is already clear changes nothing.
    expect((await rest(member, 'DELETE', `/api/document-families/${family.id}/status`, 200)).changeSequence).toBe(family.changeSequence + 2);
  });

  it('also reads documentStatusId from a REST body', async () => {
    const family = await newFamily();
    expect((await rest(member, 'PUT', `/api/document-families/${family.id}/status`, 200, { documentStatusId: reviewed.id })).documentStatus.id).toBe(
      reviewed.id,
    );
  });

  it("refuses no status, a malformed id, a missing status and another organization's status with 400 naming the field", async () => {
    const family = await newFamily();
    const path = `/api/document-families/${family.id}/status`;
    expect((await rest(member, 'PUT', path, 400)).details[0].field).toBe('id');
    expect((await rest(member, 'PUT', path, 400, {})).details[0].field).toBe('id');
    expect((await rest(member, 'PUT', path, 400, { id: 'not-a-uuid' })).details[0].field).toBe('id');
    expect((await rest(member, 'PUT', path, 400, { id: randomUUID() })).details[0].field).toBe('id');
    expect((await rest(member, 'PUT', path, 400, { documentStatusId: randomUUID() })).details[0].field).toBe('documentStatusId');
    const foreign = await rest(member, 'PUT', path, 400, { id: elsewhere.id });
    expect(foreign.details[0]).toMatchObject({ field: 'id' });
    expect(foreign.message).toContain("project of the family's organization");
    await rest(member, 'PUT', path, 400, [reviewed.id]);
    expect(await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).toMatchObject({
      documentStatusId: null,
      changeSequence: family.changeSequence,
    });
  });

  it("answers 403 for another tenant's status, 403 for another tenant's family, 404 for a missing family", async () => {
    const outsider = await newCaller('DocStatusOutsider');
    const theirOrg = (await createOrganization(server, { name: unique('TheirOrg') }, outsider.key)).id;
    const theirProject = (await createProject(server, theirOrg, {}, outsider.key)).id;
    const theirs = await rest(outsider, 'POST', '/api/document-statuses', 201, { status: 'Theirs', projectId: theirProject });
    const family = await newFamily();
    await rest(member, 'PUT', `/api/document-families/${family.id}/status`, 403, { id: theirs.id });
    await rest(outsider, 'PUT', `/api/document-families/${family.id}/status`, 403, { id: theirs.id });
    await rest(outsider, 'DELETE', `/api/document-families/${family.id}/status`, 403);
    await rest(member, 'PUT', `/api/document-families/${randomUUID()}/status`, 404, { id: reviewed.id });
    await rest(member, 'DELETE', `/api/document-families/${randomUUID()}/status`, 404);
    await rest(member, 'DELETE', `/api/document-families/nope/status`, 400);
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).documentStatusId).toBeNull();
  });
});

describe('lock and unlock', () => {
  it('locks (locked, lockedAt, lockedById), 409 when locked again, unlocks, 409 when not locked', async () => {
    const family = await newFamily();
    const locked = await rest(member, 'PUT', `/api/document-families/${family.id}/lock`, 200);
    expect(locked).toMatchObject({ id: family.id, locked: true, lockedById: member.id, changeSequence: family.changeSequence + 1 });
    expect(Date.parse(locked.lockedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await rest(member, 'PUT', `/api/document-families/${family.id}/lock`, 409)).message).toContain('already locked');
    expect(await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).toEqual(locked);

    const unlocked = await rest(member, 'PUT', `/api/document-families/${family.id}/unlock`, 200);
    expect(unlocked).toMatchObject({ locked: false, lockedAt: null, lockedById: null, changeSequence: family.changeSequence + 2 });
    expect((await rest(member, 'PUT', `/api/document-families/${family.id}/unlock`, 409)).message).toContain('not locked');
  });

  it('refuses a malformed id (400), a missing family (404) and another tenant (403), leaving the family unlocked', async () => {
    const family = await newFamily();
    await rest(member, 'PUT', '/api/document-families/not-a-uuid/lock', 400);
    await rest(member, 'PUT', `/api/document-families/${randomUUID()}/lock`, 404);
    await rest(member, 'PUT', `/api/document-families/${randomUUID()}/unlock`, 404);
    const outsider = await newCaller('DocLockOutsider');
    await rest(outsider, 'PUT', `/api/document-families/${family.id}/lock`, 403);
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).locked).toBe(false);
  });

  it('lets exactly one of many concurrent locks win, with one event', async () => {
    const family = await newFamily({ documentStatusId: reviewed.id });
    const answers = await Promise.all(Array.from({ length: 8 }, () => server.request('PUT', `/api/document-families/${family.id}/lock`, { key: member.key })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(await lockEventsOf(family.id)).toHaveLength(1);
  });
});

describe('document_locked', () => {
  it("is recorded in the project of the family's status and in each project of a task linked to the family", async () => {
    const family = await newFamily({ documentStatusId: reviewed.id });
    const linkedProject = (await createProject(server, organizationId, {}, member.key)).id;
    const task = await createTask(server, linkedProject, { title: unique('Task') }, member.key);
    await rest(member, 'POST', '/api/task-document-families', 201, { taskId: task.id, documentFamilyId: family.id });
    // A second link to the status's project gives no second event there.
    const sameProjectTask = await createTask(server, projectId, { title: unique('Task') }, member.key);
    await rest(member, 'POST', '/api/task-document-families', 201, { taskId: sameProjectTask.id, documentFamilyId: family.id });

    await rest(member, 'PUT', `/api/document-families/${family.id}/lock`, 200);
    const events = await lockEventsOf(family.id);
    expect(events.map((e) => e.projectId).sort()).toEqual([projectId, linkedProject].sort());
    for (const event of events) {
      expect(event).toMatchObject({
        eventType: 'document_locked',
        eventDetail: { documentFamilyId: family.id },
        notified: false,
        organizationId,
        project: { id: event.projectId },
      });
      expect(Object.keys(event.eventDetail)).toEqual(['documentFamilyId']);
    }
    // Unlocking records nothing.
    await rest(member, 'PUT', `/api/document-families/${family.id}/unlock`, 200);
    expect(await lockEventsOf(family.id)).toHaveLength(2);
  });

  it('is recorded once, in no project, for a family with no status and no linked task', async () => {
    const family = await newFamily();
    expect((await rest(member, 'PUT', `/api/document-families/${family.id}/lock`, 200)).locked).toBe(true);
    const events = await lockEventsOf(family.id);
    expect(events).toEqual([
      expect.objectContaining({
        eventType: 'document_locked',
        eventDetail: { documentFamilyId: family.id },
        organizationId,
        projectId: null,
        project: null,
        notified: false,
      }),
    ]);
  });

  it('leaves no event behind when the lock fails after it was written', async () => {
    const family = await newFamily({ documentStatusId: reviewed.id });
    const connection = server.orm.em.getConnection();
    // The family's UPDATE fails inside the transaction that already holds the event.
    await connection.execute(`create or replace function refuse_family_update() returns trigger language plpgsql as $$
      begin if new.id = '${family.id}' then raise exception 'refused' using errcode = '23505'; end if; return new; end $$`);
    await connection.execute('create trigger refuse_family_update before update on document_family for each row execute function refuse_family_update()');
    try {
      await rest(member, 'PUT', `/api/document-families/${family.id}/lock`, 409);
    } finally {
      await connection.execute('drop trigger refuse_family_update on document_family');
      await connection.execute('drop function refuse_family_update()');
    }
    expect(await lockEventsOf(family.id)).toEqual([]);
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).locked).toBe(false);
  });
});

describe('GraphQL', () => {
  it('serves setDocumentStatus, clearDocumentStatus, lockDocumentFamily and unlockDocumentFamily with the REST rules', async () => {
    const family = await newFamily();
    const set = await server.graphqlData(
      `mutation($id: ID!, $status: ID) { setDocumentStatus(id: $id, documentStatusId: $status) { id documentStatusId documentStatus { id status } } }`,
      { id: family.id, status: reviewed.id },
      member.key,
    );
    expect(set.setDocumentStatus).toEqual({ id: family.id, documentStatusId: reviewed.id, documentStatus: { id: reviewed.id, status: 'Reviewed' } });
    const foreign = await server.graphql(
      `mutation($id: ID!, $status: ID) { setDocumentStatus(id: $id, documentStatusId: $status) { id } }`,
      { id: family.id, status: elsewhere.id },
      member.key,
    );
    expect(foreign.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400, details: [{ field: 'documentStatusId' }] });
    const missing = await server.graphql(`mutation($id: ID!) { setDocumentStatus(id: $id) { id } }`, { id: family.id }, member.key);
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    const cleared = await server.graphqlData(`mutation($id: ID!) { clearDocumentStatus(id: $id) { documentStatus { id } } }`, { id: family.id }, member.key);
    expect(cleared.clearDocumentStatus.documentStatus).toBeNull();

    const locked = await server.graphqlData(`mutation($id: ID!) { lockDocumentFamily(id: $id) { id locked lockedById } }`, { id: family.id }, member.key);
    expect(locked.lockDocumentFamily).toEqual({ id: family.id, locked: true, lockedById: member.id });
    const again = await server.graphql(`mutation($id: ID!) { lockDocumentFamily(id: $id) { id } }`, { id: family.id }, member.key);
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
    const unlocked = await server.graphqlData(`mutation($id: ID!) { unlockDocumentFamily(id: $id) { locked lockedAt } }`, { id: family.id }, member.key);
    expect(unlocked.unlockDocumentFamily).toEqual({ locked: false, lockedAt: null });
  });
});

describe('OpenAPI', () => {
  it('lists the four operations with their operation ids', async () => {
    const { paths } = await rest(null, 'GET', '/v3/api-docs', 200);
    expect(paths['/api/document-families/{id}/status'].put.operationId).toBe('setDocumentStatus');
    expect(paths['/api/document-families/{id}/status'].delete.operationId).toBe('clearDocumentStatus');
    expect(paths['/api/document-families/{id}/lock'].put.operationId).toBe('lockDocumentFamily');
    expect(paths['/api/document-families/{id}/unlock'].put.operationId).toBe('unlockDocumentFamily');
    expect(Object.keys(paths['/api/document-families/{id}/status'].put.requestBody.content['application/json'].schema.properties)).toEqual([
      'id',
      'documentStatusId',
    ]);
  });
});
