import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * Task lock, unlock and status (REST and GraphQL), the task activities and platform events they leave,
 * the data-lake record of a lock, and the refusal to reassign a locked task.
 */

const ISSUER = 'https://issuer.task-operations.test';
const AUDIENCE = 'platform-api';

let server: TestServer;
let lakeDir: string;
let jose: typeof import('jose');
let keys: { publicKey: CryptoKey; privateKey: CryptoKey };
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organizationId: string;
let projectId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  jose = await import('jose');
  keys = (await jose.generateKeyPair('RS256')) as typeof keys;
  lakeDir = mkdtempSync(join(tmpdir(), 'task-lake-'));
  server = await startServer({
    dataLake: { kind: 'file', dir: lakeDir },
    jwt: { publicKeyPem: await jose.exportSPKI(keys.publicKey), issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 30, jwksCooldownMs: 0 },
  });
  member = await newCaller('TaskOps');
  organizationId = (await createOrganization(server, { name: unique('TaskOpsOrg') }, member.key)).id;
  projectId = (await createProject(server, organizationId, {}, member.key)).id;
  otherOrganizationId = (await createOrganization(server, { name: unique('TaskOpsOther') }, member.key)).id;
  for (const [label, slug] of [
    ['Open', 'open'],
    ['Done', 'done'],
  ]) {
    await rest(member, 'POST', '/api/task-statuses', 201, { label, slug, organizationId });
  }
  await rest(member, 'POST', '/api/task-statuses', 201, { label: 'Elsewhere', slug: 'elsewhere', organizationId: otherOrganizationId });
});
afterAll(() => server.close());

const newTask = async (body: Record<string, unknown> = {}) => createTask(server, projectId, { title: unique('Task'), ...body }, member.key);

