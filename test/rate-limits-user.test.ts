import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });

const REDIS_URL = 'redis://127.0.0.1:6379';

/** A server without practical limits: creates users, keys, organizations and projects, and counts tasks. */
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

async function serverWith(options: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(options);
  servers.push(server);
  return server;
}

/** A new user (nobody's budget touched yet, also in Redis). */
async function newUser(): Promise<{ id: string; email: string }> {
  const email = `${unique('user-rate')}@example.com`;
  const user = await admin.request('POST', '/api/users', { body: { email } });
  expect(user.status, user.text).toBe(201);
  return { id: user.body.id, email };
}

/** A new API key of `userId`, created by the administrator on the unlimited server. */
async function newKey(userId: string): Promise<string> {
  const token = await admin.request('POST', '/api/access-tokens', { body: { name: unique('key'), userId } });
  expect(token.status, token.text).toBe(201);
  return token.body.token;
}

async function keysOf(userId: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) keys.push(await newKey(userId));
  return keys;
}

/** The key's own X-RateLimit-* headers, each a plain integer. */
function rateHeaders(answer: Answer): { limit: number; remaining: number; reset: number } {
  const read = (name: string) => {
    const value = answer.headers.get(name);
    expect(value, `${name} on a ${answer.status} answer: ${answer.text}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: read('x-ratelimit-limit'), remaining: read('x-ratelimit-remaining'), reset: read('x-ratelimit-reset') };
}

function retryAfterOf(answer: Answer): number {
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter, 'Retry-After').toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  return Number(retryAfter);
}

/** A REST 429: the error body and Retry-After; its message. */
function expectRestRateLimited(answer: Answer): string {
  expect(answer.status, answer.text).toBe(429);
  expect(answer.body).toMatchObject({ error: 'Too Many Requests', status: 429 });
  expect(typeof answer.body.message).toBe('string');
  retryAfterOf(answer);
  return answer.body.message;
}

/** A 429 on /graphql: one RATE_LIMITED error, no data, Retry-After; its message. */
function expectGraphqlRateLimited(answer: Answer): string {
  expect(answer.status, answer.text).toBe(429);
  expect(answer.body.data ?? undefined).toBeUndefined();
  expect(answer.body.errors, answer.text).toHaveLength(1);
  expect(answer.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED', status: 429 } });
  retryAfterOf(answer);
  return answer.body.errors[0].message;
}

/** A GraphQL 400 refusal: one BAD_REQUEST error, no data; its message. */
function expectGraphqlBadRequest(answer: Answer): string {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.data ?? undefined, answer.text).toBeUndefined();
  expect(answer.body.errors, answer.text).toHaveLength(1);
  expect(answer.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  return answer.body.errors[0].message;
}

/** A user with a key, owning an organization with a project (set up on the unlimited server). */
async function projectOwner(): Promise<{ id: string; key: string; projectId: string }> {
  const user = await newUser();
  const key = await newKey(user.id);
  const organization = await createOrganization(admin, {}, key);
  const project = await createProject(admin, organization.id, {}, key);
  return { id: user.id, key, projectId: project.id };
}

async function tasksIn(projectId: string): Promise<number> {
  const answer = await admin.request('GET', `/api/tasks?pageSize=1&filter=${encodeURIComponent(`projectId==${projectId}`)}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.totalElements;
}

/** A mutation document of `count` aliased createTask fields in `$p`. */
function createTasks(count: number, title = 'budget'): string {
  const fields = Array.from({ length: count }, (_, i) => `t${i}: createTask(input: { projectId: $p, title: "${title} ${i}" }) { id }`);
  return `mutation($p: ID!) { ${fields.join(' ')} }`;
}

describe('user-wide limit (RATE_LIMIT_USER_PER_MINUTE)', () => {
  const issuer = `https://issuer.test/${unique('iss')}`;
  const audience = 'platform-api';
  let server: TestServer;
  let jose: Jose;
  let privateKey: Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];

  beforeAll(async () => {
    jose = await import('jose');
    const keys = await jose.generateKeyPair('RS256', { extractable: true });
    privateKey = keys.privateKey;
    server = await serverWith({
      rateLimits: { perMinute: 100, burstPerSecond: 100, userPerMinute: 10 },
      jwt: { publicKeyPem: await jose.exportSPKI(keys.publicKey), issuer, audience, clockToleranceSeconds: 30, jwksCooldownMs: 0 },
    });
  });

  it('counts all API keys of a user together: the 11th request, with a fresh key, is 429 with the error body and Retry-After', async () => {
    const user = await newUser();
    const keys = await keysOf(user.id, 12);
    for (let i = 0; i < 10; i++) {
      const answer = await server.request('GET', '/api/organizations', { key: keys[i] });
      expect(answer.status, answer.text).toBe(200);
      // The headers stay those of the key's own window.
      expect(rateHeaders(answer)).toMatchObject({ limit: 100, remaining: 99 });
    }
    const refused = await server.request('GET', '/api/organizations', { key: keys[10] });
    const message = expectRestRateLimited(refused);
    expect(message).toMatch(/user/);
    expect(message).toContain('10');
    expect(rateHeaders(refused)).toMatchObject({ limit: 100, remaining: 99 });

    // GraphQL with yet another fresh key: the same refusal in the GraphQL shape.
    const graphql = await server.graphql('{ __typename }', undefined, keys[11]);
    expect(expectGraphqlRateLimited(graphql)).toMatch(/user/);
  });

  it('leaves other users unaffected', async () => {
    const crowded = await newUser();
    for (const key of await keysOf(crowded.id, 11)) await server.request('GET', '/api/organizations', { key });
    expectRestRateLimited(await server.request('GET', '/api/organizations', { key: await newKey(crowded.id) }));

    const other = await newUser();
    const answer = await server.request('GET', '/api/organizations', { key: await newKey(other.id) });
    expect(answer.status, answer.text).toBe(200);
    expect(rateHeaders(answer)).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('counts bearer tokens and API keys of a user in the same budget', async () => {
    const user = await newUser();
    const token = () =>
      new jose.SignJWT({ email: user.email, email_verified: true })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setJti(unique('jti'))
        .setExpirationTime('10m')
        .sign(privateKey);
    const bearer = async () => ({ key: null, headers: { authorization: `Bearer ${await token()}` } });
    for (let i = 0; i < 5; i++) expect((await server.request('GET', '/api/account/me', await bearer())).status).toBe(200);
    for (const key of await keysOf(user.id, 5)) expect((await server.request('GET', '/api/account/me', { key })).status).toBe(200);
    expectRestRateLimited(await server.request('GET', '/api/account/me', await bearer()));
    expectRestRateLimited(await server.request('GET', '/api/account/me', { key: await newKey(user.id) }));
  });
});

describe('user-wide limit in Redis', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    const rateLimits = { perMinute: 100, burstPerSecond: 100, userPerMinute: 10, redisUrl: REDIS_URL };
    first = await serverWith({ rateLimits });
    second = await serverWith({ rateLimits });
  });

  it('is shared by two app instances on the same Redis', async () => {
    const user = await newUser();
    const keys = await keysOf(user.id, 11);
    for (let i = 0; i < 10; i++) {
      const answer = await (i % 2 ? second : first).request('GET', '/api/organizations', { key: keys[i] });
      expect(answer.status, answer.text).toBe(200);
    }
    expect(expectRestRateLimited(await first.request('GET', '/api/organizations', { key: keys[10] }))).toMatch(/user/);
    expectRestRateLimited(await second.request('GET', '/api/organizations', { key: keys[10] }));
  });
});

