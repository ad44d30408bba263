import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Credentials and memberships are cached per process; a write that changes them is announced with
 * NOTIFY, so the writing process refuses at once and every other process within a second.
 */
let first: TestServer;
let second: TestServer;

beforeAll(async () => {
  first = await startServer();
  second = await startServer();
});

afterAll(async () => {
  await first?.close();
  await second?.close();
});

async function userWithKey(): Promise<{ user: { id: string; email: string }; key: string; keyId: string }> {
  const user = await createUser(first);
  const token = await first.request('POST', '/api/access-tokens', { body: { name: unique('cached'), userId: user.id } });
  expect(token.status, token.text).toBe(201);
  return { user, key: token.body.token, keyId: token.body.id };
}

const me = (server: TestServer, key: string) => server.request('GET', '/api/account/me', { key });

/** How long `server` takes to answer `path` with `status` (polling), or fails after two seconds. */
async function millisecondsUntil(server: TestServer, key: string, path: string, status: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 2_000) {
    if ((await server.request('GET', path, { key })).status === status) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${path} did not answer ${status} within 2 s`);
}

describe('credentials and memberships cached per process', () => {
  it('answers a read with one statement once the credentials are cached', async () => {
    const { user, key } = await userWithKey();
    const org = await createOrganization(first);
    const owners = await first.request('GET', `/api/teams?filter=${encodeURIComponent(`organizationId==${org.id};slug=='owners'`)}`);
    expect((await first.request('POST', '/api/team-members', { body: { teamId: owners.body.content[0].id, userId: user.id } })).status).toBe(201);
    const task = await createTask(first, (await createProject(first, org.id)).id);
    expect((await first.request('GET', `/api/tasks/${task.id}`, { key })).status).toBe(200);
    const recorded = await first.fewestQueries(async () => {
      const answer = await first.request('GET', `/api/tasks/${task.id}`, { key });
      expect(answer.status, answer.text).toBe(200);
    });
    expect(recorded).toHaveLength(1);
  });

  it('does not look the key up again while it is cached (a change outside the API waits for the time limit)', async () => {
    // Suites share the database: another suite's change of access, announced between the two reads,
    // empties the cache too; of three attempts, one sees the key still cached.
    let key = '';
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3 && statuses.at(-1) !== 200; attempt++) {
      const created = await userWithKey();
      key = created.key;
      expect((await me(first, key)).status).toBe(200);
      await first.orm.em
        .fork()
        .getConnection()
        .execute('update access_token set expires_at = ? where id = ?', [new Date(Date.now() - 1_000), created.keyId]);
      statuses.push((await me(first, key)).status);
    }
    expect(statuses.at(-1)).toBe(200);
    // Announced like a write through the API: refused everywhere.
    await first.orm.em.fork().getConnection().execute(`select pg_notify('platform_access_changed', '')`);
    expect(await millisecondsUntil(first, key, '/api/account/me', 401)).toBeLessThan(1_000);
  });

  it('refuses a deleted key at once in the writing process and within a second in another', async () => {
    const { key, keyId } = await userWithKey();
    expect((await me(first, key)).status).toBe(200);
    expect((await me(second, key)).status).toBe(200);
    expect((await first.request('DELETE', `/api/access-tokens/${keyId}`)).status).toBe(204);
    expect((await me(first, key)).status).toBe(401);
    expect(await millisecondsUntil(second, key, '/api/account/me', 401)).toBeLessThan(1_000);
  });

  it('refuses the keys of a deactivated user at once here and within a second elsewhere', async () => {
    const { user, key } = await userWithKey();
    expect((await me(first, key)).status).toBe(200);
    expect((await me(second, key)).status).toBe(200);
    expect((await first.request('DELETE', `/api/users/${user.id}`)).status).toBe(204);
    expect((await me(first, key)).status).toBe(401);
    expect(await millisecondsUntil(second, key, '/api/account/me', 401)).toBeLessThan(1_000);
  });

  it('ends access through a removed membership at once here and within a second elsewhere', async () => {
    const { user, key } = await userWithKey();
    const org = await createOrganization(first);
    const team = await first.request('POST', '/api/teams', { body: { name: unique('Readers'), organizationId: org.id } });
    const member = await first.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: user.id } });
    expect(member.status, member.text).toBe(201);
    const project = await createProject(first, org.id);
    const path = `/api/projects/${project.id}`;
    expect((await first.request('GET', path, { key })).status).toBe(200);
    expect((await second.request('GET', path, { key })).status).toBe(200);
    expect((await first.request('DELETE', `/api/team-members/${member.body.id}`)).status).toBe(204);
    expect((await first.request('GET', path, { key })).status).toBe(403);
    expect(await millisecondsUntil(second, key, path, 403)).toBeLessThan(1_000);
  });

  it('grants new access at once too: a new membership is seen by the next request', async () => {
    const { user, key } = await userWithKey();
    const org = await createOrganization(first);
    const project = await createProject(first, org.id);
    expect((await second.request('GET', `/api/projects/${project.id}`, { key })).status).toBe(403);
    const team = await first.request('POST', '/api/teams', { body: { name: unique('Writers'), organizationId: org.id } });
    expect((await first.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: user.id } })).status).toBe(201);
    expect((await first.request('GET', `/api/projects/${project.id}`, { key })).status).toBe(200);
    expect(await millisecondsUntil(second, key, `/api/projects/${project.id}`, 200)).toBeLessThan(1_000);
  });
});

describe('AUTH_CACHE_SECONDS', () => {
  const saved = process.env.AUTH_CACHE_SECONDS;
  afterEach(() => {
    if (saved === undefined) delete process.env.AUTH_CACHE_SECONDS;
    else process.env.AUTH_CACHE_SECONDS = saved;
  });

  it('defaults to 30 and accepts 0 to 30 only', () => {
    delete process.env.AUTH_CACHE_SECONDS;
    expect(loadConfig().authCacheSeconds).toBe(30);
    process.env.AUTH_CACHE_SECONDS = '0';
    expect(loadConfig().authCacheSeconds).toBe(0);
    for (const wrong of ['31', '-1', '2.5', 'soon']) {
      process.env.AUTH_CACHE_SECONDS = wrong;
      expect(() => loadConfig(), wrong).toThrow(/AUTH_CACHE_SECONDS/);
    }
  });

  it('with 0, looks the credentials up on every request', async () => {
    const uncached = await startServer({ authCacheSeconds: 0 });
    try {
      const { key, keyId } = await userWithKey();
      expect((await me(uncached, key)).status).toBe(200);
      await uncached.orm.em.fork().getConnection().execute('delete from access_token where id = ?', [keyId]);
      expect((await me(uncached, key)).status).toBe(401);
    } finally {
      await uncached.close();
    }
  });
});