async function activitiesOf(taskId: string, key = member.key): Promise<any[]> {
  const answer = await server.request('GET', `/api/task-activities?filter=${encodeURIComponent(`taskId==${taskId}`)}&pageSize=100`, { key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.content;
}

async function eventsOf(taskId: string): Promise<any[]> {
  const answer = await server.request('GET', `/api/events?filter=${encodeURIComponent(`projectId==${projectId}`)}&pageSize=100`, { key: member.key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.content.filter((e: any) => e.eventDetail?.taskId === taskId);
}

/** The lake records written for a task (path relative to the lake folder, and content). */
function lakeRecordsOf(taskId: string, root = lakeDir): { path: string; record: Record<string, unknown> }[] {
  const found: { path: string; record: Record<string, unknown> }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.startsWith(`${taskId}-`)) found.push({ path: relative(root, full), record: JSON.parse(readFileSync(full, 'utf8')) });
    }
  };
  walk(root);
  return found;
}

async function bearerCaller(): Promise<{ token: string; userId: string; email: string }> {
  const email = `${unique('bearer')}@example.test`;
  const token = await new jose.SignJWT({ email, email_verified: true, given_name: 'Bea' })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .setSubject(unique('sub'))
    .sign(keys.privateKey);
  const created = await server.request('POST', '/api/account/callback', { key: null, headers: { authorization: `Bearer ${token}` } });
  expect(created.status, created.text).toBeLessThan(300);
  return { token, userId: created.body.id, email };
}

const asBearer = (token: string, method: string, path: string, body?: unknown): Promise<Answer> =>
  server.request(method, path, { key: null, headers: { authorization: `Bearer ${token}` }, body });

describe('lock and unlock', () => {
  it('locks a task (200, locked, lockedAt, lockedById), 409 when locked again, unlocks with a reason, 409 when not locked', async () => {
    const task = await newTask();
    const locked = await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    expect(locked).toMatchObject({ id: task.id, locked: true, lockedById: member.id, changeSequence: task.changeSequence + 1 });
    expect(Date.parse(locked.lockedAt)).toBeGreaterThan(Date.now() - 60_000);
    const again = await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 409);
    expect(again.message).toContain('already locked');
    expect(await rest(member, 'GET', `/api/tasks/${task.id}`, 200)).toEqual(locked);

    const unlocked = await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 200, { reason: 'review done' });
    expect(unlocked).toMatchObject({ locked: false, lockedAt: null, lockedById: null });
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 409);

    const texts = (await activitiesOf(task.id)).map((a) => [a.type, a.text]);
    expect(texts).toEqual(
      expect.arrayContaining([
        ['CREATED', 'Task created'],
        ['LOCKED', 'Task locked'],
        ['UNLOCKED', 'Task unlocked: review done'],
      ]),
    );
    expect(texts).toHaveLength(3);
  });

  it('writes "Task unlocked: " exactly for an absent, null or blank reason, and accepts no body and {}', async () => {
    for (const body of [undefined, {}, { reason: null }, { reason: '   ' }]) {
      const task = await newTask();
      await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
      await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 200, body);
      const unlock = (await activitiesOf(task.id)).find((a) => a.type === 'UNLOCKED');
      expect(unlock.text, JSON.stringify(body)).toBe('Task unlocked: ');
    }
  });

  it('refuses a reason that is not text and a body that is not an object, naming the field', async () => {
    const task = await newTask();
    await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    const refused = await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 400, { reason: 42 });
    expect(refused.details[0].field).toBe('reason');
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 400, [1]);
    // A body is a JSON object when sent: "" and null are not "no body".
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 400, '""');
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 400, 'null');
    await rest(member, 'PUT', `/api/tasks/not-a-uuid/lock`, 400);
    await rest(member, 'PUT', `/api/tasks/${randomUUID()}/lock`, 404);
  });

  it('lets exactly one of many concurrent locks of a task win', async () => {
    const task = await newTask();
    const answers = await Promise.all(Array.from({ length: 8 }, () => server.request('PUT', `/api/tasks/${task.id}/lock`, { key: member.key })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect((await activitiesOf(task.id)).filter((a) => a.type === 'LOCKED')).toHaveLength(1);
    expect(lakeRecordsOf(task.id)).toHaveLength(1);
  });

  it("refuses another tenant's lock with 403 and leaves the task as it was", async () => {
    const task = await newTask();
    const outsider = await newCaller('LockOutsider');
    await rest(outsider, 'PUT', `/api/tasks/${task.id}/lock`, 403);
    expect((await rest(member, 'GET', `/api/tasks/${task.id}`, 200)).locked).toBe(false);
  });
});

