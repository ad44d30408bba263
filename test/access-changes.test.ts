import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { logger } from '../src/logging/logger';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * A change of access (a removal from a team, an archived organization, a revoked key, a deactivated
 * user) holds for the caller's very next read in this process, on either face, including the later root
 * fields of a GraphQL document that was already running when the change committed, and every statement
 * cached for them.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());
afterEach(() => vi.restoreAllMocks());

/** A member of one team of an organization (not its owner), with a key, and a project and task there. */
interface World {
  user: { id: string };
  key: string;
  keyId: string;
  org: { id: string; name: string };
  membershipId: string;
  project: { id: string; name: string };
  task: { id: string };
}

async function world(): Promise<World> {
  const user = await createUser(server);
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('key'), userId: user.id } });
  expect(token.status, token.text).toBe(201);
  const org = await createOrganization(server);
  const team = await server.request('POST', '/api/teams', { body: { name: unique('Readers'), organizationId: org.id } });
  expect(team.status, team.text).toBe(201);
  const membership = await server.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: user.id } });
  expect(membership.status, membership.text).toBe(201);
  const project = await createProject(server, org.id);
  const task = await createTask(server, project.id, { title: unique('task') });
  return { user, key: token.body.token, keyId: token.body.id, org, membershipId: membership.body.id, project, task };
}

/** The GraphQL root fields read as the member, each answered by the database in one statement. */
const SHAPES = {
  list: 'projects(filter: $projects) { totalElements content { id name } }',
  item: 'task(id: $task) { id title }',
  nested:
    'organizations(filter: $organizations) { totalElements content { id projects { totalElements content { id tasks { totalElements content { id } } } } } }',
  reference: 'tasks(filter: $tasks) { totalElements content { id project { id name organizationId } } }',
} as const;
type Shape = keyof typeof SHAPES;

const VARIABLE_TYPES: Record<string, string> = { projects: 'String!', task: 'ID!', organizations: 'String!', tasks: 'String!' };

function variables(w: World, task = w.task.id): Record<string, string> {
  return { projects: `name=='${w.project.name}'`, task, organizations: `name=='${w.org.name}'`, tasks: `projectId==${w.project.id}` };
}

/** A query of `fields`, declaring the variables they use. */
function documentOf(fields: string): string {
  const used = [...new Set([...fields.matchAll(/\$(\w+)/g)].map((m) => m[1]))];
  return `query(${used.map((name) => `$${name}: ${VARIABLE_TYPES[name]}`).join(', ')}) { ${fields} }`;
}

/** What a shape answers when the member may read nothing of the organization: no rows, or for an item null and 403 as REST answers it. */
function expectNothing(shape: Shape, answer: Answer<{ data?: any; errors?: any[] }>): void {
  const value = answer.body.data?.probe;
  if (shape === 'item') {
    expect(value, answer.text).toBeNull();
    expect(
      answer.body.errors?.map((e) => e.extensions.code),
      answer.text,
    ).toEqual(['FORBIDDEN']);
  } else {
    expect(answer.body.errors, answer.text).toBeUndefined();
    expect(value.totalElements, answer.text).toBe(0);
    expect(value.content, answer.text).toEqual([]);
  }
}

/** What a shape answers while the member reads the organization. */
function showsTheRows(shape: Shape, value: any, w: World): boolean {
  if (shape === 'item') return value?.id === w.task.id;
  if (shape === 'reference') return value?.content[0]?.project?.id === w.project.id;
  return value?.totalElements === 1;
}

