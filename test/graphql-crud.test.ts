import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix } from '../src/modules/access/api-keys';
import { AccessToken } from '../src/entities';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** Runs a GraphQL operation that must succeed and returns its data. */
const gql = <T = any>(query: string, variables?: Record<string, unknown>): Promise<T> => server.graphqlData<T>(query, variables);

/** Runs a GraphQL operation that must fail and returns its first error (and the data it left). */
async function gqlError(query: string, variables?: Record<string, unknown>) {
  const answer = await server.graphql(query, variables);
  expect(answer.body?.errors?.length, answer.text).toBeGreaterThan(0);
  return { error: answer.body.errors![0], data: answer.body.data, status: answer.status };
}

function expectCode(error: any, code: string, status: number) {
  expect(error.extensions, JSON.stringify(error)).toMatchObject({ code, status });
  expect(typeof error.message).toBe('string');
  expect(JSON.stringify(error)).not.toMatch(/\n\s+at /); // never a stack trace
}

const ORG_FIELDS = `id uuid name slug description searchText changeSequence createdOn updatedOn organizationStatus publicAccess hasImage
  supportAccess supportAccessExpiresAt enterpriseOrganization properties features authGroupLink memory billingCustomerId archived`;

const TASK_FIELDS = `id title description priority statusSlug projectId dueDate properties documentFamilyIds changeSequence locked deleted
  createdOn updatedOn`;

const CREATE_ORG = `mutation($input: OrganizationCreateRequest!) { createOrganization(input: $input) { ${ORG_FIELDS} } }`;
const UPDATE_ORG = `mutation($id: ID!, $input: OrganizationUpdateRequest!) { updateOrganization(id: $id, input: $input) { ${ORG_FIELDS} } }`;
const GET_ORG = `query($id: ID!) { organization(id: $id) { ${ORG_FIELDS} } }`;
const CREATE_TASK = `mutation($input: TaskCreateRequest!) { createTask(input: $input) { ${TASK_FIELDS} } }`;
const UPDATE_TASK = `mutation($id: ID!, $input: TaskUpdateRequest!) { updateTask(id: $id, input: $input) { ${TASK_FIELDS} } }`;
const GET_TASK = `query($id: ID!) { task(id: $id) { ${TASK_FIELDS} } }`;

async function createOrgGql(input: Record<string, unknown> = {}) {
  const data = await gql(CREATE_ORG, { input: { name: unique('GqlOrg'), ...input } });
  return data.createOrganization;
}

describe('GraphQL credentials', () => {
  it('answers a request without credentials with HTTP 401 and an UNAUTHENTICATED error', async () => {
    const answer = await server.graphql('{ organizations { totalElements } }', undefined, null);
    expect(answer.status).toBe(401);
    expect(answer.body?.errors?.[0]?.extensions?.code, answer.text).toBe('UNAUTHENTICATED');
    expect(answer.body?.errors?.[0]?.extensions?.status, answer.text).toBe(401);
    expect(answer.body?.data ?? null).toBeNull();
  });

  it('answers a request with an unknown API key with HTTP 401 and an UNAUTHENTICATED error', async () => {
    const answer = await server.graphql('{ organizations { totalElements } }', undefined, 'not-a-real-key');
    expect(answer.status).toBe(401);
    expect(answer.body?.errors?.[0]?.extensions?.code, answer.text).toBe('UNAUTHENTICATED');
  });

  it('serves the same query to a caller with a valid key', async () => {
    const data = await gql('{ organizations(pageSize: 1) { size number } }');
    expect(data.organizations).toEqual({ size: 1, number: 0 });
  });
});