describe('the data-lake record of a lock', () => {
  it('leaves out lockedById and lockedByEmail for an API-key caller', async () => {
    const task = await newTask({ statusSlug: 'open', properties: { k: 'v' } });
    const locked = await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    const [{ path, record }] = lakeRecordsOf(task.id);
    const at = new Date(locked.lockedAt);
    const day = at.toISOString().slice(0, 10).replaceAll('-', '/');
    expect(path).toBe(join('task-locks', day, `${task.id}-${at.getTime()}.json`));
    expect(Object.keys(record).sort()).toEqual(['documentFamilyIds', 'lockedAt', 'projectId', 'properties', 'taskId', 'taskStatus']);
    expect(record).toEqual({ taskId: task.id, lockedAt: locked.lockedAt, taskStatus: 'open', projectId, documentFamilyIds: [], properties: { k: 'v' } });
    const activity = (await activitiesOf(task.id)).find((a) => a.type === 'LOCKED');
    expect(activity).toMatchObject({ actorId: member.id, actorType: 'API_KEY' });
  });

  it('names the user for a bearer caller, and their activity is a USER one', async () => {
    const bearer = await bearerCaller();
    const org = await asBearer(bearer.token, 'POST', '/api/organizations', { name: unique('BearerOrg') });
    expect(org.status, org.text).toBe(201);
    const project = await asBearer(bearer.token, 'POST', '/api/projects', { name: 'P', organizationId: org.body.id });
    const task = await asBearer(bearer.token, 'POST', '/api/tasks', { projectId: project.body.id, title: 'Bearer task' });
    const locked = await asBearer(bearer.token, 'PUT', `/api/tasks/${task.body.id}/lock`);
    expect(locked.status, locked.text).toBe(200);
    const [{ record }] = lakeRecordsOf(task.body.id);
    expect(Object.keys(record).sort()).toEqual([
      'documentFamilyIds',
      'lockedAt',
      'lockedByEmail',
      'lockedById',
      'projectId',
      'properties',
      'taskId',
      'taskStatus',
    ]);
    expect(record).toMatchObject({ lockedById: bearer.userId, lockedByEmail: bearer.email, taskStatus: null });
    const activities = await asBearer(bearer.token, 'GET', `/api/task-activities?filter=${encodeURIComponent(`taskId==${task.body.id}`)}`);
    expect(activities.body.content.find((a: any) => a.type === 'LOCKED')).toMatchObject({ actorId: bearer.userId, actorType: 'USER' });
  });

  it('never fails or undoes the lock when the lake folder cannot be written', async () => {
    const blocked = join(mkdtempSync(join(tmpdir(), 'blocked-lake-')), 'a-file');
    writeFileSync(blocked, 'not a folder');
    const blockedServer = await startServer({ dataLake: { kind: 'file', dir: blocked } });
    try {
      const task = await newTask();
      const locked = await blockedServer.request('PUT', `/api/tasks/${task.id}/lock`, { key: member.key });
      expect(locked.status, locked.text).toBe(200);
      expect(locked.body.locked).toBe(true);
      expect((await rest(member, 'GET', `/api/tasks/${task.id}`, 200)).locked).toBe(true);
      expect((await activitiesOf(task.id)).some((a) => a.type === 'LOCKED')).toBe(true);
    } finally {
      await blockedServer.close();
    }
  });
});

describe('assignment of a locked task', () => {
  it('is 409 "task is locked"; other fields still change; unlocked, the assignee changes with an ASSIGNED activity', async () => {
    const task = await newTask();
    await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    const refused = await rest(member, 'PUT', `/api/tasks/${task.id}`, 409, { assigneeId: member.id });
    expect(refused.message).toBe('task is locked');
    expect((await rest(member, 'GET', `/api/tasks/${task.id}`, 200)).assigneeId).toBeNull();
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}`, 200, { title: 'Renamed while locked' })).title).toBe('Renamed while locked');
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 200);
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}`, 200, { assigneeId: member.id })).assigneeId).toBe(member.id);
    const assigned = (await activitiesOf(task.id)).filter((a) => a.type === 'ASSIGNED');
    expect(assigned).toHaveLength(1);
    expect(assigned[0]).toMatchObject({ actorId: member.id, actorType: 'API_KEY', details: { from: null, to: member.id } });
  });
});