/** A connection of the test's own that holds `model_catalog_entry` locked until `release`. */
async function holdModels(): Promise<{ waiting(): Promise<boolean>; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  await client.query('begin');
  await client.query('lock table model_catalog_entry in access exclusive mode');
  return {
    async waiting() {
      const { rows } = await client.query(`select count(*)::int as n from pg_locks where not granted and relation = 'model_catalog_entry'::regclass`);
      return rows[0].n > 0;
    },
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}

/**
 * The member's document `warm` (loads their memberships), `held` (waits on the lock), then `probe`, with
 * `change` committed while `held` waits: the probe runs after it.
 */
async function duringDocument(w: World, shape: Shape, change: () => Promise<void>): Promise<Answer<{ data?: any; errors?: any[] }>> {
  const lock = await holdModels();
  try {
    const document = documentOf(`warm: projects(filter: $projects) { totalElements } held: models { totalElements } probe: ${SHAPES[shape]}`);
    const pending = server.graphql(document, variables(w), w.key);
    await expect.poll(() => lock.waiting(), { timeout: 5_000, interval: 20 }).toBe(true);
    await change();
    await lock.release();
    return await pending;
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
}

/** The member's document of the one root field `probe`. */
const probe = (w: World, shape: Shape, taskId?: string) => server.graphql(documentOf(`probe: ${SHAPES[shape]}`), variables(w, taskId), w.key);

/** The probe's value, which must answer without errors. */
async function probed(w: World, shape: Shape, taskId?: string): Promise<any> {
  const answer = await probe(w, shape, taskId);
  expect(answer.body.errors, answer.text).toBeUndefined();
  return answer.body.data.probe;
}

const rest = (w: World, path: string) => server.request('GET', path, { key: w.key });

const removal = (w: World) => async () => {
  expect((await server.request('DELETE', `/api/team-members/${w.membershipId}`)).status).toBe(204);
};

describe('a removal from a team during a running GraphQL document', () => {
  for (const shape of Object.keys(SHAPES) as Shape[]) {
    for (const cached of [false, true]) {
      it(`answers the later root field (${shape}, ${cached ? 'shape cached before' : 'shape not yet cached'}) as REST does, and so does every later read`, async () => {
        const w = await world();
        if (cached) expect(showsTheRows(shape, await probed(w, shape), w)).toBe(true);
        const answer = await duringDocument(w, shape, removal(w));
        // The first root field ran before the removal (a refused item sends the document to the
        // resolvers, which word the refusal and read it again); the last after it.
        if (shape !== 'item') expect(answer.body.data.warm.totalElements).toBe(1);
        expectNothing(shape, answer);

        // The statement written for the probe holds nothing of the member's former access.
        expectNothing(shape, await probe(w, shape));
        const later = await createTask(server, w.project.id, { title: unique('after') });
        expectNothing('item', await probe(w, 'item', later.id));
        // REST says the same.
        expect((await rest(w, `/api/projects?filter=${encodeURIComponent(variables(w).projects)}`)).body.totalElements).toBe(0);
        expect((await rest(w, `/api/tasks/${w.task.id}`)).status).toBe(403);
        expect((await rest(w, `/api/tasks/${later.id}`)).status).toBe(403);
        const exported = await rest(w, `/api/tasks/export?filter=${encodeURIComponent(variables(w).tasks)}&format=ndjson`);
        expect(exported.status).toBe(200);
        expect(exported.text.trim()).toBe('');
      });
    }
  }
});

describe('a removal from a team while root fields wait their turn (the resolvers)', () => {
  it("holds for a root field that waited for one of the request's connections", async () => {
    const w = await world();
    const lock = await holdModels();
    try {
      // Two root fields wait on the lock and hold both of the request's connections; the probe waits its turn.
      const document = `query($projects: String!, $tasks: String!) {
        warm: projects(filter: $projects) @include(if: true) { totalElements }
        first: models @include(if: true) { totalElements }
        second: models @include(if: true) { totalElements }
        probe: tasks(filter: $tasks) @include(if: true) { totalElements content { id } }
      }`;
      const pending = server.graphql(document, { projects: variables(w).projects, tasks: variables(w).tasks }, w.key);
      await expect.poll(() => lock.waiting(), { timeout: 5_000, interval: 20 }).toBe(true);
      await removal(w)();
      const later = await createTask(server, w.project.id, { title: unique('after the removal') });
      await lock.release();
      const answer = await pending;
      expect(answer.body.errors, answer.text).toBeUndefined();
      expect(answer.body.data.warm.totalElements).toBe(1);
      expect(answer.body.data.probe, answer.text).toEqual({ totalElements: 0, content: [] });
      expect(answer.text).not.toContain(later.id);
    } catch (error) {
      await lock.release().catch(() => undefined);
      throw error;
    }
  });
});

describe('other changes of access during a running GraphQL document', () => {
  it('an archived organization: the later root field answers no rows, as REST does', async () => {
    const w = await world();
    const answer = await duringDocument(w, 'list', async () => {
      expect((await server.request('DELETE', `/api/organizations/${w.org.id}`)).status).toBe(204);
    });
    expect(answer.body.data.warm.totalElements).toBe(1);
    expectNothing('list', answer);
    expectNothing('nested', await probe(w, 'nested'));
    expect((await rest(w, `/api/projects?filter=${encodeURIComponent(variables(w).projects)}`)).body.totalElements).toBe(0);
    expect((await rest(w, `/api/projects/${w.project.id}`)).status).not.toBe(200);
  });

  const refused = (answer: Answer<{ data?: any; errors?: any[] }>, w: World) => {
    expect(answer.body.errors?.length, answer.text).toBeGreaterThan(0);
    expect(
      answer.body.errors!.every((e) => e.extensions.code === 'UNAUTHENTICATED'),
      answer.text,
    ).toBe(true);
    expect(answer.text).not.toContain(w.project.id);
  };

  it('a revoked key: the later root fields are refused, as REST refuses the key', async () => {
    const w = await world();
    const answer = await duringDocument(w, 'list', async () => {
      expect((await server.request('DELETE', `/api/access-tokens/${w.keyId}`)).status).toBe(204);
    });
    refused(answer, w);
    expect((await rest(w, '/api/account/me')).status).toBe(401);
    expect((await server.graphql(documentOf(`probe: ${SHAPES.item}`), variables(w), w.key)).status).toBe(401);
  });

  it("a deactivated user: the later root fields are refused, as REST refuses the user's key", async () => {
    const w = await world();
    const answer = await duringDocument(w, 'item', async () => {
      expect((await server.request('DELETE', `/api/users/${w.user.id}`)).status).toBe(204);
    });
    refused(answer, w);
    expect((await rest(w, `/api/tasks/${w.task.id}`)).status).toBe(401);
  });
});

describe('a removal from a team during a running export', () => {
  it('holds for the next batch: the rows of the organization stop there', async () => {
    const w = await world();
    // Rows of 600 KB: each batch of the export holds one (batches stop at about 1 MB).
    const large = 'x'.repeat(600_000);
    // More than the connection's buffers hold (a few MB on loopback), however slow the removal below is to commit.
    for (let i = 0; i < 29; i += 1) await createTask(server, w.project.id, { title: unique('large'), description: large });
    const path = `/api/tasks/export?format=ndjson&filter=${encodeURIComponent(`projectId==${w.project.id}`)}`;
    const response = await fetch(server.url + path, { headers: { 'x-api-key': w.key } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // The server waits for the client to take what it wrote: the removal commits between two batches.
    expect((await server.request('DELETE', `/api/team-members/${w.membershipId}`)).status).toBe(204);
    let text = Buffer.from(first.value!).toString('utf8');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += Buffer.from(chunk.value).toString('utf8');
    const lines = text.split('\n').filter((line) => line !== '');
    for (const line of lines) expect(JSON.parse(line).projectId).toBe(w.project.id);
    // Of the thirty rows, those already read or written when the removal committed (at most what the
    // connection's buffers hold) were sent; none of the batches read after it.
    expect(lines.length).toBeLessThan(30);
    const rest = await server.request('GET', path, { key: w.key });
    expect(rest.text).toBe('');
  });
});

describe('item statements', () => {
  it('bind the id asked for: a cached item shape reads no other row', async () => {
    const mine = await world();
    const other = await world();
    const second = await createTask(server, mine.project.id, { title: unique('second') });
    expect((await probed(mine, 'item')).id).toBe(mine.task.id);
    expect(await probed(mine, 'item', second.id)).toEqual({ id: second.id, title: second.title });
    // Another organization's task, through the same cached shape: not the member's.
    expectNothing('item', await probe(mine, 'item', other.task.id));
    expect((await probed(other, 'item', other.task.id)).id).toBe(other.task.id);
  });
});

describe('random changes of access between cached reads (property)', () => {
  type Step =
    | { kind: 'join' | 'leave' | 'archive'; org: number }
    | { kind: 'revoke' | 'deactivate' }
    | { kind: 'read'; org: number; via: 'graphql-list' | 'graphql-item' | 'graphql-nested' | 'rest-list' | 'rest-item' };

  const step: fc.Arbitrary<Step> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constantFrom('join', 'leave', 'archive' as const), org: fc.integer({ min: 0, max: 1 }) }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constantFrom('revoke', 'deactivate' as const) }), weight: 1 },
    {
      arbitrary: fc.record({
        kind: fc.constant('read' as const),
        org: fc.integer({ min: 0, max: 1 }),
        via: fc.constantFrom('graphql-list', 'graphql-item', 'graphql-nested', 'rest-list', 'rest-item' as const),
      }),
      weight: 6,
    },
  ) as fc.Arbitrary<Step>;

  it('never answers a row REST refuses at that moment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 12 }), async (steps) => {
        const first = await world();
        const second = await world();
        // The same user, a member of both organizations through one team each.
        const joined = await server.request('POST', '/api/team-members', {
          body: { teamId: (await server.request('GET', `/api/team-members/${second.membershipId}`)).body.teamId, userId: first.user.id },
        });
        expect(joined.status, joined.text).toBe(201);
        const worlds = [first, { ...second, user: first.user, key: first.key, keyId: first.keyId, membershipId: joined.body.id }];
        const teams = await Promise.all(worlds.map(async (w) => (await server.request('GET', `/api/team-members/${w.membershipId}`)).body.teamId));
        for (const s of steps) {
          const w = worlds[s.kind === 'read' || 'org' in s ? s.org : 0];
          switch (s.kind) {
            case 'join': {
              const added = await server.request('POST', '/api/team-members', { body: { teamId: teams[s.org], userId: w.user.id } });
              if (added.status === 201) w.membershipId = added.body.id;
              break;
            }
            case 'leave':
              await server.request('DELETE', `/api/team-members/${w.membershipId}`);
              break;
            case 'archive':
              await server.request('DELETE', `/api/organizations/${w.org.id}`);
              break;
            case 'revoke':
              await server.request('DELETE', `/api/access-tokens/${first.keyId}`);
              break;
            case 'deactivate':
              await server.request('DELETE', `/api/users/${first.user.id}`);
              break;
            case 'read': {
              // What REST shows at this moment.
              const item = await rest(w, `/api/tasks/${w.task.id}`);
              const readable = item.status === 200;
              if (s.via === 'rest-item') break;
              if (s.via === 'rest-list') {
                const list = await rest(w, `/api/tasks?filter=${encodeURIComponent(variables(w).tasks)}`);
                expect(list.status === 200 && list.body.totalElements === 1).toBe(readable);
                break;
              }
              const shape = s.via === 'graphql-list' ? 'reference' : s.via === 'graphql-item' ? 'item' : 'nested';
              const answer = await probe(w, shape);
              const data = JSON.stringify(answer.body.data ?? null);
              expect(readable ? showsTheRows(shape, answer.body.data?.probe, w) : !data.includes(w.task.id) && !data.includes(w.project.id), answer.text).toBe(
                true,
              );
              break;
            }
          }
        }
      }),
      { numRuns: 12 },
    );
  });
});