describe('GraphQL request errors', () => {
  it('answers a syntax error or an unknown field with BAD_REQUEST (400)', async () => {
    const syntax = await server.graphql('{ organizations { totalElements ');
    expect(syntax.body.errors?.[0]?.extensions, syntax.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    const unknownField = await server.graphql('{ organizations { nonsense } }');
    expect(unknownField.body.errors?.[0]?.extensions, unknownField.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    const unknownArgument = await server.graphql('{ organizations(limit: 3) { totalElements } }');
    expect(unknownArgument.body.errors?.[0]?.extensions, unknownArgument.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});

describe('GraphQL tenancy', () => {
  it("shows a member only their organizations' rows and refuses other organizations' rows with FORBIDDEN (403)", async () => {
    const prefix = unique('Tenancy');
    const mine = await createOrganization(server, { name: `${prefix}-mine` });
    const theirs = await createOrganization(server, { name: `${prefix}-theirs` });
    const myProject = await createProject(server, mine.id, { name: `${prefix}-p` });
    const theirProject = await createProject(server, theirs.id, { name: `${prefix}-p` });
    const user = await server.request('POST', '/api/users', { body: { email: `${prefix}@example.com`.toLowerCase() } });
    const team = await server.request('POST', '/api/teams', { body: { organizationId: mine.id, name: 'Members' } });
    expect((await server.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: user.body.id } })).status).toBe(201);
    const key = generateApiKey();
    const em = server.orm.em.fork();
    const now = new Date();
    em.create(AccessToken, {
      id: randomUUID(),
      uuid: randomUUID(),
      createdOn: now,
      updatedOn: now,
      changeSequence: 0,
      name: 'graphql-tenancy',
      userId: user.body.id,
      tokenHash: hashApiKey(key),
      tokenPrefix: keyPrefix(key),
    });
    await em.flush();
    const asMember = (query: string, variables?: Record<string, unknown>) => server.graphql(query, variables, key);

    const lists = await asMember(
      `query($o: String, $p: String) { organizations(filter: $o) { totalElements content { id } } projects(filter: $p) { totalElements content { id organization { id } } } }`,
      { o: `name=like='${prefix}*'`, p: `name=='${prefix}-p'` },
    );
    expect(lists.body.errors, lists.text).toBeUndefined();
    expect(lists.body.data).toEqual({
      organizations: { totalElements: 1, content: [{ id: mine.id }] },
      projects: { totalElements: 1, content: [{ id: myProject.id, organization: { id: mine.id } }] },
    });

    const own = await asMember(`query($id: ID!) { project(id: $id) { id } }`, { id: myProject.id });
    expect(own.body.data?.project).toEqual({ id: myProject.id });
    const other = await asMember(`query($id: ID!) { project(id: $id) { id } }`, { id: theirProject.id });
    expect(other.body.errors?.[0]?.extensions, other.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    const write = await asMember(`mutation($id: ID!) { updateProject(id: $id, input: { description: "mine now" }) { id } }`, { id: theirProject.id });
    expect(write.body.errors?.[0]?.extensions, write.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect((await server.request('GET', `/api/projects/${theirProject.id}`)).body.description).toBe('');
  });
});

describe('GraphQL create and read', () => {
  it('creates an organization with changeSequence 0, server fields and defaults, and reads it back by id', async () => {
    const name = unique('GqlOrg');
    const created = (await gql(CREATE_ORG, { input: { name, description: 'First' } })).createOrganization;
    expect(created).toMatchObject({
      name,
      slug: name.toLowerCase(),
      description: 'First',
      changeSequence: 0,
      organizationStatus: 'ACTIVE',
      publicAccess: false,
      hasImage: false,
      supportAccessExpiresAt: null,
    });
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.uuid).not.toBe(created.id);
    expect(created.createdOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.archived).toBe(false);

    const read = (await gql(GET_ORG, { id: created.id })).organization;
    expect(read).toEqual(created);
  });

  it('persists explicit false and 0 on create, also over a server-side default', async () => {
    const email = `${unique('gql-user')}@example.com`.toLowerCase();
    const user = (
      await gql(`mutation($input: PlatformUserCreateRequest!) { createPlatformUser(input: $input) { id email active invited changeSequence } }`, {
        input: { email, active: false },
      })
    ).createPlatformUser;
    expect(user).toMatchObject({ email, active: false, invited: false, changeSequence: 0 });
    const read = (await gql(`query($id: ID!) { platformUser(id: $id) { id active } }`, { id: user.id })).platformUser;
    expect(read).toEqual({ id: user.id, active: false });

    const organization = await createOrgGql({ organizationStatus: 'SUSPENDED', supportAccess: false });
    expect(organization.organizationStatus).toBe('SUSPENDED');
    const project = await createProject(server, organization.id);
    const task = (await gql(CREATE_TASK, { input: { projectId: project.id, priority: 0, title: '' } })).createTask;
    expect(task).toMatchObject({ priority: 0, title: '', changeSequence: 0, locked: false, deleted: false, statusSlug: null });
  });

  it('returns null for an unknown id and BAD_REQUEST (400) for an id that is not a UUID', async () => {
    const data = await gql(`query($id: ID!) { organization(id: $id) { id } task(id: $id) { id } teamMember(id: $id) { id } }`, { id: randomUUID() });
    expect(data).toEqual({ organization: null, task: null, teamMember: null });

    const { error } = await gqlError(`query { organization(id: "not-a-uuid") { id } }`);
    expectCode(error, 'BAD_REQUEST', 400);
    const update = await gqlError(`mutation { updateOrganization(id: "12345", input: { description: "x" }) { id } }`);
    expectCode(update.error, 'BAD_REQUEST', 400);
    const remove = await gqlError(`mutation { deleteTask(id: "12345") }`);
    expectCode(remove.error, 'BAD_REQUEST', 400);
  });

  it('refuses null for a non-nullable field on create with BAD_REQUEST and creates nothing', async () => {
    const name = unique('GqlNullOrg');
    const { error } = await gqlError(CREATE_ORG, { input: { name, description: null } });
    expectCode(error, 'BAD_REQUEST', 400);
    const list = await gql(`query($f: String) { organizations(filter: $f) { totalElements } }`, { f: `name=='${name}'` });
    expect(list.organizations.totalElements).toBe(0);
  });

  it('refuses a create that misses a required field with BAD_REQUEST', async () => {
    const { error } = await gqlError(`mutation { createTask(input: { title: "x" }) { id } }`);
    expectCode(error, 'BAD_REQUEST', 400);
  });

  it('refuses a value of the wrong type or outside an enum with BAD_REQUEST', async () => {
    const organization = await createOrganization(server);
    const wrongEnum = await gqlError(`mutation($o: ID!) { createTaskStatus(input: { organizationId: $o, label: "x", statusType: TODO }) { id } }`, {
      o: organization.id,
    });
    expectCode(wrongEnum.error, 'BAD_REQUEST', 400);
    const wrongType = await gqlError(`mutation($input: OrganizationCreateRequest!) { createOrganization(input: $input) { id } }`, {
      input: { name: unique('GqlOrg'), publicAccess: 'yes' },
    });
    expectCode(wrongType.error, 'BAD_REQUEST', 400);
    const badSlug = await gqlError(CREATE_ORG, { input: { name: unique('GqlOrg'), slug: 'no spaces allowed' } });
    expectCode(badSlug.error, 'BAD_REQUEST', 400);
  });

  it('creates a task status with the named enum, defaulting statusType to OPEN', async () => {
    const organization = await createOrganization(server);
    const data = await gql(
      `mutation($o: ID!) {
        open: createTaskStatus(input: { organizationId: $o, label: "To do" }) { id slug label statusType organizationId }
        done: createTaskStatus(input: { organizationId: $o, label: "Done", statusType: DONE, sequence: 0 }) { id slug statusType sequence }
      }`,
      { o: organization.id },
    );
    expect(data.open).toMatchObject({ slug: 'to-do', label: 'To do', statusType: 'OPEN', organizationId: organization.id });
    expect(data.done).toMatchObject({ slug: 'done', statusType: 'DONE', sequence: 0 });
  });
});

describe('GraphQL update semantics', () => {
  it('writes exactly the fields sent: omitted fields are unchanged, null clears nullable fields', async () => {
    const created = await createOrgGql({
      description: 'Keep me',
      publicAccess: true,
      supportAccessExpiresAt: '2030-01-02T03:04:05.678Z',
      enterpriseOrganization: true,
      properties: { tier: 'gold', seats: 3 },
      features: { beta: true },
    });
    expect(created).toMatchObject({
      publicAccess: true,
      supportAccessExpiresAt: '2030-01-02T03:04:05.678Z',
      enterpriseOrganization: true,
      properties: { tier: 'gold', seats: 3 },
      features: { beta: true },
    });

    const renamed = (await gql(UPDATE_ORG, { id: created.id, input: { name: `${created.name}-renamed` } })).updateOrganization;
    expect(renamed).toMatchObject({
      name: `${created.name}-renamed`,
      description: 'Keep me',
      slug: created.slug,
      publicAccess: true,
      supportAccessExpiresAt: '2030-01-02T03:04:05.678Z',
      enterpriseOrganization: true,
      properties: { tier: 'gold', seats: 3 },
      features: { beta: true },
      changeSequence: 1,
    });

    const cleared = (
      await gql(UPDATE_ORG, { id: created.id, input: { supportAccessExpiresAt: null, enterpriseOrganization: null, properties: null, publicAccess: false } })
    ).updateOrganization;
    expect(cleared).toMatchObject({
      supportAccessExpiresAt: null,
      enterpriseOrganization: null,
      properties: null,
      publicAccess: false,
      features: { beta: true },
    });
    expect(cleared.changeSequence).toBe(2);

    const read = (await gql(GET_ORG, { id: created.id })).organization;
    expect(read).toEqual(cleared);
  });

  it('persists an explicit 0 and false on update', async () => {
    const organization = await createOrganization(server);
    const project = await createProject(server, organization.id);
    const task = (await gql(CREATE_TASK, { input: { projectId: project.id, priority: 7, title: 'Zero me' } })).createTask;
    expect(task.priority).toBe(7);
    const updated = (await gql(UPDATE_TASK, { id: task.id, input: { priority: 0 } })).updateTask;
    expect(updated).toMatchObject({ priority: 0, title: 'Zero me', changeSequence: 1 });
    expect((await gql(GET_TASK, { id: task.id })).task.priority).toBe(0);

    const org = await createOrgGql({ hasImage: true, supportAccess: true });
    const flipped = (await gql(UPDATE_ORG, { id: org.id, input: { hasImage: false } })).updateOrganization;
    expect(flipped).toMatchObject({ hasImage: false, supportAccess: true, changeSequence: 1 });
  });

  it('refuses null for a non-nullable field with BAD_REQUEST and leaves the record unchanged', async () => {
    const created = await createOrgGql({ description: 'Unchanged' });
    for (const input of [{ name: null }, { description: null }, { hasImage: null }, { name: 'ok', memory: null }]) {
      const { error } = await gqlError(UPDATE_ORG, { id: created.id, input });
      expectCode(error, 'BAD_REQUEST', 400);
    }
    const read = (await gql(GET_ORG, { id: created.id })).organization;
    expect(read).toEqual(created);
  });

  it('counts changeSequence from 0, +1 per change, not on an update that changes nothing', async () => {
    const created = await createOrgGql({ description: 'v0' });
    expect(created.changeSequence).toBe(0);
    const first = (await gql(UPDATE_ORG, { id: created.id, input: { description: 'v1' } })).updateOrganization;
    expect(first.changeSequence).toBe(1);
    const second = (await gql(UPDATE_ORG, { id: created.id, input: { description: 'v2', hasImage: true } })).updateOrganization;
    expect(second.changeSequence).toBe(2);

    const same = (await gql(UPDATE_ORG, { id: created.id, input: { description: 'v2', hasImage: true, name: created.name } })).updateOrganization;
    expect(same.changeSequence).toBe(2);
    expect(same.updatedOn).toBe(second.updatedOn);
    const empty = (await gql(UPDATE_ORG, { id: created.id, input: {} })).updateOrganization;
    expect(empty.changeSequence).toBe(2);

    const sequence = await server.request('GET', `/api/organizations/${created.id}/sequence`);
    expect(sequence.body).toBe(2);
  });

  it('enforces optimistic locking: the current changeSequence (also 0) passes, a stale one is CONFLICT with currentChangeSequence', async () => {
    const created = await createOrgGql({ description: 'lock' });
    const atZero = (await gql(UPDATE_ORG, { id: created.id, input: { changeSequence: 0, description: 'lock-1' } })).updateOrganization;
    expect(atZero.changeSequence).toBe(1);

    const { error } = await gqlError(UPDATE_ORG, { id: created.id, input: { changeSequence: 0, description: 'stale write' } });
    expectCode(error, 'CONFLICT', 409);
    expect(error.extensions.currentChangeSequence).toBe(1);

    const ahead = await gqlError(UPDATE_ORG, { id: created.id, input: { changeSequence: 5, description: 'future write' } });
    expectCode(ahead.error, 'CONFLICT', 409);
    expect(ahead.error.extensions.currentChangeSequence).toBe(1);

    const read = (await gql(GET_ORG, { id: created.id })).organization;
    expect(read).toMatchObject({ description: 'lock-1', changeSequence: 1 });

    const unlocked = (await gql(UPDATE_ORG, { id: created.id, input: { changeSequence: null, description: 'no lock' } })).updateOrganization;
    expect(unlocked).toMatchObject({ description: 'no lock', changeSequence: 2 });
  });

  it('treats the same instant and the same JSON content as no change', async () => {
    const created = await createOrgGql({ supportAccessExpiresAt: '2030-01-02T03:04:05.678Z', properties: { a: 1, b: [1, 2] } });
    const same = (
      await gql(UPDATE_ORG, { id: created.id, input: { supportAccessExpiresAt: '2030-01-02T04:04:05.678+01:00', properties: { b: [1, 2], a: 1 } } })
    ).updateOrganization;
    expect(same).toMatchObject({ changeSequence: 0, supportAccessExpiresAt: '2030-01-02T03:04:05.678Z' });
    const changed = (await gql(UPDATE_ORG, { id: created.id, input: { properties: { a: 1, b: [2, 1] } } })).updateOrganization;
    expect(changed).toMatchObject({ changeSequence: 1, properties: { a: 1, b: [2, 1] } });
  });

  it('applies the project slug rules: a colliding slug gets a numeric suffix, re-saving its own slug changes nothing', async () => {
    const organization = await createOrganization(server);
    const CREATE_PROJECT = `mutation($o: ID!, $n: String!, $s: String) { createProject(input: { organizationId: $o, name: $n, slug: $s }) { id slug changeSequence } }`;
    const first = (await gql(CREATE_PROJECT, { o: organization.id, n: 'Same Name' })).createProject;
    const second = (await gql(CREATE_PROJECT, { o: organization.id, n: 'Same Name' })).createProject;
    const third = (await gql(CREATE_PROJECT, { o: organization.id, n: 'Other', s: 'Same-Name' })).createProject;
    expect([first.slug, second.slug, third.slug]).toEqual(['same-name', 'same-name-1', 'same-name-2']);

    const UPDATE_PROJECT = `mutation($id: ID!, $input: ProjectUpdateRequest!) { updateProject(id: $id, input: $input) { id slug changeSequence } }`;
    const resaved = (await gql(UPDATE_PROJECT, { id: second.id, input: { slug: 'same-name-1' } })).updateProject;
    expect(resaved).toEqual({ id: second.id, slug: 'same-name-1', changeSequence: 0 });
    const collided = (await gql(UPDATE_PROJECT, { id: third.id, input: { slug: 'same-name' } })).updateProject;
    expect(collided).toEqual({ id: third.id, slug: 'same-name-2', changeSequence: 0 });
    const moved = (await gql(UPDATE_PROJECT, { id: third.id, input: { slug: 'fresh' } })).updateProject;
    expect(moved).toEqual({ id: third.id, slug: 'fresh', changeSequence: 1 });
  });

  it('answers NOT_FOUND (404) for an update of a well-formed id that matches nothing', async () => {
    const { error } = await gqlError(UPDATE_ORG, { id: randomUUID(), input: { description: 'nobody' } });
    expectCode(error, 'NOT_FOUND', 404);
  });
});

describe('GraphQL uniqueness and references', () => {
  it('answers CONFLICT (409) for a duplicate organization slug', async () => {
    const first = await createOrgGql();
    const { error } = await gqlError(CREATE_ORG, { input: { name: unique('Other'), slug: first.slug } });
    expectCode(error, 'CONFLICT', 409);
    const second = await createOrgGql();
    const rename = await gqlError(UPDATE_ORG, { id: second.id, input: { slug: first.slug.toUpperCase() } });
    expectCode(rename.error, 'CONFLICT', 409);
    expect((await gql(GET_ORG, { id: second.id })).organization.slug).toBe(second.slug);
  });

  it('answers CONFLICT (409) for a duplicate user email, label name and team membership', async () => {
    const email = `${unique('dup')}@example.com`.toLowerCase();
    const CREATE_USER = `mutation($input: PlatformUserCreateRequest!) { createPlatformUser(input: $input) { id } }`;
    const user = (await gql(CREATE_USER, { input: { email } })).createPlatformUser;
    expectCode((await gqlError(CREATE_USER, { input: { email: email.toUpperCase() } })).error, 'CONFLICT', 409);

    const organization = await createOrganization(server);
    const CREATE_LABEL = `mutation($o: ID!, $n: String!) { createLabel(input: { organizationId: $o, name: $n }) { id name } }`;
    await gql(CREATE_LABEL, { o: organization.id, n: 'urgent' });
    expectCode((await gqlError(CREATE_LABEL, { o: organization.id, n: 'urgent' })).error, 'CONFLICT', 409);

    const team = (await gql(`mutation($o: ID!) { createTeam(input: { organizationId: $o, name: "Reviewers" }) { id } }`, { o: organization.id })).createTeam;
    const CREATE_MEMBER = `mutation($t: ID!, $u: ID!) { createTeamMember(input: { teamId: $t, userId: $u }) { id teamId userId changeSequence } }`;
    const member = (await gql(CREATE_MEMBER, { t: team.id, u: user.id })).createTeamMember;
    expect(member).toMatchObject({ teamId: team.id, userId: user.id, changeSequence: 0 });
    expectCode((await gqlError(CREATE_MEMBER, { t: team.id, u: user.id })).error, 'CONFLICT', 409);
  });

  it('answers BAD_REQUEST (400) for a reference to a record that does not exist', async () => {
    const missing = randomUUID();
    const project = await gqlError(`mutation($o: ID!) { createProject(input: { name: "Orphan", organizationId: $o }) { id } }`, { o: missing });
    expectCode(project.error, 'BAD_REQUEST', 400);
    const task = await gqlError(CREATE_TASK, { input: { projectId: missing } });
    expectCode(task.error, 'BAD_REQUEST', 400);

    const organization = await createOrganization(server);
    const realProject = await createProject(server, organization.id);
    const owner = await gqlError(`mutation($id: ID!, $u: ID!) { updateProject(id: $id, input: { ownerId: $u }) { id } }`, { id: realProject.id, u: missing });
    expectCode(owner.error, 'BAD_REQUEST', 400);
    const team = (await gql(`mutation($o: ID!) { createTeam(input: { organizationId: $o, name: "T" }) { id } }`, { o: organization.id })).createTeam;
    const member = await gqlError(`mutation($t: ID!, $u: ID!) { createTeamMember(input: { teamId: $t, userId: $u }) { id } }`, { t: team.id, u: missing });
    expectCode(member.error, 'BAD_REQUEST', 400);

    const notUuid = await gqlError(CREATE_TASK, { input: { projectId: 'project-1' } });
    expectCode(notUuid.error, 'BAD_REQUEST', 400);
  });
});

describe('GraphQL delete', () => {
  it('deletes a task: true, then the item is null and the list no longer has it; a second delete is NOT_FOUND', async () => {
    const organization = await createOrganization(server);
    const project = await createProject(server, organization.id);
    const keep = await createTask(server, project.id, { title: 'keep' });
    const gone = await createTask(server, project.id, { title: 'gone' });

    const data = await gql(`mutation($id: ID!) { deleteTask(id: $id) }`, { id: gone.id });
    expect(data.deleteTask).toBe(true);
    expect((await gql(GET_TASK, { id: gone.id })).task).toBeNull();
    const list = await gql(`query($f: String) { tasks(filter: $f) { totalElements content { id } } }`, { f: `projectId==${project.id}` });
    expect(list.tasks).toEqual({ totalElements: 1, content: [{ id: keep.id }] });
    expect((await server.request('GET', `/api/tasks/${gone.id}`)).status).toBe(404);

    const again = await gqlError(`mutation($id: ID!) { deleteTask(id: $id) }`, { id: gone.id });
    expectCode(again.error, 'NOT_FOUND', 404);
  });

  it('deletes an organization and a label: true, then the item is null', async () => {
    const organization = await createOrgGql();
    const label = (await gql(`mutation($o: ID!) { createLabel(input: { organizationId: $o, name: "tmp" }) { id } }`, { o: organization.id })).createLabel;
    expect((await gql(`mutation($id: ID!) { deleteLabel(id: $id) }`, { id: label.id })).deleteLabel).toBe(true);
    expect((await gql(`query($id: ID!) { label(id: $id) { id } }`, { id: label.id })).label).toBeNull();

    expect((await gql(`mutation($id: ID!) { deleteOrganization(id: $id) }`, { id: organization.id })).deleteOrganization).toBe(true);
    expect((await gql(GET_ORG, { id: organization.id })).organization).toBeNull();
    const list = await gql(`query($f: String) { organizations(filter: $f) { totalElements } }`, { f: `name=='${organization.name}'` });
    expect(list.organizations.totalElements).toBe(0);
  });

  it('answers NOT_FOUND (404) when deleting a well-formed id that matches nothing', async () => {
    const { error } = await gqlError(`mutation($id: ID!) { deleteLabel(id: $id) }`, { id: randomUUID() });
    expectCode(error, 'NOT_FOUND', 404);
  });
});

describe('one model behind REST and GraphQL', () => {
  it('serves a REST-created project and task over GraphQL with the same values', async () => {
    const organization = await createOrganization(server, { description: 'made over REST' });
    const project = await createProject(server, organization.id, { description: 'REST project', color: '#123456' });
    const task = await createTask(server, project.id, { title: 'REST task', priority: 3, properties: { source: 'rest' } });

    const data = await gql(
      `query($o: ID!, $p: ID!, $t: ID!) {
        organization(id: $o) { id name slug description changeSequence createdOn }
        project(id: $p) { id name slug description color organizationId changeSequence createdOn updatedOn }
        task(id: $t) { id title priority projectId properties changeSequence createdOn }
      }`,
      { o: organization.id, p: project.id, t: task.id },
    );
    expect(data.organization).toEqual({
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      description: 'made over REST',
      changeSequence: 0,
      createdOn: organization.createdOn,
    });
    expect(data.project).toEqual({
      id: project.id,
      name: project.name,
      slug: project.slug,
      description: 'REST project',
      color: '#123456',
      organizationId: organization.id,
      changeSequence: 0,
      createdOn: project.createdOn,
      updatedOn: project.updatedOn,
    });
    expect(data.task).toEqual({
      id: task.id,
      title: 'REST task',
      priority: 3,
      projectId: project.id,
      properties: { source: 'rest' },
      changeSequence: 0,
      createdOn: task.createdOn,
    });
  });

  it('serves GraphQL-created and -updated records over REST', async () => {
    const organization = await createOrgGql({ description: 'made over GraphQL', properties: { a: 1 } });
    const rest = await server.request('GET', `/api/organizations/${organization.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      description: 'made over GraphQL',
      properties: { a: 1 },
      changeSequence: 0,
      createdOn: organization.createdOn,
    });

    await gql(UPDATE_ORG, { id: organization.id, input: { description: 'changed over GraphQL' } });
    const after = await server.request('GET', `/api/organizations/${organization.id}`);
    expect(after.body).toMatchObject({ description: 'changed over GraphQL', changeSequence: 1 });

    const put = await server.request('PUT', `/api/organizations/${organization.id}`, { body: { description: 'changed over REST', changeSequence: 1 } });
    expect(put.status, put.text).toBe(200);
    expect((await gql(GET_ORG, { id: organization.id })).organization).toMatchObject({ description: 'changed over REST', changeSequence: 2 });

    const removed = await server.request('DELETE', `/api/organizations/${organization.id}`);
    expect(removed.status).toBe(204);
    expect((await gql(GET_ORG, { id: organization.id })).organization).toBeNull();
  });
});

describe('GraphQL lists: paging, filter, sort and query', () => {
  let organization: any;
  let project: any;
  let otherProject: any;
  let tasks: any[];
  const LIST_TASKS = `query($page: Int, $pageSize: Int, $filter: String, $query: String, $sort: String) {
    tasks(page: $page, pageSize: $pageSize, filter: $filter, query: $query, sort: $sort) {
      totalElements totalPages number size numberOfElements first last
      content { id title priority statusSlug description projectId }
    }
  }`;
  const list = async (variables: Record<string, unknown>) => (await gql(LIST_TASKS, variables)).tasks;
  const listError = async (variables: Record<string, unknown>) => (await gqlError(LIST_TASKS, variables)).error;

  beforeAll(async () => {
    organization = await createOrganization(server);
    project = await createProject(server, organization.id, { name: unique('ListProject') });
    otherProject = await createProject(server, organization.id, { name: unique('OtherProject') });
    const specs = Array.from({ length: 12 }, (_, i) => ({
      title: `Task ${String(i).padStart(2, '0')}`,
      priority: i % 4,
      statusSlug: ['open', 'done', 'blocked', null][i % 4],
      description: i === 5 ? 'contains the word Zanzibar' : `plain ${i}`,
    }));
    const mutation = `mutation($p: ID!) { ${specs
      .map(
        (s, i) =>
          `t${i}: createTask(input: { projectId: $p, title: "${s.title}", priority: ${s.priority}, statusSlug: ${s.statusSlug === null ? 'null' : `"${s.statusSlug}"`}, description: "${s.description}" }) { id title priority statusSlug }`,
      )
      .join('\n')} }`;
    const data = await gql(mutation, { p: project.id });
    tasks = specs.map((_, i) => data[`t${i}`]);
    await createTask(server, otherProject.id, { title: 'Task 00', priority: 3, statusSlug: 'open' });
  });

  const own = () => `projectId==${project.id}`;

  it('pages 0-indexed with a default pageSize of 10 and the page summary fields', async () => {
    const first = await list({ filter: own() });
    expect(first).toMatchObject({ totalElements: 12, totalPages: 2, number: 0, size: 10, numberOfElements: 10, first: true, last: false });
    expect(first.content.map((t: any) => t.id)).toEqual(tasks.slice(0, 10).map((t) => t.id));

    const pages = [];
    for (let page = 0; page < 3; page += 1) pages.push(await list({ filter: own(), page, pageSize: 5 }));
    expect(pages.map((p) => [p.number, p.numberOfElements, p.first, p.last, p.totalPages, p.size])).toEqual([
      [0, 5, true, false, 3, 5],
      [1, 5, false, false, 3, 5],
      [2, 2, false, true, 3, 5],
    ]);
    expect(pages.flatMap((p) => p.content.map((t: any) => t.id))).toEqual(tasks.map((t) => t.id));

    const beyond = await list({ filter: own(), page: 7, pageSize: 5 });
    expect(beyond).toMatchObject({ totalElements: 12, number: 7, numberOfElements: 0, content: [] });

    const max = await list({ filter: own(), pageSize: 100 });
    expect(max).toMatchObject({ size: 100, numberOfElements: 12, first: true, last: true, totalPages: 1 });
  });

  it('refuses page and pageSize out of range with BAD_REQUEST (400)', async () => {
    for (const variables of [{ pageSize: 101 }, { pageSize: 0 }, { pageSize: -1 }, { page: -1 }]) {
      expectCode(await listError({ filter: own(), ...variables }), 'BAD_REQUEST', 400);
    }
    const organizationsPage = await gqlError(`{ organizations(pageSize: 1000) { totalElements } }`);
    expectCode(organizationsPage.error, 'BAD_REQUEST', 400);
  });

  it('filters with the RSQL form (; and ,) and the word form (and, or, parentheses)', async () => {
    const rsql = await list({ filter: `${own()};priority>=2;statusSlug=='blocked'`, pageSize: 100 });
    expect(rsql.content.map((t: any) => t.title)).toEqual(['Task 02', 'Task 06', 'Task 10']);

    const or = await list({ filter: `${own()};(statusSlug=='open',statusSlug=='done')`, pageSize: 100 });
    expect(or.totalElements).toBe(6);
    expect(or.content.every((t: any) => t.statusSlug === 'open' || t.statusSlug === 'done')).toBe(true);

    const words = await list({ filter: `${own()} and (priority>2 or statusSlug=in=('open','done'))`, pageSize: 100 });
    expect(words.content.map((t: any) => t.title)).toEqual(tasks.filter((t) => t.priority > 2 || ['open', 'done'].includes(t.statusSlug)).map((t) => t.title));
    expect(words.totalElements).toBe(9);

    const mixed = await list({ filter: `title=='Task 03' and ${own()};priority==3`, pageSize: 100 });
    expect(mixed.content.map((t: any) => t.id)).toEqual([tasks[3].id]);
  });

  it('filters with =like= (* wildcard), =in=, != and =isnull=', async () => {
    const like = await list({ filter: `${own()};title=like='Task 1*'`, pageSize: 100 });
    expect(like.content.map((t: any) => t.title)).toEqual(['Task 10', 'Task 11']);
    const isNull = await list({ filter: `${own()};statusSlug=isnull=true`, pageSize: 100 });
    expect(isNull.content.map((t: any) => t.title)).toEqual(['Task 03', 'Task 07', 'Task 11']);
    const notNull = await list({ filter: `${own()};statusSlug=isnull=false;statusSlug!='open'`, pageSize: 100 });
    expect(notNull.totalElements).toBe(6);
  });

  it('filters along dotted relation paths', async () => {
    const byProjectName = await list({ filter: `project.name=='${project.name}'`, pageSize: 100 });
    expect(byProjectName.totalElements).toBe(12);
    const byOrganization = await list({ filter: `project.organization.slug=='${organization.slug}';title=='Task 00'`, pageSize: 100 });
    expect(byOrganization.content.map((t: any) => t.projectId).sort()).toEqual([project.id, otherProject.id].sort());

    const projects = await gql(`query($f: String) { projects(filter: $f, sort: "name:asc") { totalElements content { id } } }`, {
      f: `organization.id==${organization.id}`,
    });
    // ListProject-... sorts before OtherProject-...
    expect(projects.projects.content.map((p: any) => p.id)).toEqual([project.id, otherProject.id]);
  });

  it('sorts by several fields and directions', async () => {
    const sorted = await list({ filter: own(), sort: 'priority:desc;title:asc', pageSize: 100 });
    const expected = [...tasks].sort((a, b) => b.priority - a.priority || a.title.localeCompare(b.title));
    expect(sorted.content.map((t: any) => t.title)).toEqual(expected.map((t) => t.title));

    const descending = await list({ filter: own(), sort: 'title:desc', pageSize: 3 });
    expect(descending.content.map((t: any) => t.title)).toEqual(['Task 11', 'Task 10', 'Task 09']);
    const defaultAsc = await list({ filter: own(), sort: 'title', pageSize: 2 });
    expect(defaultAsc.content.map((t: any) => t.title)).toEqual(['Task 00', 'Task 01']);
  });

  it('searches free text with query', async () => {
    const found = await list({ filter: own(), query: 'zanzibar' });
    expect(found.content.map((t: any) => t.id)).toEqual([tasks[5].id]);
    const byTitle = await list({ filter: own(), query: 'Task 07' });
    expect(byTitle.content.map((t: any) => t.id)).toEqual([tasks[7].id]);

    const orgs = await gql(`query($q: String) { organizations(query: $q) { totalElements content { id } } }`, { q: organization.name.toUpperCase() });
    expect(orgs.organizations.content.map((o: any) => o.id)).toEqual([organization.id]);
  });

  it('refuses unknown filter or sort fields and malformed expressions with BAD_REQUEST (400)', async () => {
    for (const variables of [
      { filter: `nonsense=='x'` },
      { filter: `project.nonsense=='x'` },
      { filter: `${own()};priority=='high'` },
      { filter: `title==` },
      { filter: `properties=='x'` },
      { sort: 'nonsense:asc' },
      { sort: 'title:sideways' },
      { sort: 'project.nonsense' },
    ]) {
      const error = await listError(variables);
      expectCode(error, 'BAD_REQUEST', 400);
    }
  });

  it('lists users, team members and task statuses under their collection names', async () => {
    const email = `${unique('lister')}@example.com`.toLowerCase();
    const user = await server.request('POST', '/api/users', { body: { email, firstName: 'Lister' } });
    expect(user.status, user.text).toBe(201);
    const team = await server.request('POST', '/api/teams', { body: { organizationId: organization.id, name: 'Listers' } });
    const member = await server.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId: user.body.id } });
    expect(member.status, member.text).toBe(201);
    const status = await server.request('POST', '/api/task-statuses', {
      body: { organizationId: organization.id, label: 'In review', statusType: 'IN_PROGRESS' },
    });
    expect(status.status, status.text).toBe(201);

    const data = await gql(
      `query($email: String!, $team: String!, $org: String!) {
        users(filter: $email) { totalElements content { id email firstName } }
        teamMembers(filter: $team) { totalElements content { id teamId userId } }
        taskStatuses(filter: $org) { totalElements content { id slug statusType } }
      }`,
      { email: `email=='${email}'`, team: `teamId==${team.body.id}`, org: `organizationId==${organization.id}` },
    );
    expect(data.users).toEqual({ totalElements: 1, content: [{ id: user.body.id, email, firstName: 'Lister' }] });
    expect(data.teamMembers).toEqual({ totalElements: 1, content: [{ id: member.body.id, teamId: team.body.id, userId: user.body.id }] });
    expect(data.taskStatuses).toEqual({ totalElements: 1, content: [{ id: status.body.id, slug: 'in-review', statusType: 'IN_PROGRESS' }] });
  });
});
