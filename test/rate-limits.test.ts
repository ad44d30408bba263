import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey } from '../src/modules/access/api-keys';
import { startServer, unique, type Answer, type TestServer } from './support/server';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });

const REDIS_URL = 'redis://127.0.0.1:6379';
/** Nothing listens there: the Redis client never connects. */
const CLOSED_REDIS_URL = 'redis://127.0.0.1:1';

/** A server without practical limits, used only to create users and API keys in the shared database. */
let admin: TestServer;
/** Every server started by this file, closed in afterAll. */
const servers: TestServer[] = [];

beforeAll(async () => {
  admin = await startServer();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await admin.close();
});

async function limitedServer(rateLimits: { perMinute: number; burstPerSecond: number; redisUrl?: string }): Promise<TestServer> {
  const server = await startServer({ rateLimits });
  servers.push(server);
  return server;
}

/** A new user with a new API key: a budget nobody has touched yet (also in Redis). */
async function freshKey(): Promise<string> {
  const user = await admin.request('POST', '/api/users', { body: { email: `${unique('rate')}@example.com` } });
  expect(user.status, user.text).toBe(201);
  const token = await admin.request('POST', '/api/access-tokens', { body: { name: unique('rate-key'), userId: user.body.id } });
  expect(token.status, token.text).toBe(201);
  expect(typeof token.body.token).toBe('string');
  return token.body.token;
}

interface RateHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

