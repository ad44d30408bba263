import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

type Jose = typeof import('jose');

const ISSUER = 'https://issuer.hardening.test/';
const AUDIENCE = 'platform-api-hardening';

let server: TestServer;
let jose: Jose;
let keys: Awaited<ReturnType<Jose['generateKeyPair']>>;

beforeAll(async () => {
  jose = await import('jose');
  keys = await jose.generateKeyPair('RS256');
  server = await startServer({
    jwt: { publicKeyPem: await jose.exportSPKI(keys.publicKey), issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 30, jwksCooldownMs: 0 },
  });
});
afterAll(() => server.close());

/** A user with an API key of their own. */
async function caller(): Promise<{ id: string; email: string; key: string }> {
  const email = `${unique('hard')}@example.com`;
  const user = await server.request('POST', '/api/users', { body: { email } });
  expect(user.status, user.text).toBe(201);
  const token = await server.request('POST', '/api/access-tokens', { body: { name: 'k', userId: user.body.id } });
  expect(token.status, token.text).toBe(201);
  return { id: user.body.id, email, key: token.body.token };
}

function sign(claims: Record<string, unknown>, options: { sub?: string; exp?: boolean } = {}): Promise<string> {
  let jwt = new jose.SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setSubject(options.sub ?? unique('sub'));
  if (options.exp !== false) jwt = jwt.setExpirationTime('5m');
  return jwt.sign(keys.privateKey);
}

const me = (token: string) => server.request('GET', '/api/account/me', { key: null, headers: { authorization: `Bearer ${token}` } });

describe('identity', () => {
  it('refuses a user changing their own email (it identifies bootstrap administrators and sign-ins)', async () => {
    const alice = await caller();
    const answer = await server.request('PUT', `/api/users/${alice.id}`, { body: { email: 'admin@localhost' }, key: alice.key });
    expect(answer.status, answer.text).toBe(403);
    expect((await server.request('GET', `/api/users/${alice.id}`)).body.email).toBe(alice.email);
  });

  it('matches a bearer token by email only when the email is verified', async () => {
    const alice = await caller();
    expect((await me(await sign({ email: alice.email }))).status).toBe(401);
    expect((await me(await sign({ email: alice.email, email_verified: false }))).status).toBe(401);
    const verified = await me(await sign({ email: alice.email, email_verified: true }));
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.id).toBe(alice.id);
  });

  it('never lets a second subject take over a user bound to another one', async () => {
    const alice = await caller();
    const first = await server.request('POST', '/api/account/callback', {
      key: null,
      headers: { authorization: `Bearer ${await sign({ email: alice.email, email_verified: true }, { sub: unique('first') })}` },
    });
    expect(first.status, first.text).toBe(200);
    const intruder = await me(await sign({ email: alice.email, email_verified: true }, { sub: unique('second') }));
    expect(intruder.status, intruder.text).toBe(401);
  });

  it('refuses a bearer token without an expiry', async () => {
    const alice = await caller();
    const answer = await me(await sign({ email: alice.email, email_verified: true }, { exp: false }));
    expect(answer.status, answer.text).toBe(401);
  });
});

describe('inputs that must not reach the database', () => {
  it('refuses filtering or sorting by a value the server never stores (the one-time key) with 400', async () => {
    for (const query of ["filter=token=='x'", 'sort=token:asc']) {
      const answer = await server.request('GET', `/api/access-tokens?${query}`);
      expect(answer.status, `${query}: ${answer.text}`).toBe(400);
    }
  });

  it('refuses a body nested deeper than 64 levels with 400, also far deeper ones', async () => {
    const organization = await createOrganization(server);
    for (const depth of [100, 20_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      const answer = await server.request('POST', '/api/labels', { body: `{"name":"deep","organizationId":"${organization.id}","x":${nested}}` });
      expect(answer.status, answer.text.slice(0, 200)).toBe(400);
    }
  });

  it('accepts free-form JSON nested within the limit', async () => {
    const organization = await createOrganization(server);
    const properties = JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40));
    const answer = await server.request('PUT', `/api/organizations/${organization.id}`, { body: { properties } });
    expect(answer.status, answer.text).toBe(200);
  });
});

describe('references stay inside the organization', () => {
  it('refuses a project owner the caller cannot see, and accepts a colleague', async () => {
    const alice = await caller();
    const stranger = await caller();
    const organization = await createOrganization(server, {}, alice.key);
    const project = await createProject(server, organization.id, {}, alice.key);
    const refused = await server.request('PUT', `/api/projects/${project.id}`, { body: { ownerId: stranger.id }, key: alice.key });
    // The user exists, but not for Alice: answered as for a user that does not exist.
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.details[0]).toEqual({ field: 'ownerId', message: `no PlatformUser with id ${stranger.id}` });
    const self = await server.request('PUT', `/api/projects/${project.id}`, { body: { ownerId: alice.id }, key: alice.key });
    expect(self.status, self.text).toBe(200);
  });
});

