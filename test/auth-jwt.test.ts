import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, unique, type Answer, type TestServer } from './support/server';

type Jose = typeof import('jose');
type PrivateKey = Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];
type PublicKey = Awaited<ReturnType<Jose['generateKeyPair']>>['publicKey'];

const ISSUER = 'https://issuer.example.test/';
const AUDIENCE = 'platform-api-tests';

let jose: Jose;
/** Configured with the PEM of `pemKeys`. */
let pemServer: TestServer;
/** Configured with the JWKS URL of `jwks`. */
let jwksServer: TestServer;
let pemKeys: { privateKey: PrivateKey; publicKey: PublicKey };

/** A JWKS endpoint whose key set the tests replace at will. */
const jwks = {
  keys: [] as object[],
  requests: 0,
  server: undefined as Server | undefined,
  url: '',
};

beforeAll(async () => {
  jose = await import('jose');
  pemKeys = await jose.generateKeyPair('RS256');
  pemServer = await startServer({
    jwt: { publicKeyPem: await jose.exportSPKI(pemKeys.publicKey), issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 30, jwksCooldownMs: 0 },
  });

  jwks.server = createServer((req, res) => {
    jwks.requests += 1;
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ keys: jwks.keys }));
  });
  await new Promise<void>((resolve) => jwks.server!.listen(0, '127.0.0.1', resolve));
  jwks.url = `http://127.0.0.1:${(jwks.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  jwksServer = await startServer({
    jwt: { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 30, jwksCooldownMs: 0 },
  });
});

afterAll(async () => {
  await pemServer?.close();
  await jwksServer?.close();
  await new Promise((resolve) => (jwks.server ? jwks.server.close(resolve) : resolve(undefined)));
});

interface TokenOptions {
  key?: PrivateKey;
  kid?: string;
  alg?: string;
  issuer?: string;
  audience?: string;
  /** Seconds since the epoch. */
  exp?: number;
  nbf?: number;
  iat?: number;
  sub?: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A signed token with the server's issuer and audience, valid for 5 minutes, unless told otherwise. */
async function sign(claims: Record<string, unknown>, options: TokenOptions = {}): Promise<string> {
  // The identity provider vouches for the email unless a test says otherwise.
  let jwt = new jose.SignJWT('email' in claims ? { email_verified: true, ...claims } : claims)
    .setProtectedHeader({ alg: options.alg ?? 'RS256', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(options.iat ?? nowSeconds())
    .setExpirationTime(options.exp ?? nowSeconds() + 300);
  jwt = jwt.setSubject(options.sub ?? unique('sub'));
  if (options.nbf !== undefined) jwt = jwt.setNotBefore(options.nbf);
  return jwt.sign(options.key ?? pemKeys.privateKey);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function call(server: TestServer, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  return server.request(method, path, { key: null, headers, body });
}

const me = (server: TestServer, token: string) => call(server, 'GET', '/api/account/me', bearer(token));
const callback = (server: TestServer, token: string) => call(server, 'POST', '/api/account/callback', bearer(token));

function expectUnauthorized(answer: Answer): void {
  expect(answer.status, answer.text).toBe(401);
  expect(answer.body).toEqual({ error: 'Unauthorized', message: expect.any(String), status: 401 });
  expect(answer.body.message.length).toBeGreaterThan(0);
}

async function createUser(server: TestServer, body: Record<string, unknown> = {}) {
  const answer = await server.request('POST', '/api/users', { body: { email: `${unique('jwtuser')}@example.com`, ...body } });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

async function authSubjectOf(server: TestServer, userId: string): Promise<string | null> {
  const rows = await server.orm.em.fork().getConnection().execute(`select auth_subject from platform_user where id = ?`, [userId]);
  return rows[0]?.auth_subject ?? null;
}

async function usersWithEmail(server: TestServer, email: string): Promise<any[]> {
  return server.orm.em.fork().getConnection().execute(`select * from platform_user where email = ?`, [email.toLowerCase()]);
}

describe('bearer tokens verified with a configured public key (PEM)', () => {
  it('accepts a valid token for an existing user matched by email', async () => {
    const user = await createUser(pemServer, { firstName: 'Grace', lastName: 'Hopper' });
    const token = await sign({ email: user.email });
    const answer = await me(pemServer, token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, email: user.email, firstName: 'Grace', lastName: 'Hopper' });

    const list = await call(pemServer, 'GET', '/api/access-tokens', bearer(token));
    expect(list.status, list.text).toBe(200);

    const graphql = await call(pemServer, 'POST', '/graphql', bearer(token), { query: '{ me { id email } }' });
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.body.data).toEqual({ me: { id: user.id, email: user.email } });
  });

  it('matches the email claim without regard to case', async () => {
    const user = await createUser(pemServer);
    const answer = await me(pemServer, await sign({ email: user.email.toUpperCase() }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(user.id);
  });

  it('refuses a token whose user does not exist yet with 401, until POST /api/account/callback creates it from the claims', async () => {
    const email = `${unique('newcomer')}@example.com`;
    const sub = unique('idp-sub');
    const token = await sign({ email, given_name: 'Katherine', family_name: 'Johnson', picture: 'https://img.example.test/kj.png' }, { sub });

    expectUnauthorized(await me(pemServer, token));
    expectUnauthorized(await call(pemServer, 'GET', '/api/organizations', bearer(token)));
    const graphqlBefore = await call(pemServer, 'POST', '/graphql', bearer(token), { query: '{ me { id } }' });
    expect(graphqlBefore.status, graphqlBefore.text).toBe(401);
    expect(graphqlBefore.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    expect(await usersWithEmail(pemServer, email)).toHaveLength(0);

    const created = await callback(pemServer, token);
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ email, firstName: 'Katherine', lastName: 'Johnson', image: 'https://img.example.test/kj.png', active: true });
    expect(typeof created.body.id).toBe('string');
    expect(created.body).not.toHaveProperty('authSubject');
    expect(created.body.security?.roles ?? []).not.toContain('PLATFORM_ADMIN');
    const rows = await usersWithEmail(pemServer, email);
    expect(rows).toHaveLength(1);
    expect(rows[0].auth_subject).toBe(sub);

    const after = await me(pemServer, token);
    expect(after.status, after.text).toBe(200);
    expect(after.body).toMatchObject({ id: created.body.id, email });
    expect((await call(pemServer, 'GET', '/api/organizations', bearer(token))).status).toBe(200);

    // A second sign-in finds the same user again rather than creating another.
    const again = await callback(pemServer, await sign({ email }, { sub }));
    expect(again.status, again.text).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    expect(await usersWithEmail(pemServer, email)).toHaveLength(1);
  });

  it("updates an existing user's names from the claims on callback and binds the subject", async () => {
    const user = await createUser(pemServer, { firstName: 'Old', lastName: 'Name', bio: 'kept' });
    const sub = unique('idp-sub');
    const answer = await callback(pemServer, await sign({ email: user.email, given_name: 'New', family_name: 'Surname' }, { sub }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, email: user.email, firstName: 'New', lastName: 'Surname', bio: 'kept' });
    const stored = await pemServer.request('GET', `/api/users/${user.id}`);
    expect(stored.body).toMatchObject({ firstName: 'New', lastName: 'Surname', bio: 'kept' });
    expect(await authSubjectOf(pemServer, user.id)).toBe(sub);
    expect(await usersWithEmail(pemServer, user.email)).toHaveLength(1);
  });

  it('finds the user by sub once bound, even after the email in the token changes', async () => {
    const user = await createUser(pemServer);
    const sub = unique('idp-sub');
    expect((await callback(pemServer, await sign({ email: user.email }, { sub }))).status).toBe(200);

    const changedEmail = `${unique('renamed')}@example.com`;
    const token = await sign({ email: changedEmail }, { sub });
    const answer = await me(pemServer, token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(user.id);

    // The callback carries the new email over to the same user.
    const synced = await callback(pemServer, token);
    expect(synced.status, synced.text).toBe(200);
    expect(synced.body).toMatchObject({ id: user.id, email: changedEmail });
    expect(await usersWithEmail(pemServer, user.email)).toHaveLength(0);
  });

  it('prefers the sub match over the email claim when they name different users', async () => {
    const bound = await createUser(pemServer);
    const other = await createUser(pemServer);
    const sub = unique('idp-sub');
    expect((await callback(pemServer, await sign({ email: bound.email }, { sub }))).status).toBe(200);
    const answer = await me(pemServer, await sign({ email: other.email }, { sub }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(bound.id);
  });

  it('answers the callback with the caller unchanged when called with an API key', async () => {
    const answer = await pemServer.request('POST', '/api/account/callback');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.email).toBe('admin@localhost');
    expectUnauthorized(await pemServer.request('POST', '/api/account/callback', { key: null }));
  });

  it('refuses a deactivated user with 401, also on the callback', async () => {
    const user = await createUser(pemServer);
    const token = await sign({ email: user.email });
    expect((await me(pemServer, token)).status).toBe(200);
    expect((await pemServer.request('DELETE', `/api/users/${user.id}`)).status).toBe(204);
    expectUnauthorized(await me(pemServer, token));
    expectUnauthorized(await callback(pemServer, token));
    expect((await pemServer.request('GET', `/api/users/${user.id}`)).body.active).toBe(false);
  });

  it('accepts a token that expired 10 seconds ago, within the 30-second clock tolerance', async () => {
    const user = await createUser(pemServer);
    const answer = await me(pemServer, await sign({ email: user.email }, { iat: nowSeconds() - 600, exp: nowSeconds() - 10 }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(user.id);
  });

  it('accepts a token whose nbf is 10 seconds ahead, within the clock tolerance', async () => {
    const user = await createUser(pemServer);
    const answer = await me(pemServer, await sign({ email: user.email }, { nbf: nowSeconds() + 10 }));
    expect(answer.status, answer.text).toBe(200);
  });

  describe('refusals', () => {
    let user: any;
    let otherKey: PrivateKey;
    beforeAll(async () => {
      user = await createUser(pemServer);
      otherKey = (await jose.generateKeyPair('RS256')).privateKey;
    });

    const unsigned = (claims: Record<string, unknown>) => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
    };

    type Case = [string, () => Promise<Record<string, string>>];
    const cases: Case[] = [
      ['expired 5 minutes ago', async () => bearer(await sign({ email: user.email }, { iat: nowSeconds() - 3600, exp: nowSeconds() - 300 }))],
      ['not yet valid (nbf in 5 minutes)', async () => bearer(await sign({ email: user.email }, { nbf: nowSeconds() + 300, exp: nowSeconds() + 900 }))],
      ['for another audience', async () => bearer(await sign({ email: user.email }, { audience: 'some-other-api' }))],
      ['from another issuer', async () => bearer(await sign({ email: user.email }, { issuer: 'https://evil.example.test/' }))],
      ['signed by another key', async () => bearer(await sign({ email: user.email }, { key: otherKey }))],
      [
        'with a tampered payload',
        async () => {
          const [header, , signature] = (await sign({ email: `${unique('x')}@example.com` })).split('.');
          const payload = Buffer.from(JSON.stringify({ email: user.email, iss: ISSUER, aud: AUDIENCE, sub: unique('sub'), exp: nowSeconds() + 300 })).toString(
            'base64url',
          );
          return bearer(`${header}.${payload}.${signature}`);
        },
      ],
      [
        'signed with HS256 using the public key as the secret',
        async () => {
          const pem = await jose.exportSPKI(pemKeys.publicKey);
          const token = await new jose.SignJWT({ email: user.email })
            .setProtectedHeader({ alg: 'HS256' })
            .setIssuer(ISSUER)
            .setAudience(AUDIENCE)
            .setSubject(unique('sub'))
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(new TextEncoder().encode(pem));
          return bearer(token);
        },
      ],
      ['with alg none', async () => bearer(unsigned({ email: user.email, iss: ISSUER, aud: AUDIENCE, sub: unique('sub'), exp: nowSeconds() + 300 }))],
      ['that is garbage', async () => bearer('not.a.jwt')],
      ['that is not even dotted', async () => bearer('garbage')],
      ['missing the bearer value', async () => ({ authorization: 'Bearer' })],
      ['missing the bearer value (trailing blanks)', async () => ({ authorization: 'Bearer    ' })],
    ];

    it.each(cases)('refuses a token %s with 401 and the error body', async (_name, headers) => {
      const sent = await headers();
      expectUnauthorized(await call(pemServer, 'GET', '/api/account/me', sent));
      expectUnauthorized(await call(pemServer, 'GET', '/api/organizations', sent));
      expectUnauthorized(await call(pemServer, 'POST', '/api/account/callback', sent));
      const graphql = await call(pemServer, 'POST', '/graphql', sent, { query: '{ me { id } }' });
      expect(graphql.status, graphql.text).toBe(401);
      expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      expect(graphql.body.data ?? null).toBeNull();
    });

    it('creates no user from a refused token on callback', async () => {
      const email = `${unique('intruder')}@example.com`;
      expectUnauthorized(await callback(pemServer, await sign({ email }, { key: otherKey })));
      expectUnauthorized(await callback(pemServer, await sign({ email }, { exp: nowSeconds() - 300, iat: nowSeconds() - 3600 })));
      expectUnauthorized(await callback(pemServer, unsigned({ email, iss: ISSUER, aud: AUDIENCE, sub: unique('sub'), exp: nowSeconds() + 300 })));
      expect(await usersWithEmail(pemServer, email)).toHaveLength(0);
    });

    it('the same claims signed correctly are accepted, so each refusal is about the flaw', async () => {
      const answer = await me(pemServer, await sign({ email: user.email }));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.id).toBe(user.id);
    });
  });
});

describe('bearer tokens verified against a JWKS URL', () => {
  let first: { privateKey: PrivateKey; kid: string; jwk: object };

  async function keyWithKid(prefix: string) {
    const pair = await jose.generateKeyPair('RS256');
    const kid = unique(prefix);
    const jwk = { ...(await jose.exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' };
    return { privateKey: pair.privateKey, kid, jwk };
  }

  beforeAll(async () => {
    first = await keyWithKid('kid-a');
    jwks.keys = [first.jwk];
  });

  it('accepts a valid token signed with the key its kid names', async () => {
    const user = await createUser(jwksServer);
    const token = await sign({ email: user.email }, { key: first.privateKey, kid: first.kid });
    const answer = await me(jwksServer, token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(user.id);
    expect(jwks.requests).toBeGreaterThan(0);
  });

  it('picks the key by kid when the set holds several keys', async () => {
    const extra = await keyWithKid('kid-extra');
    jwks.keys = [extra.jwk, first.jwk];
    const user = await createUser(jwksServer);
    const viaFirst = await me(jwksServer, await sign({ email: user.email }, { key: first.privateKey, kid: first.kid }));
    expect(viaFirst.status, viaFirst.text).toBe(200);
    const viaExtra = await me(jwksServer, await sign({ email: user.email }, { key: extra.privateKey, kid: extra.kid }));
    expect(viaExtra.status, viaExtra.text).toBe(200);
    // The right kid with the wrong key's signature is refused.
    expectUnauthorized(await me(jwksServer, await sign({ email: user.email }, { key: extra.privateKey, kid: first.kid })));
    jwks.keys = [first.jwk];
  });

  it('refuses a token whose kid is in no key set, and one signed by a key outside the set', async () => {
    const user = await createUser(jwksServer);
    const stranger = await keyWithKid('kid-stranger');
    expectUnauthorized(await me(jwksServer, await sign({ email: user.email }, { key: stranger.privateKey, kid: stranger.kid })));
    expectUnauthorized(await me(jwksServer, await sign({ email: user.email }, { key: stranger.privateKey, kid: first.kid })));
    expectUnauthorized(await me(jwksServer, await sign({ email: user.email }, { key: first.privateKey, kid: first.kid, audience: 'some-other-api' })));
    expectUnauthorized(
      await me(jwksServer, await sign({ email: user.email }, { key: first.privateKey, kid: first.kid, exp: nowSeconds() - 300, iat: nowSeconds() - 3600 })),
    );
  });

  it('follows a key rotation without a restart: tokens of the new kid are accepted, the retired key is refused', async () => {
    const user = await createUser(jwksServer);
    const before = await me(jwksServer, await sign({ email: user.email }, { key: first.privateKey, kid: first.kid }));
    expect(before.status, before.text).toBe(200);

    const rotated = await keyWithKid('kid-b');
    const tokenOfNewKey = await sign({ email: user.email }, { key: rotated.privateKey, kid: rotated.kid });
    jwks.keys = [rotated.jwk];

    const after = await me(jwksServer, tokenOfNewKey);
    expect(after.status, after.text).toBe(200);
    expect(after.body.id).toBe(user.id);
    const graphql = await call(jwksServer, 'POST', '/graphql', bearer(tokenOfNewKey), { query: '{ me { id } }' });
    expect(graphql.body.data, graphql.text).toEqual({ me: { id: user.id } });

    // The retired key is gone from the set the server now holds.
    expectUnauthorized(await me(jwksServer, await sign({ email: user.email }, { key: first.privateKey, kid: first.kid })));
    first = rotated;
  });

  it('creates a user on callback with a JWKS-verified token', async () => {
    const email = `${unique('jwks-newcomer')}@example.com`;
    const token = await sign({ email, given_name: 'Mary', family_name: 'Jackson' }, { key: first.privateKey, kid: first.kid });
    expectUnauthorized(await me(jwksServer, token));
    const created = await callback(jwksServer, token);
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ email, firstName: 'Mary', lastName: 'Jackson' });
    expect((await me(jwksServer, token)).body.id).toBe(created.body.id);
  });
});