/** The three rate-limit headers, each required to be a plain integer. */
function rateHeaders(answer: { headers: Headers; status: number; text: string }): RateHeaders {
  const read = (name: string) => {
    const value = answer.headers.get(name);
    expect(value, `${name} on a ${answer.status} answer: ${answer.text}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: read('x-ratelimit-limit'), remaining: read('x-ratelimit-remaining'), reset: read('x-ratelimit-reset') };
}

/** The REST error body of a 429 and its Retry-After (seconds). */
function expectRestRateLimited(answer: Answer): number {
  expect(answer.status, answer.text).toBe(429);
  expect(answer.body).toMatchObject({ error: 'Too Many Requests', status: 429 });
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter, 'Retry-After').toMatch(/^\d+$/);
  return Number(retryAfter);
}

/** The GraphQL error shape of a 429 on /graphql and its Retry-After (seconds). */
function expectGraphqlRateLimited(answer: Answer): number {
  expect(answer.status, answer.text).toBe(429);
  expect(answer.body.data ?? undefined).toBeUndefined();
  expect(Array.isArray(answer.body.errors), answer.text).toBe(true);
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED', status: 429 } });
  expect(typeof answer.body.errors[0].message).toBe('string');
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter, 'Retry-After').toMatch(/^\d+$/);
  return Number(retryAfter);
}

const nowSeconds = () => Date.now() / 1000;

/** A GET from a chosen local address (e.g. 127.0.0.2), to act as another client. */
function getFrom(url: string, path: string, localAddress: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'GET', headers, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          let body: any = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body, headers: responseHeaders, text });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('rate-limit headers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await limitedServer({ perMinute: 10, burstPerSecond: 5 });
  });

  it('are on a successful answer: limit is the per-minute limit, remaining starts one below it, reset is epoch seconds within the next minute', async () => {
    const key = await freshKey();
    const before = nowSeconds();
    const answer = await server.request('GET', '/api/organizations', { key });
    const after = nowSeconds();
    expect(answer.status, answer.text).toBe(200);
    const headers = rateHeaders(answer);
    expect(headers.limit).toBe(10);
    expect(headers.remaining).toBe(9);
    expect(headers.reset).toBeGreaterThanOrEqual(Math.floor(before));
    expect(headers.reset).toBeLessThanOrEqual(Math.ceil(after) + 60);
    // Epoch seconds, not milliseconds and not a relative number of seconds.
    expect(headers.reset).toBeGreaterThan(1_000_000_000);
    expect(headers.reset).toBeLessThan(10_000_000_000);
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('are on 401 answers (no credentials, unknown key), REST and GraphQL', async () => {
    const anonymous = await server.request('GET', '/api/organizations', { key: null });
    expect(anonymous.status, anonymous.text).toBe(401);
    expect(rateHeaders(anonymous).limit).toBe(10);

    const unknownKey = await server.request('GET', '/api/organizations', { key: generateApiKey() });
    expect(unknownKey.status, unknownKey.text).toBe(401);
    expect(rateHeaders(unknownKey).limit).toBe(10);

    const graphql = await server.graphql('{ __typename }', undefined, null);
    expect(graphql.status, graphql.text).toBe(401);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(rateHeaders(graphql).limit).toBe(10);
  });

  it('are on 404 answers (unknown route, unknown record)', async () => {
    const key = await freshKey();
    const route = await server.request('GET', `/api/${unique('no-such-resource')}`, { key });
    expect(route.status, route.text).toBe(404);
    expect(rateHeaders(route)).toMatchObject({ limit: 10, remaining: 9 });

    const record = await server.request('GET', '/api/organizations/00000000-0000-4000-8000-000000000000', { key });
    expect(record.status, record.text).toBe(404);
    expect(rateHeaders(record)).toMatchObject({ limit: 10, remaining: 8 });
  });

  it('are on 400 answers (unreadable body), REST and GraphQL', async () => {
    const key = await freshKey();
    const rest = await server.request('POST', '/api/organizations', { key, body: '{not json' });
    expect(rest.status, rest.text).toBe(400);
    expect(rateHeaders(rest)).toMatchObject({ limit: 10, remaining: 9 });
    const graphql = await server.graphql('{ organizations(', undefined, key);
    expect(graphql.status, graphql.text).toBe(400);
    expect(rateHeaders(graphql)).toMatchObject({ limit: 10, remaining: 8 });
  });

  it('are not on /health, /health/live and /metrics, which are never counted; the next API call finds its budget whole', async () => {
    const key = await freshKey();
    for (const path of ['/health', '/health/live', '/metrics']) {
      // /metrics is the platform administrators' (METRICS_PUBLIC is off here).
      const answer = await server.request('GET', path, { key: path === '/metrics' ? server.adminKey : key });
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit'), path).toBeNull();
    }
    const next = await server.request('GET', '/api/organizations', { key });
    expect(rateHeaders(next)).toMatchObject({ limit: 10, remaining: 9 });
  });

  it('count remaining down by one per request, errors included, with a reset that stays within the minute window', async () => {
    const key = await freshKey();
    const paths = ['/api/organizations', '/api/organizations/00000000-0000-4000-8000-000000000000', '/api/projects', `/api/${unique('nothing')}`];
    const seen: RateHeaders[] = [];
    const before = nowSeconds();
    for (const path of paths) seen.push(rateHeaders(await server.request('GET', path, { key })));
    const after = nowSeconds();
    expect(seen.map((h) => h.remaining)).toEqual([9, 8, 7, 6]);
    expect(seen.every((h) => h.limit === 10)).toBe(true);
    for (const h of seen) {
      expect(h.reset).toBeGreaterThanOrEqual(Math.floor(before));
      expect(h.reset).toBeLessThanOrEqual(Math.ceil(after) + 60);
    }
    // One window: the moment it resets does not move with every request.
    expect(Math.max(...seen.map((h) => h.reset)) - Math.min(...seen.map((h) => h.reset))).toBeLessThanOrEqual(1);
  });
});

describe('burst limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await limitedServer({ perMinute: 10, burstPerSecond: 5 });
  });

  it('answers 429 with Retry-After and the error body past burstPerSecond requests, then serves again after Retry-After', async () => {
    const key = await freshKey();
    const burst: Answer[] = [];
    for (let i = 0; i < 5; i++) burst.push(await server.request('GET', '/api/organizations', { key }));
    const refused = await server.request('GET', '/api/organizations', { key });

    expect(burst.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(burst.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5]);
    const retryAfter = expectRestRateLimited(refused);
    // The burst window is one second long.
    expect(retryAfter).toBe(1);
    const headers = rateHeaders(refused);
    expect(headers.limit).toBe(10);
    // The minute budget is not spent: the refusal comes from the burst window.
    expect(headers.remaining).toBeGreaterThan(0);

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    const again = await server.request('GET', '/api/organizations', { key });
    expect(again.status, again.text).toBe(200);
  });
});

describe('minute limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await limitedServer({ perMinute: 10, burstPerSecond: 100 });
  });

  it('answers 429 past perMinute requests, with Retry-After matching X-RateLimit-Reset', async () => {
    const key = await freshKey();
    const served: Answer[] = [];
    for (let i = 0; i < 10; i++) served.push(await server.request('GET', '/api/organizations', { key }));
    expect(served.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(served.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

    const refused = await server.request('GET', '/api/organizations', { key });
    const retryAfter = expectRestRateLimited(refused);
    const headers = rateHeaders(refused);
    expect(headers).toMatchObject({ limit: 10, remaining: 0 });
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Retry-After points at the end of the minute window that X-RateLimit-Reset names.
    expect(Math.abs(nowSeconds() + retryAfter - headers.reset)).toBeLessThanOrEqual(2);

    // Refused requests of every kind stay refused, errors included.
    const unknownRecord = await server.request('GET', '/api/organizations/00000000-0000-4000-8000-000000000000', { key });
    expectRestRateLimited(unknownRecord);
    const write = await server.request('POST', '/api/organizations', { key, body: { name: unique('Refused') } });
    expectRestRateLimited(write);
  });

  it('counts GraphQL requests in the same budget, and answers 429 on /graphql in the GraphQL error shape', async () => {
    const key = await freshKey();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const rest = await server.request('GET', '/api/organizations', { key });
      expect(rest.status, rest.text).toBe(200);
      remaining.push(rateHeaders(rest).remaining);
      const graphql = await server.graphql('{ __typename }', undefined, key);
      expect(graphql.status, graphql.text).toBe(200);
      expect(graphql.body.data).toEqual({ __typename: 'Query' });
      remaining.push(rateHeaders(graphql).remaining);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

    const refused = await server.graphql('{ __typename }', undefined, key);
    const retryAfter = expectGraphqlRateLimited(refused);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(rateHeaders(refused)).toMatchObject({ limit: 10, remaining: 0 });

    // A GET on /graphql is refused in the GraphQL shape too.
    expectGraphqlRateLimited(await server.request('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { key }));
    // The same budget, seen from REST.
    expectRestRateLimited(await server.request('GET', '/api/organizations', { key }));
  });

  it('gives GraphQL-only callers the same budget as REST callers', async () => {
    const key = await freshKey();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await server.graphql('{ __typename }', undefined, key)).status);
    expect(statuses).toEqual(Array(10).fill(200));
    expectGraphqlRateLimited(await server.graphql('{ __typename }', undefined, key));
  });

  it('keeps a separate budget per API key', async () => {
    const first = await freshKey();
    const second = await freshKey();
    for (let i = 0; i < 10; i++) expect((await server.request('GET', '/api/organizations', { key: first })).status).toBe(200);
    expectRestRateLimited(await server.request('GET', '/api/organizations', { key: first }));

    const other = await server.request('GET', '/api/organizations', { key: second });
    expect(other.status, other.text).toBe(200);
    expect(rateHeaders(other).remaining).toBe(9);
    const otherGraphql = await server.graphql('{ __typename }', undefined, second);
    expect(otherGraphql.status, otherGraphql.text).toBe(200);
    expect(rateHeaders(otherGraphql).remaining).toBe(8);

    // And the first key is still refused.
    expectRestRateLimited(await server.request('GET', '/api/organizations', { key: first }));
  });

  it('keeps a separate budget per key of the same user', async () => {
    const user = await admin.request('POST', '/api/users', { body: { email: `${unique('two-keys')}@example.com` } });
    expect(user.status, user.text).toBe(201);
    const keys: string[] = [];
    for (const name of ['a', 'b']) {
      const token = await admin.request('POST', '/api/access-tokens', { body: { name: unique(name), userId: user.body.id } });
      expect(token.status, token.text).toBe(201);
      keys.push(token.body.token);
    }
    for (let i = 0; i < 10; i++) expect((await server.request('GET', '/api/organizations', { key: keys[0] })).status).toBe(200);
    expectRestRateLimited(await server.request('GET', '/api/organizations', { key: keys[0] }));
    const other = await server.request('GET', '/api/organizations', { key: keys[1] });
    expect(other.status, other.text).toBe(200);
    expect(rateHeaders(other).remaining).toBe(9);
  });
});

describe('callers with bearer tokens', () => {
  const issuer = `https://issuer.test/${unique('iss')}`;
  const audience = 'platform-api';
  let server: TestServer;
  /** jose is an ES module: loaded with import(), as the server does. */
  let jose: Jose;
  let privateKey: Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];

  beforeAll(async () => {
    jose = await import('jose');
    const keys = await jose.generateKeyPair('RS256', { extractable: true });
    privateKey = keys.privateKey;
    server = await startServer({
      rateLimits: { perMinute: 10, burstPerSecond: 100 },
      jwt: { publicKeyPem: await jose.exportSPKI(keys.publicKey), issuer, audience, clockToleranceSeconds: 30, jwksCooldownMs: 0 },
    });
    servers.push(server);
  });

  /** A user and a function minting distinct bearer tokens for them. */
  async function bearerUser(): Promise<{ id: string; token: () => Promise<string> }> {
    const email = `${unique('bearer')}@example.com`;
    const user = await admin.request('POST', '/api/users', { body: { email } });
    expect(user.status, user.text).toBe(201);
    const token = () =>
      new jose.SignJWT({ email, email_verified: true })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setJti(unique('jti'))
        .setExpirationTime('10m')
        .sign(privateKey);
    return { id: user.body.id, token };
  }

  const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });

  it("count all tokens of one user in one budget, apart from that user's API keys and from other users", async () => {
    const user = await bearerUser();
    const [first, second] = [await user.token(), await user.token()];
    expect(first).not.toBe(second);

    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await server.request('GET', '/api/account/me', bearer(first)));
    for (let i = 0; i < 4; i++) answers.push(await server.request('GET', '/api/account/me', bearer(second)));
    expect(
      answers.map((a) => a.status),
      answers[0].text,
    ).toEqual(Array(10).fill(200));
    expect(answers[0].body.id).toBe(user.id);
    expect(answers.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

    expectRestRateLimited(await server.request('GET', '/api/account/me', bearer(first)));
    expectRestRateLimited(await server.request('GET', '/api/account/me', bearer(await user.token())));

    // Another user's token has its own budget.
    const other = await bearerUser();
    const otherAnswer = await server.request('GET', '/api/account/me', bearer(await other.token()));
    expect(otherAnswer.status, otherAnswer.text).toBe(200);
    expect(rateHeaders(otherAnswer).remaining).toBe(9);

    // An API key counts per key, even when it belongs to the same user.
    const key = await admin.request('POST', '/api/access-tokens', { body: { name: unique('bearer-user-key'), userId: user.id } });
    expect(key.status, key.text).toBe(201);
    const keyed = await server.request('GET', '/api/account/me', { key: key.body.token });
    expect(keyed.status, keyed.text).toBe(200);
    expect(rateHeaders(keyed).remaining).toBe(9);
  });
});