describe('access for references', () => {
  it('refuses with 403 a reference to a record of another tenant, with 400 one to nothing, and writes nothing', async () => {
    const alice = await caller();
    const bob = await caller();
    const aliceOrg = await createOrganization(server, {}, alice.key);
    const bobOrg = await createOrganization(server, {}, bob.key);
    const bobProject = await createProject(server, bobOrg.id, {}, bob.key);
    const before = (await server.request('GET', `/api/projects?filter=organizationId==${bobOrg.id}`)).body.totalElements;

    const project = await server.request('POST', '/api/projects', { body: { name: 'Intruder', organizationId: bobOrg.id }, key: alice.key });
    expect(project.status, project.text).toBe(403);
    expect(project.body.details[0].field).toBe('organizationId');
    const task = await server.request('POST', '/api/tasks', { body: { projectId: bobProject.id }, key: alice.key });
    expect(task.status, task.text).toBe(403);
    expect(task.body.details[0].field).toBe('projectId');
    const missing = await server.request('POST', '/api/tasks', { body: { projectId: '00000000-0000-4000-8000-000000000000' }, key: alice.key });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body.details[0].field).toBe('projectId');
    const gql = await server.graphql(
      `mutation($o: ID!) { createProject(input: { name: "Intruder", organizationId: $o }) { id } }`,
      { o: bobOrg.id },
      alice.key,
    );
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });

    expect((await server.request('GET', `/api/projects?filter=organizationId==${bobOrg.id}`)).body.totalElements).toBe(before);
    expect((await server.request('GET', `/api/tasks?filter=projectId==${bobProject.id}`)).body.totalElements).toBe(0);
    expect((await server.request('POST', '/api/projects', { body: { name: 'Mine', organizationId: aliceOrg.id }, key: alice.key })).status).toBe(201);
  });
});

describe('write access is decided before anything is written', () => {
  it("refuses a member's team in an organization they do not own with 403, sending no INSERT", async () => {
    const owner = await caller();
    const member = await caller();
    const organization = await createOrganization(server, {}, owner.key);
    const readers = await server.request('POST', '/api/teams', { body: { name: unique('Readers'), organizationId: organization.id }, key: owner.key });
    expect((await server.request('POST', '/api/team-members', { body: { teamId: readers.body.id, userId: member.id }, key: owner.key })).status).toBe(201);
    await server.request('GET', '/api/account/me', { key: member.key });
    const statements = await server.fewestQueries(async () => {
      const refused = await server.request('POST', '/api/teams', { body: { name: unique('Mine'), organizationId: organization.id }, key: member.key });
      expect(refused.status, refused.text).toBe(403);
    });
    expect(statements.some((s) => /^insert/i.test(s.text))).toBe(false);
    expect((await server.request('POST', '/api/teams', { body: { name: unique('Owned'), organizationId: organization.id }, key: owner.key })).status).toBe(201);
  });
});

describe('sorting through relations', () => {
  it('orders a related row the caller may not see as if it were null, REST and GraphQL; administrators see the real order', async () => {
    const alice = await caller();
    const stranger = await server.request('POST', '/api/users', { body: { email: `aaa-${unique('first')}@example.com` } });
    const colleague = await server.request('POST', '/api/users', { body: { email: `mmm-${unique('middle')}@example.com` } });
    const organization = await createOrganization(server, {}, alice.key);
    const team = await server.request('POST', '/api/teams', { body: { name: unique('Sorters'), organizationId: organization.id }, key: alice.key });
    expect((await server.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: colleague.body.id }, key: alice.key })).status).toBe(201);
    // The administrator makes the stranger (whose email sorts first) the owner of one project.
    const hidden = await createProject(server, organization.id, { name: 'hidden owner', ownerId: stranger.body.id });
    const shown = await createProject(server, organization.id, { name: 'colleague owner', ownerId: colleague.body.id }, alice.key);
    const path = `/api/projects?filter=${encodeURIComponent(`organizationId==${organization.id}`)}&sort=owner.email:asc`;
    const names = (answer: { body: { content: { name: string }[] } }) => answer.body.content.map((p) => p.name);
    expect(names(await server.request('GET', path))).toEqual([hidden.name, shown.name]);
    expect(names(await server.request('GET', path, { key: alice.key }))).toEqual([shown.name, hidden.name]);
    const gql = await server.graphqlData(
      `query($f: String) { projects(filter: $f, sort: "owner.email:asc") { content { name } } }`,
      { f: `organizationId==${organization.id}` },
      alice.key,
    );
    expect(gql.projects.content.map((p: { name: string }) => p.name)).toEqual([shown.name, hidden.name]);
  });
});

describe('archived organizations', () => {
  it('grant their members nothing any more', async () => {
    const alice = await caller();
    const organization = await createOrganization(server, {}, alice.key);
    const project = await createProject(server, organization.id, {}, alice.key);
    expect((await server.request('GET', `/api/projects/${project.id}`, { key: alice.key })).status).toBe(200);
    expect((await server.request('DELETE', `/api/organizations/${organization.id}`, { key: alice.key })).status).toBe(204);
    // The organization is deleted, and its contents with it: gone for members (and administrators).
    expect((await server.request('GET', `/api/projects/${project.id}`, { key: alice.key })).status).toBe(404);
    expect((await server.request('GET', `/api/organizations/${organization.id}`, { key: alice.key })).status).toBe(404);
    const task = await server.request('POST', '/api/tasks', { body: { projectId: project.id }, key: alice.key });
    expect([400, 403]).toContain(task.status);
  });
});