describe('task status', () => {
  it('sets a live status of the organization by slug or id, with a STATUS_CHANGED activity and a task_status_changed event', async () => {
    const task = await newTask();
    const open = await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 200, { statusSlug: 'open' });
    expect(open.statusSlug).toBe('open');
    const done = (await rest(member, 'GET', `/api/task-statuses?filter=${encodeURIComponent(`slug==done;organizationId==${organizationId}`)}`, 200)).content[0];
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 200, { statusId: done.id })).statusSlug).toBe('done');
    const changes = (await activitiesOf(task.id)).filter((a) => a.type === 'STATUS_CHANGED');
    expect(changes.map((a) => a.text).sort()).toEqual(['Status changed from none to open', 'Status changed from open to done']);
    expect(changes.find((a) => a.text.endsWith('to done')).details).toEqual({ from: 'open', to: 'done' });
    const events = (await eventsOf(task.id)).filter((e) => e.eventType === 'task_status_changed');
    expect(events.map((e) => e.eventDetail.to).sort()).toEqual(['done', 'open']);
    expect(events[0]).toMatchObject({ projectId, notified: false, project: { id: projectId } });
  });

  it("refuses an unknown slug, a deleted status, another organization's status and no status with 400 naming the field", async () => {
    const task = await newTask();
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, { statusSlug: 'nope' })).details[0].field).toBe('statusSlug');
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, { statusSlug: 'elsewhere' })).details[0].field).toBe('statusSlug');
    const elsewhere = (await rest(member, 'GET', `/api/task-statuses?filter=slug==elsewhere;organizationId==${otherOrganizationId}`, 200)).content[0];
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, { statusId: elsewhere.id })).details[0].field).toBe('statusId');
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, { statusId: randomUUID() })).details[0].field).toBe('statusId');
    expect((await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, { statusId: 'x' })).details[0].field).toBe('statusId');
    const gone = await rest(member, 'POST', '/api/task-statuses', 201, { label: 'Gone', slug: unique('gone'), organizationId });
    await rest(member, 'DELETE', `/api/task-statuses/${gone.id}`, 204);
    await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, { statusSlug: gone.slug });
    await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 400, {});
    expect((await rest(member, 'GET', `/api/tasks/${task.id}`, 200)).statusSlug).toBeNull();
  });

  it("answers 403 for another tenant's status named by id", async () => {
    const outsider = await newCaller('StatusOutsider');
    const theirOrg = (await createOrganization(server, { name: unique('TheirOrg') }, outsider.key)).id;
    const theirs = await rest(outsider, 'POST', '/api/task-statuses', 201, { label: 'Theirs', slug: 'theirs', organizationId: theirOrg });
    const task = await newTask();
    const refused = await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 403, { statusId: theirs.id });
    expect(refused.status).toBe(403);
  });
});

describe('events in the transaction of their change', () => {
  it('records task_created, task_locked and task_unlocked with the task id', async () => {
    const task = await newTask();
    await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    await rest(member, 'PUT', `/api/tasks/${task.id}/unlock`, 200);
    expect((await eventsOf(task.id)).map((e) => e.eventType).sort()).toEqual(['task_created', 'task_locked', 'task_unlocked']);
  });

  it('leaves no event and no activity behind when the change fails after they were written', async () => {
    const task = await newTask();
    const connection = server.orm.em.getConnection();
    // The task's UPDATE fails inside the transaction that already holds the event and the activity.
    await connection.execute(`create or replace function refuse_task_update() returns trigger language plpgsql as $$
      begin if new.id = '${task.id}' then raise exception 'refused' using errcode = '23505'; end if; return new; end $$`);
    await connection.execute(`create trigger refuse_task_update before update on task for each row execute function refuse_task_update()`);
    try {
      await rest(member, 'PUT', `/api/tasks/${task.id}/status`, 409, { statusSlug: 'open' });
      await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 409);
    } finally {
      await connection.execute('drop trigger refuse_task_update on task');
      await connection.execute('drop function refuse_task_update()');
    }
    expect((await eventsOf(task.id)).map((e) => e.eventType)).toEqual(['task_created']);
    expect((await activitiesOf(task.id)).map((a) => a.type)).toEqual(['CREATED']);
    expect(lakeRecordsOf(task.id)).toEqual([]);
  });
});

