import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, type TestServer } from './support/server';

/**
 * HTTP validators on every resource: a row's strong ETag from its id and changeSequence, a page's weak
 * one, If-None-Match answered 304, and If-Match on PUT and DELETE answered 412 when stale.
 */
let server: TestServer;
let projectId: string;

beforeAll(async () => {
  server = await startServer();
  const org = await createOrganization(server);
  projectId = (await createProject(server, org.id)).id;
});

afterAll(async () => {
  await server?.close();
});

const tagOf = (row: { id: string; changeSequence: number }) => `"${row.id}.${row.changeSequence}"`;

describe('GET of one row', () => {
  it('answers a strong ETag of its id and changeSequence, and 304 with no body while If-None-Match names it', async () => {
    const task = await createTask(server, projectId, { title: 'tagged' });
    const first = await server.request('GET', `/api/tasks/${task.id}`);
    expect(first.headers.get('etag')).toBe(tagOf(task));
    const again = await server.request('GET', `/api/tasks/${task.id}`, { headers: { 'if-none-match': tagOf(task) } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    // If-None-Match compares weakly: the weak form of the tag and a list holding it match too.
    expect((await server.request('GET', `/api/tasks/${task.id}`, { headers: { 'if-none-match': `W/${tagOf(task)}` } })).status).toBe(304);
    expect((await server.request('GET', `/api/tasks/${task.id}`, { headers: { 'if-none-match': `"other", ${tagOf(task)}` } })).status).toBe(304);

    const updated = await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'moved on' } });
    expect(updated.headers.get('etag')).toBe(tagOf(updated.body));
    const stale = await server.request('GET', `/api/tasks/${task.id}`, { headers: { 'if-none-match': tagOf(task) } });
    expect(stale.status).toBe(200);
    expect(stale.body.title).toBe('moved on');
    expect(stale.headers.get('etag')).toBe(`"${task.id}.1"`);
  });
});

describe('GET of a page', () => {
  it('answers a weak ETag over its rows and total, 304 while unchanged, a new tag once a row on it changes', async () => {
    const task = await createTask(server, projectId, { title: 'listed' });
    const path = `/api/tasks?filter=${encodeURIComponent(`projectId==${projectId}`)}&pageSize=100`;
    const first = await server.request('GET', path);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^W\/"[\w-]+"$/);
    expect((await server.request('GET', path, { headers: { 'if-none-match': tag } })).status).toBe(304);
    await server.request('PUT', `/api/tasks/${task.id}`, { body: { priority: 7 } });
    const changed = await server.request('GET', path, { headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
    await createTask(server, projectId, { title: 'one more' });
    expect((await server.request('GET', path, { headers: { 'if-none-match': changed.headers.get('etag')! } })).status).toBe(200);
  });
});

describe('GET of a page a domain operation answers', () => {
  it('carries the same weak ETag rule (task-group history)', async () => {
    const group = await server.request('POST', '/api/task-groups', { body: { name: 'tagged group', projectId } });
    expect(group.status, group.text).toBe(201);
    const path = `/api/task-groups/${group.body.id}/history`;
    const first = await server.request('GET', path);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('etag')).toMatch(/^W\//);
    expect((await server.request('GET', path, { headers: { 'if-none-match': first.headers.get('etag')! } })).status).toBe(304);
  });
});

describe('If-Match on writes', () => {
  it('lets a PUT through while it names the current version (or *), and answers 412 with currentChangeSequence once stale, writing nothing', async () => {
    const task = await createTask(server, projectId, { title: 'v0' });
    const current = await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'v1' }, headers: { 'if-match': tagOf(task) } });
    expect(current.status, current.text).toBe(200);
    expect(current.body.changeSequence).toBe(1);

    const stale = await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'lost' }, headers: { 'if-match': tagOf(task) } });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ error: 'Precondition Failed', status: 412, currentChangeSequence: 1 });
    expect(stale.body.message).toContain(`"${task.id}.1"`);
    expect((await server.request('GET', `/api/tasks/${task.id}`)).body).toMatchObject({ title: 'v1', changeSequence: 1 });

    // Another row's tag, a weak tag (strong comparison) and garbage never match.
    for (const header of [`"00000000-0000-4000-8000-000000000000.1"`, `W/"${task.id}.1"`, 'nonsense']) {
      expect((await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'no' }, headers: { 'if-match': header } })).status, header).toBe(412);
    }
    expect((await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'any' }, headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('wants a body changeSequence and If-Match to name the same version (400 naming changeSequence otherwise)', async () => {
    const task = await createTask(server, projectId, { title: 'both' });
    const disagreeing = await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'x', changeSequence: 3 }, headers: { 'if-match': tagOf(task) } });
    expect(disagreeing.status).toBe(400);
    expect(disagreeing.body.details).toEqual([{ field: 'changeSequence', message: expect.stringContaining('If-Match names changeSequence 0') }]);
    const agreeing = await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'y', changeSequence: 0 }, headers: { 'if-match': tagOf(task) } });
    expect(agreeing.status).toBe(200);
    // The body alone keeps its 409.
    expect((await server.request('PUT', `/api/tasks/${task.id}`, { body: { title: 'z', changeSequence: 0 } })).status).toBe(409);
  });

  it('refuses a DELETE naming a stale version with 412 and keeps the row; a current one deletes it', async () => {
    const org = await createOrganization(server);
    const status = await server.request('POST', '/api/task-statuses', { body: { label: 'Gone soon', organizationId: org.id } });
    expect(status.status, status.text).toBe(201);
    await server.request('PUT', `/api/task-statuses/${status.body.id}`, { body: { label: 'Renamed' } });
    const stale = await server.request('DELETE', `/api/task-statuses/${status.body.id}`, { headers: { 'if-match': tagOf(status.body) } });
    expect(stale.status).toBe(412);
    expect(stale.body.currentChangeSequence).toBe(1);
    expect((await server.request('GET', `/api/task-statuses/${status.body.id}`)).status).toBe(200);
    const current = await server.request('DELETE', `/api/task-statuses/${status.body.id}`, { headers: { 'if-match': `"${status.body.id}.1"` } });
    expect(current.status).toBe(204);
  });
});

describe('OpenAPI', () => {
  it('documents ETag, If-None-Match and 304 on reads, If-Match and 412 on writes', async () => {
    const doc = (await server.request('GET', '/v3/api-docs')).body;
    const item = doc.paths['/api/tasks/{id}'];
    expect(item.get.parameters.map((p: { name: string }) => p.name)).toContain('If-None-Match');
    expect(item.get.responses['200'].headers.ETag).toBeDefined();
    expect(item.get.responses['304']).toBeDefined();
    expect(item.put.parameters.map((p: { name: string }) => p.name)).toContain('If-Match');
    expect(item.put.responses['412']).toEqual({ $ref: '#/components/responses/PreconditionFailed' });
    expect(item.delete.responses['412']).toBeDefined();
    expect(doc.paths['/api/tasks'].get.responses['200'].headers.ETag).toBeDefined();
  });
});