describe('API key cap (MAX_API_KEYS_PER_USER)', () => {
  let capped: TestServer;
  const create = (key: string | undefined, body: Record<string, unknown> = {}) =>
    capped.request('POST', '/api/access-tokens', { key, body: { name: unique('capped'), ...body } });

  beforeAll(async () => {
    capped = await serverWith({ maxApiKeysPerUser: 3 });
  });

  function expectCapConflict(answer: Answer): void {
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body).toMatchObject({ error: 'Conflict', status: 409 });
    expect(answer.body.message).toContain('MAX_API_KEYS_PER_USER');
    expect(answer.body.message).toContain('3');
  }

  it('refuses the 4th live key of a user with 409 naming the limit; after deleting one, creating works again', async () => {
    const user = await newUser();
    const first = await newKey(user.id);
    const own: string[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await create(first);
      expect(answer.status, answer.text).toBe(201);
      own.push(answer.body.id);
    }
    expectCapConflict(await create(first));
    // Through GraphQL as well.
    const graphql = await capped.graphql(
      `mutation($input: AccessTokenCreateRequest!) { createAccessToken(input: $input) { id } }`,
      { input: { name: unique('gql') } },
      first,
    );
    expect(graphql.body.errors?.[0]?.extensions, graphql.text).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(graphql.body.errors[0].message).toContain('MAX_API_KEYS_PER_USER');

    const deleted = await capped.request('DELETE', `/api/access-tokens/${own[0]}`, { key: first });
    expect(deleted.status, deleted.text).toBe(204);
    const again = await create(first);
    expect(again.status, again.text).toBe(201);
    expectCapConflict(await create(first));
  });

  it('counts keys an administrator creates for a user against that user', async () => {
    const user = await newUser();
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await create(undefined, { userId: user.id });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.userId).toBe(user.id);
      created.push(answer.body.token);
    }
    expectCapConflict(await create(undefined, { userId: user.id }));
    // The user's own request meets the same cap.
    expectCapConflict(await create(created[0]));
  });

  it('does not count expired keys', async () => {
    const user = await newUser();
    const key = await newKey(user.id);
    const soon = await create(key, { expiresAt: new Date(Date.now() + 1_500).toISOString() });
    expect(soon.status, soon.text).toBe(201);
    expect((await create(key)).status).toBe(201);
    expectCapConflict(await create(key));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const replacing = await create(key);
    expect(replacing.status, replacing.text).toBe(201);
  });
});