describe('callers without credentials', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A server of its own: its per-address counters start empty.
    server = await limitedServer({ perMinute: 10, burstPerSecond: 100 });
  });

  it('share one budget per client address, in which 401 answers count', async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await server.request('GET', '/api/organizations', { key: null }));
    // An unknown key is no credential: it counts against the address as well.
    for (let i = 0; i < 3; i++) answers.push(await server.request('GET', '/api/organizations', { key: generateApiKey() }));
    for (let i = 0; i < 3; i++) answers.push(await server.graphql('{ __typename }', undefined, null));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(401));
    expect(answers.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

    expectRestRateLimited(await server.request('GET', '/api/organizations', { key: null }));
    expectRestRateLimited(await server.request('GET', '/api/organizations', { key: generateApiKey() }));
    expectGraphqlRateLimited(await server.graphql('{ __typename }', undefined, null));

    // A caller with a valid key from the same address has its own budget.
    const key = await freshKey();
    const keyed = await server.request('GET', '/api/organizations', { key });
    expect(keyed.status, keyed.text).toBe(200);
    expect(rateHeaders(keyed).remaining).toBe(9);

    // Another client address has its own budget.
    const elsewhere = await getFrom(server.url, '/api/organizations', '127.0.0.2');
    expect(elsewhere.status, elsewhere.text).toBe(401);
    expect(rateHeaders(elsewhere)).toMatchObject({ limit: 10, remaining: 9 });

    // The first address is still refused.
    const again = await getFrom(server.url, '/api/organizations', '127.0.0.1');
    expect(again.status, again.text).toBe(429);
  });
});