describe('changes through the collection itself', () => {
  it('records a status changed by PUT /api/tasks/{id} like the status operation (activity and event), and nothing when it is unchanged', async () => {
    const task = await newTask({ statusSlug: 'open' });
    await rest(member, 'PUT', `/api/tasks/${task.id}`, 200, { statusSlug: 'done' });
    await rest(member, 'PUT', `/api/tasks/${task.id}`, 200, { statusSlug: 'done', title: 'Same status' });
    const changes = (await activitiesOf(task.id)).filter((a) => a.type === 'STATUS_CHANGED');
    expect(changes.map((a) => [a.text, a.details])).toEqual([['Status changed from open to done', { from: 'open', to: 'done' }]]);
    expect((await eventsOf(task.id)).filter((e) => e.eventType === 'task_status_changed').map((e) => e.eventDetail)).toEqual([
      { taskId: task.id, from: 'open', to: 'done' },
    ]);
  });

  it('records knowledge_set_updated when a knowledge set of a project changes, and no event for one without a project', async () => {
    const inProject = await rest(member, 'POST', '/api/knowledge-sets', 201, { name: unique('KS'), organizationId, projectId });
    const loose = await rest(member, 'POST', '/api/knowledge-sets', 201, { name: unique('KS'), organizationId });
    await rest(member, 'PUT', `/api/knowledge-sets/${inProject.id}`, 200, { name: unique('KS renamed') });
    await rest(member, 'PUT', `/api/knowledge-sets/${loose.id}`, 200, { name: unique('KS renamed') });
    await rest(member, 'PUT', `/api/knowledge-sets/${inProject.id}`, 200, {}); // nothing changes: no event
    const events = await rest(
      member,
      'GET',
      `/api/events?filter=${encodeURIComponent(`projectId==${projectId};eventType==knowledge_set_updated`)}&pageSize=100`,
      200,
    );
    const forSets = events.content.filter((e: any) => [inProject.id, loose.id].includes(e.eventDetail.knowledgeSetId));
    expect(forSets.map((e: any) => e.eventDetail)).toEqual([{ knowledgeSetId: inProject.id }]);
  });
});

describe('activity_completed', () => {
  it('is recorded once when an activity becomes COMPLETED, not for other statuses', async () => {
    const activity = await rest(member, 'POST', '/api/activities', 201, { projectId, title: unique('Activity') });
    await rest(member, 'PUT', `/api/activities/${activity.id}`, 200, { status: 'RUNNING' });
    await rest(member, 'PUT', `/api/activities/${activity.id}`, 200, { status: 'COMPLETED' });
    await rest(member, 'PUT', `/api/activities/${activity.id}`, 200, { status: 'COMPLETED', title: 'Still completed' });
    const events = await rest(
      member,
      'GET',
      `/api/events?filter=${encodeURIComponent(`projectId==${projectId};eventType==activity_completed`)}&pageSize=100`,
      200,
    );
    expect(events.content.filter((e: any) => e.eventDetail.activityId === activity.id).map((e: any) => e.eventDetail)).toEqual([{ activityId: activity.id }]);
  });
});

describe('GraphQL', () => {
  it('serves lockTask, unlockTask and setTaskStatus with the REST rules', async () => {
    const task = await newTask();
    const locked = await server.graphqlData(`mutation($id: ID!) { lockTask(id: $id) { id locked lockedById } }`, { id: task.id }, member.key);
    expect(locked.lockTask).toEqual({ id: task.id, locked: true, lockedById: member.id });
    const again = await server.graphql(`mutation($id: ID!) { lockTask(id: $id) { id } }`, { id: task.id }, member.key);
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
    const unlocked = await server.graphqlData(`mutation($id: ID!) { unlockTask(id: $id, reason: "ok") { locked } }`, { id: task.id }, member.key);
    expect(unlocked.unlockTask.locked).toBe(false);
    expect((await activitiesOf(task.id)).find((a) => a.type === 'UNLOCKED').text).toBe('Task unlocked: ok');
    const status = await server.graphqlData(`mutation($id: ID!) { setTaskStatus(id: $id, statusSlug: "done") { statusSlug } }`, { id: task.id }, member.key);
    expect(status.setTaskStatus.statusSlug).toBe('done');
    const refused = await server.graphql(`mutation($id: ID!) { setTaskStatus(id: $id, statusSlug: "nope") { id } }`, { id: task.id }, member.key);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});
