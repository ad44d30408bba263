import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { CLOSE_TOO_MANY_REQUESTS, CLOSE_UNAUTHORIZED } from '../src/graphql/live/websocket-server';
import { generateApiKey } from '../src/modules/access/api-keys';
import { startServerProcess, until, type ServerProcess } from './support/server-process';
import { startServer, type TestServer } from './support/server';

/**
 * What an operator meets around the API: probes and scrapes that a noisy client cannot starve,
 * X-Forwarded-For read only behind TRUST_PROXY, a start refused in one line for a variable that cannot
 * be used, and refusals the documentation describes kept out of the error log.
 */

const MAIN = join(__dirname, '..', 'dist', 'src', 'main.js');
const BAD_KEY = 'pk_not-a-key-of-this-server';

/** A request with a key the server does not know (counted against the client address's budget) and, if given, X-Forwarded-For. */
async function badKeyRequest(url: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { 'x-api-key': BAD_KEY, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) };
  return (await fetch(`${url}/api/projects`, { headers })).status;
}

/** Sends bad-key requests until one is refused with 429; fails if none is within `most`. */
async function spendBudget(url: string, forwardedFor?: string, most = 50): Promise<void> {
  for (let sent = 0; sent < most; sent++) if ((await badKeyRequest(url, forwardedFor)) === 429) return;
  throw new Error(`no 429 within ${most} requests`);
}

/** How the server closes a graphql-ws connection sent without credentials, through a proxy that wrote `forwardedFor`. */
async function subscriptionClose(url: string, forwardedFor: string): Promise<number> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { 'x-forwarded-for': forwardedFor } });
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', (code) => resolve(code));
  });
}

describe('health and metrics are never rate limited', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ rateLimits: { perMinute: 5, burstPerSecond: 100, userPerMinute: 1_000_000 }, metricsPublic: true });
  });
  afterAll(() => server?.close());

  it('answer 200 after twenty bad-key requests from the same address spent its budget, which the API still refuses', async () => {
    const statuses: number[] = [];
    for (let sent = 0; sent < 20; sent++) statuses.push(await badKeyRequest(server.url));
    expect(statuses).toContain(429);
    expect(await badKeyRequest(server.url)).toBe(429);
    for (const path of ['/health', '/health/live', '/metrics']) {
      const answer = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': BAD_KEY } });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('retry-after'), path).toBeNull();
    }
  });
});

