import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, unique, type Answer, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** Every refused credential: HTTP 401 and exactly {error: 'Unauthorized', message, status: 401}. */
function expectUnauthorized(answer: Answer): void {
  expect(answer.status, answer.text).toBe(401);
  expect(answer.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(answer.body).toEqual({ error: 'Unauthorized', message: expect.any(String), status: 401 });
  expect(answer.body.message.length).toBeGreaterThan(0);
}

/** The GraphQL form of a 401: HTTP 401 and an UNAUTHENTICATED error, no data. */
function expectGraphqlUnauthorized(answer: Answer): void {
  expect(answer.status, answer.text).toBe(401);
  expect(answer.body?.errors?.[0]?.extensions, answer.text).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  expect(typeof answer.body?.errors?.[0]?.message).toBe('string');
  expect(answer.body?.data ?? null).toBeNull();
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`, 'utf8').toString('base64')}`;

async function createUser(body: Record<string, unknown> = {}) {
  const answer = await server.request('POST', '/api/users', {
    body: { email: `${unique('keyuser')}@example.com`, firstName: 'Key', lastName: 'User', ...body },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** Creates an API key through the API (as the administrator unless `key` is given). */
async function createKey(body: Record<string, unknown> = {}, key?: string) {
  const answer = await server.request('POST', '/api/access-tokens', { body: { name: unique('key'), ...body }, key });
  expect(answer.status, answer.text).toBe(201);
  expect(typeof answer.body.token).toBe('string');
  return answer.body as { id: string; token: string; tokenPrefix: string; userId: string; [field: string]: any };
}

/** A user with a key of their own, made by the administrator. */
async function userWithKey() {
  const user = await createUser();
  const key = await createKey({ userId: user.id });
  return { user, key: key.token, keyId: key.id };
}

async function tokenRow(id: string): Promise<Record<string, any> | undefined> {
  const rows = await server.orm.em.fork().getConnection().execute(`select * from access_token where id = ?`, [id]);
  return rows[0];
}

/** Inserts a key straight into the database, for states the API refuses to create. */
async function insertKey(userId: string, values: { expiresAt?: Date | null } = {}) {
  const key = `pk_${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`;
  const now = new Date();
  await server.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into access_token (id, uuid, created_on, updated_on, change_sequence, name, user_id, token_hash, token_prefix, expires_at)
       values (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
      [randomUUID(), randomUUID(), now, now, unique('inserted'), userId, sha256(key), key.slice(0, 8), values.expiresAt ?? null],
    );
  return key;
}

const me = (key: string | null, headers?: Record<string, string>) => server.request('GET', '/api/account/me', { key, headers });

let adminId: string;
beforeAll(async () => {
  const answer = await me(server.adminKey);
  expect(answer.status, answer.text).toBe(200);
  adminId = answer.body.id;
});

describe('access-tokens endpoints', () => {
  it('answers the plain key once on create, and only its prefix afterwards', async () => {
    const name = unique('ci-key');
    const created = await server.request('POST', '/api/access-tokens', { body: { name } });
    expect(created.status, created.text).toBe(201);
    const key = created.body.token as string;
    expect(key).toMatch(/^\S{20,}$/);
    expect(created.body).toMatchObject({ name, userId: adminId, tokenPrefix: key.slice(0, 8), lastUsedAt: null, expiresAt: null });
    expect(created.body.tokenPrefix).toHaveLength(8);
    expect(created.body).not.toHaveProperty('tokenHash');
    expect(created.headers.get('location') ?? '').toMatch(new RegExp(`/api/access-tokens/${created.body.id}$`));

    const read = await server.request('GET', `/api/access-tokens/${created.body.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, name, userId: adminId, tokenPrefix: key.slice(0, 8), token: null });
    expect(read.body).not.toHaveProperty('tokenHash');
    expect(read.text).not.toContain(key);

    const list = await server.request('GET', `/api/access-tokens?pageSize=100&filter=${encodeURIComponent(`name=='${name}'`)}`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.content).toHaveLength(1);
    expect(list.body.content[0]).toMatchObject({ id: created.body.id, token: null, tokenPrefix: key.slice(0, 8) });
    expect(list.text).not.toContain(key);

    const otherKey = await createKey();
    expect(otherKey.token).not.toBe(key);
  });

  it('stores only the SHA-256 of the key: the plain key appears nowhere in its row', async () => {
    const created = await createKey();
    const row = await tokenRow(created.id);
    expect(row).toBeDefined();
    expect(row!.token_hash).toBe(sha256(created.token));
    expect(row!.token_prefix).toBe(created.token.slice(0, 8));
    const secretPart = created.token.slice(8);
    for (const [column, value] of Object.entries(row!)) {
      const text = value instanceof Date ? value.toISOString() : JSON.stringify(value ?? null);
      expect(text, `column ${column}`).not.toContain(created.token);
      expect(text, `column ${column}`).not.toContain(secretPart);
    }
  });

  it('accepts a future expiresAt and refuses one in the past with 400', async () => {
    const future = new Date(Date.now() + 24 * 3600_000).toISOString();
    const created = await createKey({ expiresAt: future });
    expect(new Date(created.expiresAt).toISOString()).toBe(future);
    expect((await me(created.token)).status).toBe(200);

    const name = unique('past');
    const past = await server.request('POST', '/api/access-tokens', { body: { name, expiresAt: new Date(Date.now() - 3600_000).toISOString() } });
    expect(past.status, past.text).toBe(400);
    expect(past.body).toMatchObject({ error: 'Bad Request', status: 400 });
    const rows = await server.orm.em.fork().getConnection().execute(`select id from access_token where name = ?`, [name]);
    expect(rows).toHaveLength(0);
  });

  it('does not let a client choose the key: a token sent on create is not what authenticates', async () => {
    const chosen = `pk_${unique('chosen')}${unique('x')}`;
    const answer = await server.request('POST', '/api/access-tokens', { body: { name: unique('chosen'), token: chosen } });
    if (answer.status === 201) {
      expect(answer.body.token).not.toBe(chosen);
      expect((await tokenRow(answer.body.id))!.token_hash).not.toBe(sha256(chosen));
    } else {
      expect(answer.status, answer.text).toBe(400);
    }
    expectUnauthorized(await me(chosen));
  });

  it("shows a user only their own keys, and refuses another user's key with 403", async () => {
    const alice = await userWithKey();
    const bob = await userWithKey();
    const aliceSecond = await createKey({}, alice.key);
    expect(aliceSecond.userId).toBe(alice.user.id);

    const list = await server.request('GET', '/api/access-tokens?pageSize=100', { key: alice.key });
    expect(list.status, list.text).toBe(200);
    const ids = list.body.content.map((t: any) => t.id).sort();
    expect(ids).toEqual([alice.keyId, aliceSecond.id].sort());
    expect(list.body.totalElements).toBe(2);
    for (const token of list.body.content) {
      expect(token.userId).toBe(alice.user.id);
      expect(token.token).toBeNull();
    }

    const foreign = await server.request('GET', `/api/access-tokens/${bob.keyId}`, { key: alice.key });
    expect(foreign.status, foreign.text).toBe(403);
    expect(foreign.text).not.toContain(bob.key);

    const asAdmin = await server.request('GET', `/api/access-tokens?pageSize=100&filter=${encodeURIComponent(`userId=in=(${alice.user.id},${bob.user.id})`)}`);
    expect(asAdmin.status, asAdmin.text).toBe(200);
    expect(asAdmin.body.content.map((t: any) => t.id).sort()).toEqual([alice.keyId, aliceSecond.id, bob.keyId].sort());
  });

  it('lets a non-admin create keys for themselves but refuses one for another user with 403', async () => {
    const alice = await userWithKey();
    const bob = await userWithKey();

    const implicit = await createKey({}, alice.key);
    expect(implicit.userId).toBe(alice.user.id);
    const explicit = await createKey({ userId: alice.user.id }, alice.key);
    expect(explicit.userId).toBe(alice.user.id);
    expect((await me(explicit.token)).body.id).toBe(alice.user.id);

    const countOf = async (userId: string) =>
      Number((await server.orm.em.fork().getConnection().execute(`select count(*) as n from access_token where user_id = ?`, [userId]))[0].n);
    const before = await countOf(bob.user.id);
    const refused = await server.request('POST', '/api/access-tokens', { key: alice.key, body: { name: unique('steal'), userId: bob.user.id } });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ error: 'Forbidden', status: 403 });
    expect(refused.body.token).toBeUndefined();
    expect(await countOf(bob.user.id)).toBe(before);

    const towardsAdmin = await server.request('POST', '/api/access-tokens', { key: alice.key, body: { name: unique('steal'), userId: adminId } });
    expect(towardsAdmin.status, towardsAdmin.text).toBe(403);
  });

  it("does not let a key's owner be changed by an update", async () => {
    const alice = await userWithKey();
    const bob = await userWithKey();
    const renamed = unique('renamed');
    for (const body of [
      { name: renamed, userId: bob.user.id },
      { name: renamed, user: { id: bob.user.id } },
    ]) {
      const answer = await server.request('PUT', `/api/access-tokens/${alice.keyId}`, { key: alice.key, body });
      if (answer.status === 200) expect(answer.body.userId).toBe(alice.user.id);
      else expect(answer.status, answer.text).toBe(400);
    }
    expect((await tokenRow(alice.keyId))!.user_id).toBe(alice.user.id);
    const caller = await me(alice.key);
    expect(caller.body.id).toBe(alice.user.id);
  });

  it('applies the same owner rule to the GraphQL createAccessToken mutation', async () => {
    const alice = await userWithKey();
    const bob = await createUser();
    const mutation = `mutation($input: AccessTokenCreateRequest!) { createAccessToken(input: $input) { id userId token tokenPrefix } }`;
    const own = await server.graphql(mutation, { input: { name: unique('gql-key') } }, alice.key);
    expect(own.body.errors, own.text).toBeUndefined();
    expect(own.body.data.createAccessToken.userId).toBe(alice.user.id);
    const plain = own.body.data.createAccessToken.token;
    expect(typeof plain).toBe('string');
    expect(plain.slice(0, 8)).toBe(own.body.data.createAccessToken.tokenPrefix);
    expect((await me(plain)).body.id).toBe(alice.user.id);

    const foreign = await server.graphql(mutation, { input: { name: unique('gql-steal'), userId: bob.id } }, alice.key);
    expect(foreign.body.errors?.[0]?.extensions, foreign.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect(foreign.body.data?.createAccessToken ?? null).toBeNull();
    const rows = await server.orm.em.fork().getConnection().execute(`select id from access_token where user_id = ?`, [bob.id]);
    expect(rows).toHaveLength(0);
  });

  it('lets an administrator create a key for another user, which then authenticates as that user', async () => {
    const user = await createUser();
    const created = await createKey({ userId: user.id });
    expect(created.userId).toBe(user.id);
    const answer = await me(created.token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, email: user.email });
    const owned = await server.request('GET', '/api/access-tokens?pageSize=100', { key: created.token });
    expect(owned.body.content.map((t: any) => t.id)).toEqual([created.id]);
  });

  it('deletes a key with 204; it is gone and no longer authenticates', async () => {
    const { user, key, keyId } = await userWithKey();
    const spare = await createKey({ userId: user.id });
    expect((await me(key)).status).toBe(200);

    const deleted = await server.request('DELETE', `/api/access-tokens/${keyId}`, { key: spare.token });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await tokenRow(keyId)).toBeUndefined();
    expect((await server.request('GET', `/api/access-tokens/${keyId}`)).status).toBe(404);
    expectUnauthorized(await me(key));
    expect((await me(spare.token)).status).toBe(200);
  });

  it("refuses to let a non-admin delete another user's key with 403, and the key keeps working", async () => {
    const alice = await userWithKey();
    const bob = await userWithKey();
    const answer = await server.request('DELETE', `/api/access-tokens/${bob.keyId}`, { key: alice.key });
    expect(answer.status, answer.text).toBe(403);
    expect(await tokenRow(bob.keyId)).toBeDefined();
    expect((await me(bob.key)).body.id).toBe(bob.user.id);
  });
});

describe('presenting a key', () => {
  let alice: Awaited<ReturnType<typeof userWithKey>>;
  let bob: Awaited<ReturnType<typeof userWithKey>>;
  beforeAll(async () => {
    alice = await userWithKey();
    bob = await userWithKey();
  });

  it('accepts the key in x-api-key', async () => {
    const answer = await me(null, { 'x-api-key': alice.key });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: alice.user.id, email: alice.user.email });
  });

  it('accepts the key in the legacy x-access-token header', async () => {
    const answer = await me(null, { 'x-access-token': alice.key });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(alice.user.id);
  });

  it('lets x-api-key win over x-access-token', async () => {
    const invalidApiKey = await me(null, { 'x-api-key': 'pk_not-a-real-key', 'x-access-token': alice.key });
    expectUnauthorized(invalidApiKey);

    const validApiKey = await me(null, { 'x-api-key': alice.key, 'x-access-token': 'pk_not-a-real-key' });
    expect(validApiKey.status, validApiKey.text).toBe(200);
    expect(validApiKey.body.id).toBe(alice.user.id);

    const bothValid = await me(null, { 'x-api-key': bob.key, 'x-access-token': alice.key });
    expect(bothValid.status, bothValid.text).toBe(200);
    expect(bothValid.body.id).toBe(bob.user.id);
  });

  it('accepts Authorization: Basic base64(email:apiKey)', async () => {
    const answer = await me(null, { authorization: basic(alice.user.email, alice.key) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: alice.user.id, email: alice.user.email });
    const list = await server.request('GET', '/api/access-tokens', { key: null, headers: { authorization: basic(alice.user.email, alice.key) } });
    expect(list.status, list.text).toBe(200);
    expect(list.body.content.every((t: any) => t.userId === alice.user.id)).toBe(true);
  });

  it('accepts the key as Authorization: Bearer on every path, REST and GraphQL (as OpenAI clients send it)', async () => {
    const bearer = { authorization: `Bearer ${alice.key}` };
    const answer = await me(null, bearer);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: alice.user.id, email: alice.user.email });
    const list = await server.request('GET', '/api/access-tokens', { key: null, headers: bearer });
    expect(list.status, list.text).toBe(200);
    expect(list.body.content.every((t: any) => t.userId === alice.user.id)).toBe(true);
    const graphql = await server.request('POST', '/graphql', { key: null, headers: bearer, body: { query: '{ me { id } }' } });
    expect(graphql.body.data, graphql.text).toEqual({ me: { id: alice.user.id } });
    // x-api-key still comes first.
    expect((await me(null, { 'x-api-key': bob.key, ...bearer })).body.id).toBe(bob.user.id);
  });

  it("refuses Basic credentials whose email is not the key's owner", async () => {
    expectUnauthorized(await me(null, { authorization: basic(bob.user.email, alice.key) }));
    expectUnauthorized(await me(null, { authorization: basic(`${unique('nobody')}@example.com`, alice.key) }));
    expectUnauthorized(await me(null, { authorization: basic(alice.user.email, 'pk_not-a-real-key') }));
  });
});

describe('refused credentials', () => {
  type Case = [string, () => Promise<Record<string, string>>];
  const cases: Case[] = [
    ['no credentials', async () => ({})],
    ['an unknown key', async () => ({ 'x-api-key': `pk_${unique('unknown')}` })],
    ['an unknown key in x-access-token', async () => ({ 'x-access-token': `pk_${unique('unknown')}` })],
    [
      'an expired key',
      async () => {
        const user = await createUser();
        return { 'x-api-key': await insertKey(user.id, { expiresAt: new Date(Date.now() - 3600_000) }) };
      },
    ],
    [
      'a deleted key',
      async () => {
        const { key, keyId } = await userWithKey();
        expect((await server.request('DELETE', `/api/access-tokens/${keyId}`)).status).toBe(204);
        return { 'x-api-key': key };
      },
    ],
    [
      "a deactivated user's key",
      async () => {
        const { user, key } = await userWithKey();
        expect((await me(key)).status).toBe(200);
        const deleted = await server.request('DELETE', `/api/users/${user.id}`);
        expect(deleted.status, deleted.text).toBe(204);
        expect((await server.request('GET', `/api/users/${user.id}`)).body.active).toBe(false);
        return { 'x-api-key': key };
      },
    ],
    [
      "a deactivated user's key in Basic credentials",
      async () => {
        const { user, key } = await userWithKey();
        expect((await server.request('DELETE', `/api/users/${user.id}`)).status).toBe(204);
        return { authorization: basic(user.email, key) };
      },
    ],
    ['Basic credentials that are not base64(email:key)', async () => ({ authorization: `Basic ${Buffer.from('no-colon-here').toString('base64')}` })],
    ['Basic credentials that are not base64 at all', async () => ({ authorization: 'Basic %%%***' })],
    ['Basic credentials with an empty email', async () => ({ authorization: `Basic ${Buffer.from(':pk_whatever').toString('base64')}` })],
    ['a bare Basic scheme', async () => ({ authorization: 'Basic' })],
    ['an Authorization header with no scheme', async () => ({ authorization: 'pk_just-a-key' })],
    ['an unknown key as a bearer token', async () => ({ authorization: `Bearer pk_${unique('unknown')}` })],
    [
      'a deleted key as a bearer token',
      async () => {
        const { key, keyId } = await userWithKey();
        expect((await me(null, { authorization: `Bearer ${key}` })).status).toBe(200);
        expect((await server.request('DELETE', `/api/access-tokens/${keyId}`)).status).toBe(204);
        return { authorization: `Bearer ${key}` };
      },
    ],
    ['a bearer token that is neither an API key nor a JWT', async () => ({ authorization: 'Bearer not-a-key-nor-a-token' })],
    ['a malformed bearer JWT', async () => ({ authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl' })],
    ['an empty bearer token', async () => ({ authorization: 'Bearer ' })],
    ['an unsupported scheme (Digest)', async () => ({ authorization: 'Digest username="admin@localhost", realm="api"' })],
    ['an unsupported scheme (Token)', async () => ({ authorization: `Token ${server.adminKey}` })],
  ];

  it.each(cases)('answers %s with 401 and the error body, on REST and on GraphQL', async (_name, headers) => {
    const sent = await headers();
    expectUnauthorized(await me(null, sent));
    expectUnauthorized(await server.request('GET', '/api/access-tokens', { key: null, headers: sent }));
    expectUnauthorized(await server.request('POST', '/api/access-tokens', { key: null, headers: sent, body: { name: unique('refused') } }));
    expectGraphqlUnauthorized(await server.request('POST', '/graphql', { key: null, headers: sent, body: { query: '{ me { id email } }' } }));
  });

  it('accepts the same key again once the expiry is removed, so the refusal was about expiry', async () => {
    const user = await createUser();
    const key = await insertKey(user.id, { expiresAt: new Date(Date.now() - 60_000) });
    expectUnauthorized(await me(key));
    await server.orm.em
      .fork()
      .getConnection()
      .execute(`update access_token set expires_at = null where token_hash = ?`, [sha256(key)]);
    const answer = await me(key);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(user.id);
  });
});

describe('lastUsedAt', () => {
  it('is empty until the key is used and set once it is', async () => {
    const { user } = await userWithKey();
    const created = await createKey({ userId: user.id });
    expect(created.lastUsedAt).toBeNull();
    const before = await server.request('GET', `/api/access-tokens/${created.id}`);
    expect(before.body.lastUsedAt).toBeNull();
    expect((await tokenRow(created.id))!.last_used_at).toBeNull();

    expect((await me(created.token)).status).toBe(200);

    const after = await server.request('GET', `/api/access-tokens/${created.id}`);
    expect(after.status, after.text).toBe(200);
    expect(typeof after.body.lastUsedAt).toBe('string');
    const usedAt = new Date(after.body.lastUsedAt).getTime();
    expect(Number.isNaN(usedAt)).toBe(false);
    expect(usedAt).toBeGreaterThanOrEqual(new Date(created.createdOn).getTime() - 1000);
    expect((await tokenRow(created.id))!.last_used_at).not.toBeNull();
  });

  it('is refreshed when it is old and left alone when it was written less than a minute ago', async () => {
    const created = await createKey();
    const connection = server.orm.em.fork().getConnection();
    await connection.execute(`update access_token set last_used_at = '2001-01-01T00:00:00Z' where id = ?`, [created.id]);
    expect((await me(created.token)).status).toBe(200);
    const refreshed = new Date((await tokenRow(created.id))!.last_used_at).getTime();
    expect(refreshed).toBeGreaterThan(new Date('2001-01-01T00:00:00Z').getTime());

    await connection.execute(`update access_token set last_used_at = now() - interval '5 seconds' where id = ?`, [created.id]);
    const recent = new Date((await tokenRow(created.id))!.last_used_at).getTime();
    expect((await me(created.token)).status).toBe(200);
    expect(new Date((await tokenRow(created.id))!.last_used_at).getTime()).toBe(recent);
  });

  it('is not set by a refused request (Basic with the wrong email)', async () => {
    const alice = await userWithKey();
    const bob = await createUser();
    expectUnauthorized(await me(null, { authorization: basic(bob.email, alice.key) }));
    expect((await tokenRow(alice.keyId))!.last_used_at).toBeNull();
  });
});

describe('the caller', () => {
  it("GET /api/account/me answers the key's user", async () => {
    const user = await createUser({ firstName: 'Ada', lastName: 'Lovelace' });
    const key = await createKey({ userId: user.id });
    const answer = await me(key.token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, email: user.email, firstName: 'Ada', lastName: 'Lovelace', active: true });
    expect(answer.body).not.toHaveProperty('authSubject');

    const asAdmin = await me(server.adminKey);
    expect(asAdmin.body).toMatchObject({ id: adminId, email: 'admin@localhost' });
    expect(asAdmin.body.security.roles).toContain('PLATFORM_ADMIN');
  });

  it("GraphQL `me` answers the key's user", async () => {
    const { user, key } = await userWithKey();
    const answer = await server.graphql('{ me { id email } }', undefined, key);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors, answer.text).toBeUndefined();
    expect(answer.body.data).toEqual({ me: { id: user.id, email: user.email } });

    const basicAnswer = await server.request('POST', '/graphql', {
      key: null,
      headers: { authorization: basic(user.email, key) },
      body: { query: '{ me { id email } }' },
    });
    expect(basicAnswer.body.data, basicAnswer.text).toEqual({ me: { id: user.id, email: user.email } });

    const admin = await server.graphql('{ me { id email } }');
    expect(admin.body.data, admin.text).toEqual({ me: { id: adminId, email: 'admin@localhost' } });
  });
});