describe('root mutation fields (GRAPHQL_MAX_ROOT_MUTATIONS)', () => {
  let server: TestServer;
  let owner: { id: string; key: string; projectId: string };
  beforeAll(async () => {
    server = await serverWith({});
    owner = await projectOwner();
  });

  it('refuses a document with 21 aliased createTask with 400, creating nothing; 20 run', async () => {
    const before = await tasksIn(owner.projectId);
    const message = expectGraphqlBadRequest(await server.graphql(createTasks(21), { p: owner.projectId }, owner.key));
    expect(message).toBe('the document has 21 root mutation fields, more than the limit of 20');
    expect(await tasksIn(owner.projectId)).toBe(before);

    const ran = await server.graphql(createTasks(20), { p: owner.projectId }, owner.key);
    expect(ran.body.errors, ran.text).toBeUndefined();
    expect(ran.status, ran.text).toBe(200);
    expect(Object.keys(ran.body.data)).toHaveLength(20);
    expect(await tasksIn(owner.projectId)).toBe(before + 20);
  });

  it('counts the fields of fragments and inline fragments at the root, in the operation operationName selects', async () => {
    const before = await tasksIn(owner.projectId);
    const field = (i: number) => `f${i}: createTask(input: { projectId: $p, title: "fragment ${i}" }) { id }`;
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => field(from + i)).join(' ');
    const document = `
      mutation Big($p: ID!) { ...Eleven ... on Mutation { ${range(11, 21)} } }
      mutation Small($p: ID!) { ...Two }
      fragment Eleven on Mutation { ${range(0, 11)} }
      fragment Two on Mutation { ${range(0, 2)} }`;
    const big = await server.request('POST', '/graphql', {
      key: owner.key,
      body: { query: document, variables: { p: owner.projectId }, operationName: 'Big' },
    });
    expect(expectGraphqlBadRequest(big)).toContain('21 root mutation fields');
    expect(await tasksIn(owner.projectId)).toBe(before);

    const small = await server.request('POST', '/graphql', {
      key: owner.key,
      body: { query: document, variables: { p: owner.projectId }, operationName: 'Small' },
    });
    expect(small.body.errors, small.text).toBeUndefined();
    expect(await tasksIn(owner.projectId)).toBe(before + 2);
  });

  it('counts a field skipped with @skip/@include as not run', async () => {
    const before = await tasksIn(owner.projectId);
    const document = createTasks(21)
      .replace('"budget 20" }) { id }', '"budget 20" }) @skip(if: $skip) { id }')
      .replace('mutation($p: ID!)', 'mutation($p: ID!, $skip: Boolean!)');
    const ran = await server.graphql(document, { p: owner.projectId, skip: true }, owner.key);
    expect(ran.body.errors, ran.text).toBeUndefined();
    expect(await tasksIn(owner.projectId)).toBe(before + 20);
    expectGraphqlBadRequest(await server.graphql(document, { p: owner.projectId, skip: false }, owner.key));
  });
});

