import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

/**
 * A method a path does not serve is 405 with the error body and an `Allow` header naming exactly the
 * methods the path serves (HEAD beside GET; OPTIONS is served nowhere), walked over every path of the
 * OpenAPI document and every method it does not declare there; the paths outside the document the
 * server serves (the index, health, metrics) do the same. A path the server does not serve is 404 to
 * every method.
 */

let server: TestServer;
let doc: { paths: Record<string, Record<string, unknown>> };
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

beforeAll(async () => {
  server = await startServer();
  doc = (await server.request('GET', '/v3/api-docs')).body;
});
afterAll(async () => {
  agent.destroy();
  await server?.close();
});

/** Every method a client may send, TRACE and OPTIONS among them (fetch refuses TRACE: node:http sends it). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

interface Answer {
  status: number;
  allow: string | undefined;
  body: string;
}

function send(method: string, path: string, key: string | null = server.adminKey): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = method === 'GET' || method === 'HEAD' || method === 'TRACE' ? '' : '{}';
    // A length of its own: node:http frames no body of DELETE or OPTIONS by itself.
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      ...(key ? { 'x-api-key': key } : {}),
    };
    const req = httpRequest(new URL(path, server.url), { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A documented path with a fresh UUID for each parameter (an unknown row: nothing is read or written). */
function concrete(path: string): string {
  return path.replace(/\{\w+\}/g, () => randomUUID());
}

/** Runs `work` over `items`, 25 at a time. */
async function inBatches<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 25) await Promise.all(items.slice(i, i + 25).map(work));
}

/** What a 405 must be: the Allow header naming `allowed`, and the error body naming the path, the method and `allowed`. */
function expectRefused(answer: Answer, method: string, path: string, allowed: string[], at: string): void {
  expect(answer.status, at).toBe(405);
  expect(answer.allow?.split(', ').sort(), at).toEqual([...allowed].sort());
  if (method === 'HEAD') return expect(answer.body, at).toBe('');
  const message = `${path} does not support ${method}; allowed: ${answer.allow}`;
  const body = JSON.parse(answer.body);
  // The AI gateway's paths answer the same error as OpenAI clients read it.
  if (path.startsWith('/api/ai/')) expect(body, at).toMatchObject({ error: { message, code: 'METHOD_NOT_ALLOWED' }, status: 405, message });
  else expect(body, at).toEqual({ error: 'Method Not Allowed', status: 405, message });
}

describe('a method a path does not serve', () => {
  it('is 405 with Allow naming what the document declares, on every path of the document and every other method', async () => {
    const refusals = Object.entries(doc.paths).flatMap(([template, item]) => {
      const allowed = Object.keys(item).map((method) => method.toUpperCase());
      return METHODS.filter((method) => !allowed.includes(method)).map((method) => ({ template, method, allowed }));
    });
    // Collections without a create, item paths, exports, the sequences, the domain operations' paths ...
    expect(refusals.length).toBeGreaterThan(900);
    const failures: string[] = [];
    await inBatches(refusals, async ({ template, method, allowed }) => {
      const path = concrete(template);
      const answer = await send(method, path);
      try {
        expectRefused(answer, method, path, allowed, `${method} ${template}`);
      } catch (error) {
        failures.push(
          `${method} ${template}: ${answer.status} Allow: ${answer.allow} ${answer.body.slice(0, 200)} (${(error as Error).message.split('\n')[0]})`,
        );
      }
    });
    expect(failures.sort()).toEqual([]);
  });

  it('lists HEAD beside GET and never OPTIONS, and a write the collection does not have is absent from Allow', async () => {
    const put = await send('PUT', '/api/tasks');
    expectRefused(put, 'PUT', '/api/tasks', ['GET', 'HEAD', 'POST'], 'PUT /api/tasks');
    const options = await send('OPTIONS', `/api/tasks/${randomUUID()}`);
    expect([options.status, options.allow]).toEqual([405, 'GET, HEAD, PUT, DELETE']);
    const post = await send('POST', `/api/tasks/${randomUUID()}`);
    expect([post.status, post.allow]).toEqual([405, 'GET, HEAD, PUT, DELETE']);
    const history = await send('DELETE', '/api/task-group-history');
    expect([history.status, history.allow]).toEqual([405, 'GET, HEAD']);
    const proxy = await send('OPTIONS', `/api/service-bridges/${randomUUID()}/proxy`);
    expect([proxy.status, proxy.allow]).toEqual([405, 'GET, HEAD, POST, PUT, PATCH, DELETE']);
  });

  it('is 405 on the paths outside the document too (index, health, metrics), before any credentials', async () => {
    for (const path of ['/', '/health', '/health/live', '/metrics']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        expectRefused(await send(method, path, null), method, path, ['GET', 'HEAD'], `${method} ${path}`);
      }
      expect((await send('GET', path)).status, path).toBe(200);
    }
  });

  it('is still 401 without credentials under /api: the caller is known before the method is judged', async () => {
    const answer = await send('PUT', '/api/tasks', null);
    expect(answer.status).toBe(401);
  });
});

describe('a path the server does not serve', () => {
  it('is 404 to every method', async () => {
    const unknown = [
      '/api/no-such-collection',
      `/api/no-such-collection/${randomUUID()}`,
      `/api/tasks/${randomUUID()}/no-such-thing`,
      `/api/tasks/${randomUUID()}/sequence/more`,
      '/api/tasks/export/more/than/that',
      `/api/organizations/${randomUUID()}/no-such-collection`,
      '/v3/no-such-document',
      '/healthy',
    ];
    const failures: string[] = [];
    await inBatches(
      unknown.flatMap((path) => METHODS.map((method) => ({ path, method }))),
      async ({ path, method }) => {
        const answer = await send(method, path);
        const body = method === 'HEAD' ? '' : JSON.parse(answer.body);
        const expected = method === 'HEAD' ? '' : { error: 'Not Found', message: `no route for ${method} ${path}`, status: 404 };
        if (answer.status !== 404 || answer.allow !== undefined || JSON.stringify(body) !== JSON.stringify(expected)) {
          failures.push(`${method} ${path}: ${answer.status} Allow: ${answer.allow} ${answer.body.slice(0, 200)}`);
        }
      },
    );
    expect(failures.sort()).toEqual([]);
  });
});