describe('TRUST_PROXY', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  const start = async (trustProxy?: false | number | string[]) => {
    const server = await startServer({ rateLimits: { perMinute: 3, burstPerSecond: 100, userPerMinute: 1_000_000 }, trustProxy });
    servers.push(server);
    return server;
  };
  // A client (left) behind the load balancer (right) that appended the address it saw.
  const client = '203.0.113.7';
  const balancer = '198.51.100.9';

  it('2 hops: the budget is the client address two proxies out (X-Forwarded-For "client, balancer"), one per client', async () => {
    const server = await start(2);
    await spendBudget(server.url, `${client}, ${balancer}`);
    expect(await badKeyRequest(server.url, `${client}, ${balancer}`)).toBe(429);
    expect(await badKeyRequest(server.url, `203.0.113.8, ${balancer}`)).toBe(401);
  });

  it('1 hop: the budget is the address the one trusted proxy saw, the right-most entry', async () => {
    const server = await start(1);
    await spendBudget(server.url, `${client}, ${balancer}`);
    // Another left-most entry behind the same right-most one: the same client for one hop.
    expect(await badKeyRequest(server.url, `203.0.113.8, ${balancer}`)).toBe(429);
    expect(await badKeyRequest(server.url, `${client}, 198.51.100.10`)).toBe(401);
  });

  it('a list naming the proxy (loopback): the first address from the right that is not a trusted proxy', async () => {
    const server = await start(['loopback']);
    await spendBudget(server.url, `${client}, ${balancer}`);
    expect(await badKeyRequest(server.url, `10.9.9.9, ${balancer}`)).toBe(429);
    expect(await badKeyRequest(server.url, '198.51.100.10')).toBe(401);
  });

  it('subscriptions count against the same client address: spent over HTTP, a connection from it is closed 4429, another’s is not', async () => {
    const server = await start(1);
    await spendBudget(server.url, `${client}, ${balancer}`);
    expect(await subscriptionClose(server.url, `10.1.1.1, ${balancer}`)).toBe(CLOSE_TOO_MANY_REQUESTS);
    expect(await subscriptionClose(server.url, `${client}, 198.51.100.10`)).toBe(CLOSE_UNAUTHORIZED);
  });

  it('off (the default): X-Forwarded-For is ignored, every request counts against the socket address', async () => {
    const server = await start();
    await spendBudget(server.url, `${client}, ${balancer}`);
    expect(await badKeyRequest(server.url, `203.0.113.8, 198.51.100.10`)).toBe(429);
    expect(await badKeyRequest(server.url)).toBe(429);
  });
});

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built server with `env` over a clean environment, run until it exits by itself (within 30 s). */
function runUntilExit(env: Record<string, string>): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, DATABASE_URL: inject('databaseUrl'), PORT: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not exit within 30 s:\n${stdout}${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a variable the server cannot use stops the start', () => {
  it.each([
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
    [
      'TRUST_PROXY',
      'everyone',
      'TRUST_PROXY must be a hop count (0 or more), or a comma-separated list of IP addresses, CIDR ranges and loopback, linklocal or uniquelocal, got "everyone"',
    ],
    ['PORT', 'http', 'PORT must be an integer from 1 to 65535, got "http"'],
    ['METRICS_PUBLIC', 'yes', 'METRICS_PUBLIC must be 1 or 0 (true or false), got "yes"'],
    ['WORKER_CONCURRENCY', '100', 'WORKER_CONCURRENCY must be an integer from 0 to 64, got "100"'],
  ])('%s=%s: exit 1, one line naming the variable and what it may be, no stack', async (name, value, message) => {
    const ended = await runUntilExit({ LOG_LEVEL: 'info', [name]: value });
    expect(ended.code, ended.stdout + ended.stderr).toBe(1);
    expect(ended.stderr).toBe(`invalid configuration: ${message}\n`);
    expect(ended.stdout).toBe('');
  });

  it('a secret (REDIS_URL) is named but not repeated: it may hold a password', async () => {
    const ended = await runUntilExit({ REDIS_URL: 'localhost:6379-secret', LOG_LEVEL: 'info' });
    expect(ended.code).toBe(1);
    expect(ended.stderr.trim()).toBe('invalid configuration: REDIS_URL must be a URL starting with redis:// or rediss://');
  });

  it('valid values of the same variables start the server (the other face)', async () => {
    const server = await startServerProcess({
      DATABASE_URL: inject('databaseUrl'),
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      METRICS_PUBLIC: 'true',
      WORKER_CONCURRENCY: '0',
    });
    try {
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('the access log', () => {
  let server: ServerProcess;
  const adminKey = generateApiKey();
  beforeAll(async () => {
    server = await startServerProcess({
      DATABASE_URL: inject('databaseUrl'),
      BOOTSTRAP_API_KEY: adminKey,
      MAX_API_KEYS_PER_USER: '1000000',
      LOG_LEVEL: 'info',
      TRUST_PROXY: '1',
      WORKER_CONCURRENCY: '0',
    });
  });
  afterAll(() => server?.stop());

  /** The JSON lines the server logged for the request `requestId`. */
  const linesOf = (requestId: string): Record<string, any>[] =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>)
      .filter((line) => line.requestId === requestId);

  async function answered(path: string, init: RequestInit = {}): Promise<{ status: number; requestId: string }> {
    const answer = await fetch(`${server.url}${path}`, init);
    await answer.text();
    const requestId = answer.headers.get('x-request-id')!;
    await until(`the access log line of ${path}`, () => linesOf(requestId).some((line) => /^request /.test(line.msg)), 10_000);
    return { status: answer.status, requestId };
  }

  it('a documented 503 (embed tokens disabled) is logged at warn with its reason, without a stack; nothing at error', async () => {
    const { status, requestId } = await answered('/api/analytics/embed-token', {
      method: 'POST',
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(status).toBe(503);
    const lines = linesOf(requestId);
    expect(lines.map((line) => line.level)).not.toContain(50);
    const refused = lines.find((line) => line.msg === 'request refused')!;
    expect(refused).toMatchObject({ level: 40, res: { statusCode: 503 }, reason: 'analytics embed tokens are disabled on this server' });
    expect(JSON.stringify(lines)).not.toMatch(/stack|\n\s+at /);
  });

  it('a 4xx refusal is logged at info, a success too; the client address is the one X-Forwarded-For gives under TRUST_PROXY=1', async () => {
    const missing = await answered('/api/no-such-collection', { headers: { 'x-api-key': adminKey, 'x-forwarded-for': '203.0.113.7, 198.51.100.9' } });
    expect(missing.status).toBe(404);
    expect(linesOf(missing.requestId)).toEqual([
      expect.objectContaining({ level: 30, msg: 'request completed', req: expect.objectContaining({ remoteAddress: '198.51.100.9' }) }),
    ]);
    const found = await answered('/api/account/me', { headers: { 'x-api-key': adminKey } });
    expect(found.status).toBe(200);
    expect(linesOf(found.requestId)).toEqual([
      expect.objectContaining({ level: 30, msg: 'request completed', req: expect.objectContaining({ remoteAddress: expect.stringMatching(/127\.0\.0\.1$/) }) }),
    ]);
  });
});