describe('mutation documents against the rate budgets', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serverWith({ rateLimits: { perMinute: 10, burstPerSecond: 100, userPerMinute: 15 } });
  });

  it("spend one request per root mutation field of the key's budget; one that would exceed it is 429 and creates nothing; queries count 1", async () => {
    const owner = await projectOwner();
    const before = await tasksIn(owner.projectId);

    const query = await server.graphql('{ __typename }', undefined, owner.key);
    expect(query.status, query.text).toBe(200);
    expect(rateHeaders(query)).toMatchObject({ limit: 10, remaining: 9 });

    const five = await server.graphql(createTasks(5), { p: owner.projectId }, owner.key);
    expect(five.body.errors, five.text).toBeUndefined();
    expect(five.status).toBe(200);
    expect(rateHeaders(five)).toMatchObject({ limit: 10, remaining: 4 });
    expect(await tasksIn(owner.projectId)).toBe(before + 5);

    // A query, and a mutation of one field, count one each.
    expect(rateHeaders(await server.graphql('{ me { id } }', undefined, owner.key)).remaining).toBe(3);
    const one = await server.graphql(createTasks(1), { p: owner.projectId }, owner.key);
    expect(one.status, one.text).toBe(200);
    expect(rateHeaders(one).remaining).toBe(2);

    const refused = await server.graphql(createTasks(5), { p: owner.projectId }, owner.key);
    const message = expectGraphqlRateLimited(refused);
    expect(message).toContain('10 requests per minute');
    expect(rateHeaders(refused).limit).toBe(10);
    expect(await tasksIn(owner.projectId)).toBe(before + 6);
  });

  it('spend the user-wide budget too: a document past it is 429 naming the user-wide limit, whichever key sends it', async () => {
    const owner = await projectOwner();
    const second = await newKey(owner.id);
    const before = await tasksIn(owner.projectId);

    const eight = await server.graphql(createTasks(8), { p: owner.projectId }, owner.key);
    expect(eight.body.errors, eight.text).toBeUndefined();
    expect(rateHeaders(eight).remaining).toBe(2);

    // 8 + 8 is past the user's 15, though the second key has spent nothing.
    const refused = await server.graphql(createTasks(8), { p: owner.projectId }, second);
    expect(expectGraphqlRateLimited(refused)).toMatch(/15 requests per minute.*user/);
    expect(await tasksIn(owner.projectId)).toBe(before + 8);
  });
});