describe('counters in Redis', () => {
  let first: TestServer;
  let second: TestServer;
  let unreachable: TestServer;
  beforeAll(async () => {
    first = await limitedServer({ perMinute: 10, burstPerSecond: 100, redisUrl: REDIS_URL });
    second = await limitedServer({ perMinute: 10, burstPerSecond: 100, redisUrl: REDIS_URL });
    unreachable = await limitedServer({ perMinute: 10, burstPerSecond: 100, redisUrl: CLOSED_REDIS_URL });
  });

  it('are shared by two app instances on the same Redis', async () => {
    // A key never used before: no counter of an earlier run exists for it in Redis.
    const key = await freshKey();
    const before = nowSeconds();
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await first.request('GET', '/api/organizations', { key }));
    for (let i = 0; i < 4; i++) answers.push(await second.request('GET', '/api/organizations', { key }));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // One window for both: the same moment of reset, within the next minute.
    const resets = answers.map((a) => rateHeaders(a).reset);
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
    expect(Math.min(...resets)).toBeGreaterThanOrEqual(Math.floor(before));
    expect(Math.max(...resets)).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 60);

    expectRestRateLimited(await second.request('GET', '/api/organizations', { key }));
    expectRestRateLimited(await first.request('GET', '/api/organizations', { key }));
  });

  it('keep serving with in-process limits when Redis is unreachable', async () => {
    const key = await freshKey();
    const answers: Answer[] = [];
    for (let i = 0; i < 10; i++) answers.push(await unreachable.request('GET', '/api/organizations', { key }));
    expect(
      answers.map((a) => a.status),
      answers[0].text,
    ).toEqual(Array(10).fill(200));
    expect(answers.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expectRestRateLimited(await unreachable.request('GET', '/api/organizations', { key }));
    expectGraphqlRateLimited(await unreachable.graphql('{ __typename }', undefined, key));
  });
});

