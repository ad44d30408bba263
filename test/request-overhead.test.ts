import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accessLog } from '../src/http/access-log';
import { requestId } from '../src/http/request-id';
import { errorHandler } from '../src/rest/error-handler';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * What the cheap common path of a request must keep: the access log's lines (a documented refusal at
 * warn, a failure of the server at error, never for health probes), routing under /api by first segment (without regard to case, 405 and 404 as
 * before), route labels, and API keys refused once deleted although their digest is remembered.
 */

const logged = vi.hoisted(() => ({ lines: [] as string[] }));
vi.mock('../src/logging/logger', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/logging/logger')>();
  return { ...actual, logger: actual.createLogger({ write: (line: string) => void logged.lines.push(line) }, 'info') };
});

let server: TestServer;
let task: { id: string };

beforeAll(async () => {
  server = await startServer({ metricsPublic: true });
  const org = await createOrganization(server);
  task = await createTask(server, (await createProject(server, org.id)).id);
});

afterAll(async () => {
  await server?.close();
});

/** The access log line of the request that sent `requestId`. */
async function accessLine(requestId: string): Promise<Record<string, any>> {
  const find = () => logged.lines.map((line) => JSON.parse(line)).find((line) => line.requestId === requestId && line.req !== undefined);
  await expect.poll(find).toBeDefined();
  return find()!;
}

describe('the access log', () => {
  it('writes one info line per answered request, with method, URL, status, time and id', async () => {
    const requestId = unique('log');
    const path = `/api/tasks/${task.id}?x=${requestId}`;
    expect((await server.request('GET', path, { headers: { 'x-request-id': requestId } })).status).toBe(200);
    const line = await accessLine(requestId);
    expect(line).toMatchObject({ level: 30, msg: 'request completed', requestId, req: { method: 'GET', url: path }, res: { statusCode: 200 } });
    expect(line.responseTime).toBeGreaterThanOrEqual(0);
    expect(logged.lines.filter((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('request completed'))).toHaveLength(1);
  });

  it('writes a documented 503 (a provider not configured) at level warn with its reason, without an error or a stack', async () => {
    const model = unique('m-nowhere');
    expect((await server.request('POST', '/api/models', { body: { name: model, provider: 'nowhere', upstreamModel: 'echo' } })).status).toBe(201);
    const requestId = unique('log-503');
    const answer = await server.request('POST', '/api/ai/chat/completions', {
      body: { model, messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'x-request-id': requestId },
    });
    expect(answer.status, answer.text).toBe(503);
    const line = await accessLine(requestId);
    expect(line).toMatchObject({
      level: 40,
      msg: 'request refused',
      res: { statusCode: 503 },
      reason: expect.stringContaining('is not configured on this server'),
    });
    expect(line.err).toBeUndefined();
    expect(logged.lines.filter((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"level":50'))).toEqual([]);
  });

  it('writes a failure of the server (500) at level error with its error', async () => {
    const app = express();
    app.use(requestId);
    app.use(accessLog);
    app.get('/fails', () => {
      throw new Error('a defect');
    });
    app.use(errorHandler);
    const listening = await new Promise<Server>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    try {
      const id = unique('log-500');
      const answer = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/fails`, { headers: { 'x-request-id': id } });
      expect(answer.status).toBe(500);
      const line = await accessLine(id);
      expect(line).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });

  it('leaves out health probes', async () => {
    const requestId = unique('probe');
    expect((await server.request('GET', '/health/live', { key: null, headers: { 'x-request-id': requestId } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logged.lines.some((line) => line.includes(requestId))).toBe(false);
  });
});

describe('routing under /api', () => {
  it('matches paths without regard to case, as Express does', async () => {
    const answer = await server.request('GET', `/API/Tasks/${task.id}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(task.id);
  });

  it('answers 405 with Allow on an operation path, 404 for an unknown segment, 400 for an undecodable id', async () => {
    const lock = await server.request('GET', `/api/tasks/${task.id}/lock`);
    expect(lock.status, lock.text).toBe(405);
    expect(lock.headers.get('allow')).toBe('PUT');
    const unknown = await server.request('GET', '/api/no-such-segment/1');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('no route for GET /api/no-such-segment/1');
    expect((await server.request('GET', '/api/tasks/%ff')).status).toBe(400);
    expect((await server.request('GET', '/api')).status).toBe(404);
  });

  it('labels metrics by route template', async () => {
    expect((await server.request('GET', `/api/tasks/${task.id}`)).status).toBe(200);
    expect((await server.request('PUT', `/api/tasks/${task.id}/lock`)).status).toBe(200);
    const text = (await server.request('GET', '/metrics', { key: null })).text;
    expect(text).toContain('http_requests_total{method="GET",route="/api/tasks/:id",status="200"}');
    expect(text).toContain('http_requests_total{method="PUT",route="/api/tasks/:id/lock",status="200"}');
    expect(text).toContain('http_requests_total{method="GET",route="/api/tasks/:id/lock",status="405"}');
    expect(text).not.toContain(task.id);
  });
});

describe('API keys', () => {
  it('refuses a key deleted after it authenticated (its digest remembered)', async () => {
    const user = await server.request('POST', '/api/users', { body: { email: `${unique('u')}@example.com`, firstName: 'Key', lastName: 'Holder' } });
    expect(user.status, user.text).toBe(201);
    const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('key'), userId: user.body.id } });
    expect(token.status, token.text).toBe(201);
    for (let i = 0; i < 2; i++) expect((await server.request('GET', '/api/account/me', { key: token.body.token })).status).toBe(200);
    expect((await server.request('DELETE', `/api/access-tokens/${token.body.id}`)).status).toBe(204);
    expect((await server.request('GET', '/api/account/me', { key: token.body.token })).status).toBe(401);
  });
});
