import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('health and credentials', () => {
  it('answers /health without credentials', async () => {
    const answer = await server.request('GET', '/health', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'UP', database: 'UP' });
  });

  it('refuses /api without an API key with the error body', async () => {
    const answer = await server.request('GET', '/api/organizations', { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'Unauthorized', status: 401 });
    expect(typeof answer.body.message).toBe('string');
  });
});