/** The statements of one GraphQL request as `key` (credentials already cached), and its answer. */
async function measured(document: string, vars: Record<string, unknown>, key: string) {
  await server.graphqlData('{ me { id } }', undefined, key);
  let answer: Answer<{ data?: any; errors?: any[] }> | undefined;
  const statements = await server.fewestQueries(async () => {
    answer = await server.graphql(document, vars, key);
  });
  return { answer: answer!, statements };
}

/** The same document with its first root field sent to the resolvers (a directive does that). */
const byResolvers = (document: string) => document.replace(/\{ (\w+)(\((?:[^)"]|"[^"]*")*\))? \{/, '{ $1$2 @include(if: true) {');

describe('fields the database does not store', () => {
  it.each([
    ['token', 'query($id: ID!) { accessToken(id: $id) { id tokenPrefix token } }', 'access-tokens'],
    ['token', '{ accessTokens(sort: "name:asc") { content { id token } } }', 'access-tokens'],
    ['signingSecret', 'query($id: ID!) { webhookEndpoint(id: $id) { id url signingSecret } }', 'webhook-endpoints'],
    ['signingSecret', '{ webhookEndpoints(sort: "url:asc") { content { id signingSecret } } }', 'webhook-endpoints'],
  ])('answers %s as the resolvers do: %s, without a failed statement or a warning', async (field, document, path) => {
    const w = await world();
    const id =
      path === 'access-tokens'
        ? w.keyId
        : (await server.request('POST', '/api/webhook-endpoints', { body: { organizationId: w.org.id, url: 'https://hooks.example.com/in' } })).body.id;
    const key = path === 'access-tokens' ? w.key : server.adminKey;
    const warn = vi.spyOn(logger, 'warn');
    const error = vi.spyOn(logger, 'error');
    const inOne = await measured(document, { id }, key);
    const resolved = await measured(byResolvers(document), { id }, key);
    expect(byResolvers(document)).not.toBe(document);
    expect(inOne.answer.body, inOne.answer.text).toEqual(resolved.answer.body);
    expect(inOne.answer.text).toContain(`"${field}":null`);
    // No statement failed and was sent again: the resolvers answer it from the start.
    expect(inOne.statements.length).toBe(resolved.statements.length);
    expect(inOne.statements.some((s) => s.text.includes(`"${field}"`))).toBe(false);
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });
});

describe('a statement cancelled by the statement timeout', () => {
  let impatient: TestServer;
  beforeAll(async () => {
    impatient = await startServer({ statementTimeoutMs: 300 });
  });
  afterAll(() => impatient?.close());

  it('answers SERVICE_UNAVAILABLE (503) with retryAfter and Retry-After, and no other path runs it again', async () => {
    await impatient.graphqlData('{ me { id } }');
    const lock = await holdModels();
    let answer: Answer<{ data?: any; errors?: any[] }> | undefined;
    let statements: { text: string }[] = [];
    try {
      statements = await impatient.recordQueries(async () => {
        answer = await impatient.graphql('{ models { totalElements content { id name } } }');
      });
    } finally {
      await lock.release();
    }
    expect(answer!.body.data ?? null, answer!.text).toBeNull();
    expect(answer!.body.errors).toHaveLength(1);
    expect(answer!.body.errors![0]).toMatchObject({
      path: ['models'],
      extensions: { code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: expect.any(Number) },
    });
    // As REST says it: the header carries the wait.
    expect(answer!.headers.get('retry-after')).toBe(String(answer!.body.errors![0].extensions.retryAfter));
    // The one statement, cancelled; the resolvers did not send theirs. (Only the reads of the models
    // count: another suite's change of access, in the shared database, may make this server look up
    // the caller's key again meanwhile.)
    expect(statements.filter((statement) => statement.text.includes('model_catalog_entry'))).toHaveLength(1);
  });
});