/** A server process started from dist/src/main.js. */
interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const processes: ServerProcess[] = [];

/** The built entry point; a build running at the same time may briefly have removed it. */
async function builtEntryPoint(): Promise<string> {
  const entry = 'dist/src/main.js';
  for (let i = 0; i < 600 && !existsSync(entry); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first`);
  return entry;
}

async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const entry = await builtEntryPoint();
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [entry], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const started: ServerProcess = { url: `http://127.0.0.1:${port}`, child, output: () => output };
  processes.push(started);

  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server process exited with ${child.exitCode}:\n${output}`);
    try {
      const health = await fetch(`${started.url}/health`);
      // Listening is what counts; health calls share the address budget with earlier runs (Redis).
      if (health.status === 200 || health.status === 429) return started;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server process did not become healthy:\n${output}`);
}

async function stopProcess(server: ServerProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function fetchAnswer(url: string, path: string, key: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: response.status, body, headers: response.headers, text };
}

describe('server processes (dist/src/main.js)', () => {
  // Keys never used before, so that counters left in Redis by earlier runs cannot interfere.
  const sharedKey = generateApiKey();
  const unreachableKey = generateApiKey();
  const limits = { RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_BURST_PER_SECOND: '100' };
  let first: ServerProcess;
  let second: ServerProcess;
  let unreachable: ServerProcess;

  beforeAll(async () => {
    const database = inject('databaseUrl');
    // One after the other: two processes would otherwise register the same bootstrap key at once.
    first = await startProcess({ DATABASE_URL: database, BOOTSTRAP_API_KEY: sharedKey, REDIS_URL, ...limits });
    second = await startProcess({ DATABASE_URL: database, BOOTSTRAP_API_KEY: sharedKey, REDIS_URL, ...limits });
    unreachable = await startProcess({ DATABASE_URL: database, BOOTSTRAP_API_KEY: unreachableKey, REDIS_URL: CLOSED_REDIS_URL, ...limits });
  }, 180_000);
  afterAll(async () => {
    await Promise.all(processes.map(stopProcess));
  });

  it('share one budget through REDIS_URL: 6 requests to one and 5 to the other, the 11th is refused', async () => {
    const key = sharedKey;
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await fetchAnswer(first.url, '/api/organizations', key));
    for (let i = 0; i < 2; i++) answers.push(await fetchAnswer(second.url, '/api/organizations', key));
    for (let i = 0; i < 2; i++) answers.push(await fetchAnswer(second.url, '/graphql', key, { method: 'POST', body: { query: '{ __typename }' } }));
    expect(
      answers.map((a) => a.status),
      answers.map((a) => a.text).join('\n'),
    ).toEqual(Array(10).fill(200));
    expect(answers.map((a) => rateHeaders(a).limit)).toEqual(Array(10).fill(10));
    expect(answers.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

    expectRestRateLimited(await fetchAnswer(second.url, '/api/organizations', key));
    expectRestRateLimited(await fetchAnswer(first.url, '/api/organizations', key));
    expectGraphqlRateLimited(await fetchAnswer(first.url, '/graphql', key, { method: 'POST', body: { query: '{ __typename }' } }));
  });

  it('keeps serving with in-process limits and logs it when REDIS_URL cannot be reached', async () => {
    const key = unreachableKey;
    const answers: Answer[] = [];
    for (let i = 0; i < 10; i++) answers.push(await fetchAnswer(unreachable.url, '/api/organizations', key));
    expect(
      answers.map((a) => a.status),
      answers.map((a) => a.text).join('\n'),
    ).toEqual(Array(10).fill(200));
    expect(answers.map((a) => rateHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expectRestRateLimited(await fetchAnswer(unreachable.url, '/api/organizations', key));
    expect(unreachable.output()).toMatch(/redis/i);
    expect(unreachable.output()).toMatch(/unreachable/i);
  });
});