describe('every organization keeps an owner', () => {
  async function ownersOf(organizationId: string) {
    const teams = await server.request('GET', `/api/teams?filter=organizationId==${organizationId};slug=='owners'`);
    const team = teams.body.content[0];
    const members = await server.request('GET', `/api/team-members?filter=teamId==${team.id}`);
    return { team, members: members.body.content };
  }

  it('refuses deleting the owners team or changing its slug (409), and removing the last owner (409)', async () => {
    const alice = await caller();
    const organization = await createOrganization(server, {}, alice.key);
    const { team, members } = await ownersOf(organization.id);
    expect(members).toHaveLength(1);
    expect((await server.request('DELETE', `/api/teams/${team.id}`, { key: alice.key })).status).toBe(409);
    expect((await server.request('PUT', `/api/teams/${team.id}`, { body: { slug: 'not-owners' }, key: alice.key })).status).toBe(409);
    expect((await server.request('DELETE', `/api/team-members/${members[0].id}`, { key: alice.key })).status).toBe(409);
    const renamed = await server.request('PUT', `/api/teams/${team.id}`, { body: { name: 'Founders' }, key: alice.key });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.slug).toBe('owners');
  });

  it('lets an owner leave once another owner remains', async () => {
    const alice = await caller();
    const bob = await caller();
    const organization = await createOrganization(server, {}, alice.key);
    const { team, members } = await ownersOf(organization.id);
    const added = await server.request('POST', '/api/team-members', { body: { teamId: team.id, userId: bob.id }, key: alice.key });
    expect(added.status, added.text).toBe(201);
    expect((await server.request('DELETE', `/api/team-members/${members[0].id}`, { key: alice.key })).status).toBe(204);
    expect((await server.request('DELETE', `/api/team-members/${added.body.id}`, { key: bob.key })).status).toBe(409);
  });
});

describe('filters through relations', () => {
  it('only match related rows the caller may see', async () => {
    const alice = await caller();
    const stranger = await caller();
    const organization = await createOrganization(server, {}, alice.key);
    const project = await createProject(server, organization.id, {}, alice.key);
    // An administrator may name any user as owner; Alice cannot see that user.
    const owned = await server.request('PUT', `/api/projects/${project.id}`, { body: { ownerId: stranger.id } });
    expect(owned.status, owned.text).toBe(200);
    const filter = encodeURIComponent(`id==${project.id};owner.email=like='${stranger.email.slice(0, 8)}*'`);
    const asAdmin = await server.request('GET', `/api/projects?filter=${filter}`);
    expect(asAdmin.body.totalElements, asAdmin.text).toBe(1);
    const asAlice = await server.request('GET', `/api/projects?filter=${filter}`, { key: alice.key });
    expect(asAlice.status, asAlice.text).toBe(200);
    expect(asAlice.body.totalElements, asAlice.text).toBe(0);
    const own = await server.request('GET', `/api/projects?filter=${encodeURIComponent(`id==${project.id};organization.id==${organization.id}`)}`, {
      key: alice.key,
    });
    expect(own.body.totalElements, own.text).toBe(1);
  });
});

describe('deleted parents', () => {
  it("hide a deleted project's tasks from everyone, and refuse new ones", async () => {
    const organization = await createOrganization(server);
    const project = await createProject(server, organization.id);
    const task = await server.request('POST', '/api/tasks', { body: { projectId: project.id, title: 'orphan' } });
    expect(task.status, task.text).toBe(201);
    expect((await server.request('DELETE', `/api/projects/${project.id}`)).status).toBe(204);
    expect((await server.request('GET', `/api/tasks/${task.body.id}`)).status).toBe(404);
    expect((await server.request('PUT', `/api/tasks/${task.body.id}`, { body: { title: 'x' } })).status).toBe(404);
    expect((await server.request('GET', `/api/tasks?filter=id==${task.body.id}`)).body.totalElements).toBe(0);
    const another = await server.request('POST', '/api/tasks', { body: { projectId: project.id } });
    expect(another.status, another.text).toBe(400);
  });

  it("hide an archived organization's projects, also from administrators", async () => {
    const organization = await createOrganization(server);
    const project = await createProject(server, organization.id);
    expect((await server.request('DELETE', `/api/organizations/${organization.id}`)).status).toBe(204);
    expect((await server.request('GET', `/api/projects/${project.id}`)).status).toBe(404);
    const nested = await server.graphql(`query($f: String) { projects(filter: $f) { totalElements } }`, { f: `id==${project.id}` });
    expect(nested.body.data.projects.totalElements, nested.text).toBe(0);
  });
});
