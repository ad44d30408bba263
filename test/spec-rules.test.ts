import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Rules of the specification on both faces: project ownership is kept by updates, project resources
 * name a resource the caller may bind, and typed values inside JSON fields (and taxon enumerations)
 * are checked with the full path of the value.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const { newCaller, rest } = callersOf(() => server);

type Row = Record<string, any>;

/** A GraphQL operation as `caller` that must fail with 400: its first error's message. */
async function graphqlRefusal(caller: Caller, query: string, variables: Record<string, unknown>): Promise<string> {
  const answer = await server.graphql(query, variables, caller.key);
  const error = answer.body.errors?.[0];
  expect(error, answer.text).toBeDefined();
  expect(error.extensions).toMatchObject({ code: 'BAD_REQUEST' });
  return error.message as string;
}

/** The input fields of a GraphQL input type. */
async function inputFields(name: string): Promise<string[]> {
  const data = await server.graphqlData(`query($name: String!) { __type(name: $name) { inputFields { name } } }`, { name });
  return data.__type.inputFields.map((f: { name: string }) => f.name);
}

let member: Caller;
let organizationId: string;
let project: Row;
let otherProject: Row;

beforeAll(async () => {
  member = await newCaller('Rules');
  organizationId = (await createOrganization(server, {}, member.key)).id;
  project = await createProject(server, organizationId, {}, member.key);
  otherProject = await createProject(server, organizationId, {}, member.key);
});

describe('an update never moves a record to another project', () => {
  const cases: [string, string, () => Promise<Row>][] = [
    ['knowledge-sets', 'KnowledgeSet', () => rest(member, 'POST', '/api/knowledge-sets', 201, { organizationId, name: unique('Set'), projectId: project.id })],
    ['agents', 'Agent', () => rest(member, 'POST', '/api/agents', 201, { organizationId, name: unique('Agent'), projectId: project.id })],
    [
      'agent-sessions',
      'AgentSession',
      async () => {
        const agent = await rest(member, 'POST', '/api/agents', 201, { organizationId, name: unique('Agent') });
        return rest(member, 'POST', '/api/agent-sessions', 201, { agentId: agent.id, projectId: project.id });
      },
    ],
    ['sessions', 'Session', () => rest(member, 'POST', '/api/sessions', 201, { organizationId, name: unique('Session'), projectId: project.id })],
    [
      'webhook-endpoints',
      'WebhookEndpoint',
      () => rest(member, 'POST', '/api/webhook-endpoints', 201, { organizationId, url: 'https://hooks.example.com/in', projectId: project.id }),
    ],
  ];

  it.each(cases)('PUT /api/%s/{id} ignores projectId and the update schemas do not list it', async (path, name, create) => {
    const created = await create();
    expect(created.projectId).toBe(project.id);
    const updated = await rest(member, 'PUT', `/api/${path}/${created.id}`, 200, { projectId: otherProject.id });
    expect(updated.projectId).toBe(project.id);
    const cleared = await rest(member, 'PUT', `/api/${path}/${created.id}`, 200, { projectId: null });
    expect(cleared.projectId).toBe(project.id);
    expect((await rest(member, 'GET', `/api/${path}/${created.id}`, 200)).projectId).toBe(project.id);

    const document = await rest(member, 'GET', '/v3/api-docs', 200);
    expect(Object.keys(document.components.schemas[`${name}UpdateRequest`].properties)).not.toContain('projectId');
    expect(Object.keys(document.components.schemas[`${name}CreateRequest`].properties)).toContain('projectId');
    expect(await inputFields(`${name}UpdateRequest`)).not.toContain('projectId');
    expect(await inputFields(`${name}CreateRequest`)).toContain('projectId');
  });

  it('refuses projectId in a GraphQL update input', async () => {
    const set = await rest(member, 'POST', '/api/knowledge-sets', 201, { organizationId, name: unique('Set'), projectId: project.id });
    const answer = await server.graphql(
      `mutation($id: ID!, $projectId: ID) { updateKnowledgeSet(id: $id, input: { projectId: $projectId }) { projectId } }`,
      { id: set.id, projectId: otherProject.id },
      member.key,
    );
    expect(answer.body.errors?.[0]?.message ?? '', answer.text).toMatch(/projectId/);
    const renamed = await server.graphqlData(
      `mutation($id: ID!) { updateKnowledgeSet(id: $id, input: { description: "kept" }) { description projectId } }`,
      { id: set.id },
      member.key,
    );
    expect(renamed.updateKnowledgeSet).toEqual({ description: 'kept', projectId: project.id });
  });
});

describe('project resources name a resource the caller may bind', () => {
  let other: Caller;
  let otherOrganizationId: string;
  let otherOrgProject: Row;
  let bridge: Row;
  let foreignBridge: Row;

  const bridgeBody = (organization: string) => ({ organizationId: organization, name: unique('Bridge'), baseUrl: 'https://api.example.com' });

  beforeAll(async () => {
    other = await newCaller('OtherOrg');
    otherOrganizationId = (await createOrganization(server, {}, other.key)).id;
    otherOrgProject = await createProject(server, otherOrganizationId, {}, other.key);
    bridge = await rest(member, 'POST', '/api/service-bridges', 201, bridgeBody(organizationId));
    foreignBridge = await rest(other, 'POST', '/api/service-bridges', 201, bridgeBody(otherOrganizationId));
  });

  const binding = (projectId: string, resourceId: string, resourceType = 'SERVICE_BRIDGE') => ({ projectId, resourceType, resourceId });

  it('binds a bridge of the project organization, and refuses an id naming no bridge with 400', async () => {
    const bound = await rest(member, 'POST', '/api/project-resources', 201, binding(project.id, bridge.id));
    expect(bound).toMatchObject(binding(project.id, bridge.id));
    for (const resourceId of [randomUUID(), 'not-an-id']) {
      const refused = await rest(member, 'POST', '/api/project-resources', 400, binding(project.id, resourceId));
      expect(refused.message).toMatch(/resourceId/);
      expect(refused.message).toMatch(/ServiceBridge/);
    }
    // A store id is not a bridge id.
    const store = await rest(member, 'POST', '/api/data-stores', 201, { organizationId, name: unique('Store') });
    await rest(member, 'POST', '/api/project-resources', 400, binding(project.id, store.id));
    expect(await rest(member, 'POST', '/api/project-resources', 201, binding(project.id, store.id, 'DATA_STORE'))).toMatchObject({ resourceId: store.id });
    // Kinds the server does not know are stored as sent.
    await rest(member, 'POST', '/api/project-resources', 201, binding(project.id, 'anything', 'EXTERNAL_LINK'));
  });

  it('refuses a bridge of another organization: 403 for a caller who cannot see it, 400 for one who can', async () => {
    const refused = await rest(other, 'POST', '/api/project-resources', 403, binding(otherOrgProject.id, bridge.id));
    expect(refused.message).toMatch(/ServiceBridge/);
    const crossed = await rest(null, 'POST', '/api/project-resources', 400, binding(otherOrgProject.id, bridge.id));
    expect(crossed.message).toMatch(/resourceId.*another organization/);
    expect((await rest(other, 'GET', `/api/project-resources?filter=${encodeURIComponent(`projectId==${otherOrgProject.id}`)}`, 200)).content).toEqual([]);
  });

  it('refuses re-pointing a binding with PUT as it refuses a create', async () => {
    const own = await rest(other, 'POST', '/api/project-resources', 201, binding(otherOrgProject.id, foreignBridge.id));
    await rest(other, 'PUT', `/api/project-resources/${own.id}`, 403, { resourceId: bridge.id });
    await rest(other, 'PUT', `/api/project-resources/${own.id}`, 400, { resourceId: randomUUID() });
    await rest(other, 'PUT', `/api/project-resources/${own.id}`, 400, { resourceType: 'DOCUMENT_STORE' });
    expect(await rest(other, 'PUT', `/api/project-resources/${own.id}`, 200, { resourceUri: 'bridge://kept' })).toMatchObject({
      resourceId: foreignBridge.id,
      resourceUri: 'bridge://kept',
    });
  });

  it('applies the same checks to GraphQL writes', async () => {
    const create = `mutation($input: ProjectResourceCreateRequest!) { createProjectResource(input: $input) { id resourceId } }`;
    const fresh = await createProject(server, otherOrganizationId, {}, other.key);
    const created = await server.graphqlData(create, { input: binding(fresh.id, foreignBridge.id) }, other.key);
    expect(created.createProjectResource.resourceId).toBe(foreignBridge.id);
    expect(await graphqlRefusal(other, create, { input: binding(fresh.id, randomUUID()) })).toMatch(/resourceId/);
    const forbidden = await server.graphql(create, { input: binding(fresh.id, bridge.id) }, other.key);
    expect(forbidden.body.errors?.[0]?.extensions, forbidden.text).toMatchObject({ code: 'FORBIDDEN' });
    const update = `mutation($id: ID!, $input: ProjectResourceUpdateRequest!) { updateProjectResource(id: $id, input: $input) { resourceId } }`;
    const repointed = await server.graphql(update, { id: created.createProjectResource.id, input: { resourceId: bridge.id } }, other.key);
    expect(repointed.body.errors?.[0]?.extensions, repointed.text).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('typed values inside JSON fields', () => {
  let organization: Row;
  let user: Row;
  let assistant: Row;

  beforeAll(async () => {
    organization = await rest(member, 'GET', `/api/organizations/${organizationId}`, 200);
    user = await rest(member, 'GET', `/api/users/${member.id}`, 200);
    assistant = await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name: unique('Assistant') });
  });

  /** [the full path refused, path of the resource, field, a value with a wrong nested type there, a good value]. */
  const cases: [string, () => string, string, unknown, unknown][] = [
    ['authGroupLink.authGroup', () => `organizations/${organization.id}`, 'authGroupLink', { authGroup: 5 }, { authGroup: 'staff' }],
    ['memory.orderedDashboards', () => `organizations/${organization.id}`, 'memory', { orderedDashboards: 'a' }, { orderedDashboards: ['a', 'b'] }],
    ['memory.orderedDashboards[1]', () => `organizations/${organization.id}`, 'memory', { orderedDashboards: ['a', 7] }, { orderedDashboards: null }],
    ['preferences.showOnboarding', () => `users/${user.id}`, 'preferences', { showOnboarding: 'yes' }, { showOnboarding: false, showScrollbars: null }],
    ['security.roles', () => `users/${user.id}`, 'security', { roles: 'VIEWER' }, { roles: ['VIEWER'] }],
    ['userStorage.favoriteLinks[0].link', () => `users/${user.id}`, 'userStorage', { favoriteLinks: [{ link: 3 }] }, { favoriteLinks: [{ link: '/a' }] }],
    [
      'options.taskOptions.showNewTask',
      () => `projects/${project.id}`,
      'options',
      { taskOptions: { showNewTask: 'yes' } },
      { taskOptions: { showNewTask: true } },
    ],
    [
      'options.executionPolicy.maxAttempts',
      () => `projects/${project.id}`,
      'options',
      { executionPolicy: { maxAttempts: 'many' } },
      { executionPolicy: { maxAttempts: 3, backoffStrategy: 'EXPONENTIAL' } },
    ],
    ['dataFlow.viewPort.zoom', () => `projects/${project.id}`, 'dataFlow', { viewPort: { zoom: 'far' } }, { viewPort: { x: 0, y: 0, zoom: 1.5 } }],
    [
      'options.pipeline.steps',
      () => `assistants/${assistant.id}`,
      'options',
      { pipeline: { steps: 'x' } },
      { pipeline: { steps: [{ name: 'read', ref: 'r' }] } },
    ],
    [
      'options.pipeline.steps[1].executionPolicy.timeoutSeconds',
      () => `assistants/${assistant.id}`,
      'options',
      { pipeline: { steps: [{ name: 'read' }, { executionPolicy: { timeoutSeconds: '1m' } }] } },
      { pipeline: { steps: [{ name: 'read', executionPolicy: { timeoutSeconds: 60 } }] }, moduleRefs: ['m'] },
    ],
  ];

  it.each(cases)('refuses a wrong type at %s (400 naming that path) and stores a good value', async (where, path, field, bad, good) => {
    // A user's security is the administrators' to change.
    const caller = path().startsWith('users/') ? null : member;
    const refused = await rest(caller, 'PUT', `/api/${path()}`, 400, { [field]: bad });
    expect(refused.message).toContain(where);
    expect(refused.details ?? [{ field: where }]).toContainEqual(expect.objectContaining({ field: where }));
    const stored = await rest(caller, 'PUT', `/api/${path()}`, 200, { [field]: good });
    expect(stored[field]).toMatchObject(good as object);
  });

  it('checks nested values on create too, and keeps keys the shape does not declare', async () => {
    const refused = await rest(member, 'POST', '/api/projects', 400, { organizationId, name: unique('P'), options: { taskOptions: { showTakeNext: 1 } } });
    expect(refused.message).toContain('options.taskOptions.showTakeNext');
    const created = await rest(member, 'POST', '/api/projects', 201, {
      organizationId,
      name: unique('P'),
      options: { custom: { any: ['thing'] }, taskOptions: {} },
    });
    expect(created.options).toEqual({ custom: { any: ['thing'] }, taskOptions: {} });
  });

  it('applies the same shapes to GraphQL writes', async () => {
    const mutation = `mutation($id: ID!, $options: JSON) { updateProject(id: $id, input: { options: $options }) { options } }`;
    const message = await graphqlRefusal(member, mutation, { id: project.id, options: { taskOptions: { showNewTask: 'yes' } } });
    expect(message).toContain('options.taskOptions.showNewTask');
    const data = await server.graphqlData(mutation, { id: project.id, options: { taskOptions: { showNewTask: false } } }, member.key);
    expect(data.updateProject.options).toEqual({ taskOptions: { showNewTask: false } });
    const preferences = `mutation($id: ID!, $preferences: JSON) { updatePlatformUser(id: $id, input: { preferences: $preferences }) { id } }`;
    expect(await graphqlRefusal(member, preferences, { id: member.id, preferences: { showWelcomeMessage: 'no' } })).toContain('preferences.showWelcomeMessage');
  });
});

describe('taxon enumerations', () => {
  const taxon = (extra: Row = {}, children: Row[] = []) => ({ name: 'total', label: 'Total', taxonType: 'CURRENCY', children, ...extra });
  const create = (taxons: unknown) =>
    server.request('POST', '/api/data-definitions', { body: { organizationId, name: unique('Definition'), taxons }, key: member.key });

  it('stores the enumerations at every depth', async () => {
    const taxons = [
      taxon({ cardinality: 'ONCE_PER_DOCUMENT', valuePath: 'VALUE_ONLY', metadataValue: 'FILENAME' }, [
        taxon({ cardinality: 'MULTIPLE_PER_SEGMENT' }, [taxon({ valuePath: 'METADATA', metadataValue: 'OWNER_NAME' })]),
      ]),
    ];
    const answer = await create(taxons);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.taxons).toEqual(taxons);
  });

  const bad: [string, unknown, string][] = [
    ['cardinality at the top', [taxon({ cardinality: 'SOMETIMES' })], 'taxons[0].cardinality'],
    ['valuePath at the top', [taxon({ valuePath: 'value only' })], 'taxons[0].valuePath'],
    ['metadataValue at the top', [taxon(), taxon({ metadataValue: 7 })], 'taxons[1].metadataValue'],
    ['cardinality in a child', [taxon({}, [taxon({ cardinality: 'TWICE' })])], 'taxons[0].children[0].cardinality'],
    ['metadataValue in a grandchild', [taxon({}, [taxon({}, [taxon({ metadataValue: 'AUTHOR' })])])], 'taxons[0].children[0].children[0].metadataValue'],
    ['children not an array', [taxon({ children: 'none' })], 'taxons[0].children'],
  ];

  it.each(bad)('refuses another value of %s with 400 naming its path', async (_, taxons, where) => {
    const answer = await create(taxons);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.message).toContain(where);
  });

  it('refuses them on update and over GraphQL, naming the allowed values', async () => {
    const created = await create([taxon()]);
    expect(created.status, created.text).toBe(201);
    const refused = await rest(member, 'PUT', `/api/data-definitions/${created.body.id}`, 400, { taxons: [taxon({}, [taxon({ valuePath: 'X' })])] });
    expect(refused.message).toContain('taxons[0].children[0].valuePath');
    expect(refused.message).toContain('VALUE_OR_ALL_CONTENT');
    const mutation = `mutation($id: ID!, $taxons: JSON) { updateDataDefinition(id: $id, input: { taxons: $taxons }) { taxons } }`;
    expect(await graphqlRefusal(member, mutation, { id: created.body.id, taxons: [taxon({ cardinality: 'NEVER' })] })).toContain('taxons[0].cardinality');
    const good = [taxon({ cardinality: 'MULTIPLE_PER_DOCUMENT' })];
    expect((await server.graphqlData(mutation, { id: created.body.id, taxons: good }, member.key)).updateDataDefinition.taxons).toEqual(good);
  });

  it('publishes the taxon shape as a component whose children are taxons', async () => {
    const document = await rest(member, 'GET', '/v3/api-docs', 200);
    const schema = document.components.schemas.Taxon;
    expect(schema.properties.cardinality).toEqual({ $ref: '#/components/schemas/TaxonCardinality' });
    expect(schema.properties.children.items).toEqual({ $ref: '#/components/schemas/Taxon' });
    expect(document.components.schemas.DataDefinition.properties.taxons.items).toEqual({ $ref: '#/components/schemas/Taxon' });
  });
});

describe('embedded collections', () => {
  let store: Row;
  let family: Row;
  let status: Row;
  let content: Row;
  let applied: Row;
  let assignment: Row;

  beforeAll(async () => {
    store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId, name: unique('Store') });
    status = await rest(member, 'POST', '/api/document-statuses', 201, { projectId: project.id, status: 'Unresolved', statusType: 'UNRESOLVED' });
    family = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: '/a.pdf', documentStatusId: status.id });
    content = await rest(member, 'POST', '/api/content-objects', 201, { documentFamilyId: family.id, name: 'v1' });
    applied = await rest(member, 'POST', '/api/applied-knowledge-sets', 201, { documentFamilyId: family.id, status: 'APPLIED' });
    const task = await rest(member, 'POST', '/api/tasks', 201, { projectId: project.id, title: 'Review' });
    assignment = await rest(member, 'POST', '/api/task-document-families', 201, { taskId: task.id, documentFamilyId: family.id, role: 'INPUT' });
  });

  it('answers Project.documentStatuses and DocumentStatus.project over REST', async () => {
    const read = await rest(member, 'GET', `/api/projects/${project.id}`, 200);
    expect(read.documentStatuses.map((s: Row) => s.id)).toEqual([status.id]);
    // The rows of a collection carry ids: their references and collections are null.
    expect(read.documentStatuses[0]).toMatchObject({ id: status.id, projectId: project.id, status: 'Unresolved', project: null });
    const listed = await rest(member, 'GET', `/api/projects?filter=${encodeURIComponent(`id==${project.id}`)}`, 200);
    expect(listed.content[0].documentStatuses.map((s: Row) => s.id)).toEqual([status.id]);
    const empty = await rest(member, 'GET', `/api/projects/${otherProject.id}`, 200);
    expect(empty.documentStatuses).toEqual([]);
    const statusRead = await rest(member, 'GET', `/api/document-statuses/${status.id}`, 200);
    expect(statusRead.project).toMatchObject({ id: project.id, name: project.name, organization: null });
    expect(statusRead.project.documentStatuses.map((s: Row) => s.id)).toEqual([status.id]);
  });

  it('answers DocumentFamily.tasks, appliedKnowledgeSets and contentObjects, also in the family an applied knowledge set embeds', async () => {
    const read = await rest(member, 'GET', `/api/document-families/${family.id}`, 200);
    expect(read.contentObjects.map((c: Row) => c.id)).toEqual([content.id]);
    expect(read.appliedKnowledgeSets.map((a: Row) => a.id)).toEqual([applied.id]);
    expect(read.appliedKnowledgeSets[0]).toMatchObject({ documentFamilyId: family.id, documentFamily: null, snapshot: null });
    expect(read.tasks).toEqual([expect.objectContaining({ id: assignment.id, taskId: assignment.taskId, role: 'INPUT' })]);
    expect(read.documentStatus).toMatchObject({ id: status.id, projectId: project.id, project: null });
    const appliedRead = await rest(member, 'GET', `/api/applied-knowledge-sets/${applied.id}`, 200);
    expect(appliedRead.documentFamily).toMatchObject({
      id: family.id,
      contentObjects: [expect.objectContaining({ id: content.id })],
      appliedKnowledgeSets: [expect.objectContaining({ id: applied.id })],
      tasks: [expect.objectContaining({ id: assignment.id })],
    });
    // A deleted content object leaves the collection.
    await rest(member, 'DELETE', `/api/content-objects/${content.id}`, 204);
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).contentObjects).toEqual([]);
    content = await rest(member, 'POST', '/api/content-objects', 201, { documentFamilyId: family.id, name: 'v2' });
  });

  it('reads the collections of a page in a fixed number of statements, whatever its size', async () => {
    const counted = async (size: number) => {
      const recorded = await server.fewestQueries(() => server.request('GET', `/api/document-families?pageSize=${size}`, { key: member.key }));
      return recorded.length;
    };
    const one = await counted(1);
    for (let i = 0; i < 4; i++) {
      const other = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: `/${i}.pdf` });
      await rest(member, 'POST', '/api/content-objects', 201, { documentFamilyId: other.id, name: 'v1' });
    }
    expect(await counted(5)).toBe(one);
    const page = await rest(member, 'GET', '/api/document-families?pageSize=5', 200);
    expect(page.content.every((row: Row) => Array.isArray(row.contentObjects) && Array.isArray(row.tasks))).toBe(true);
  });

  it('serves the same collections over GraphQL', async () => {
    const data = await server.graphqlData(
      `query($family: ID!, $status: ID!, $project: ID!) {
        documentFamily(id: $family) { tasks { content { id role } } contentObjects { content { id } } appliedKnowledgeSets { content { id } } }
        documentStatus(id: $status) { project { id } }
        project(id: $project) { documentStatuses { content { id } } }
      }`,
      { family: family.id, status: status.id, project: project.id },
      member.key,
    );
    expect(data.documentFamily).toEqual({
      tasks: { content: [{ id: assignment.id, role: 'INPUT' }] },
      contentObjects: { content: [{ id: content.id }] },
      appliedKnowledgeSets: { content: [{ id: applied.id }] },
    });
    expect(data.documentStatus.project).toEqual({ id: project.id });
    expect(data.project.documentStatuses.content).toEqual([{ id: status.id }]);
  });

  it('describes them in the OpenAPI document', async () => {
    const schemas = (await rest(member, 'GET', '/v3/api-docs', 200)).components.schemas;
    const collection = (schema: string, name: string, items: string) => {
      expect(schemas[schema].properties[name]).toMatchObject({ type: 'array', items: { $ref: `#/components/schemas/${items}` } });
      expect(schemas[schema].required).toContain(name);
    };
    collection('Project', 'documentStatuses', 'DocumentStatus');
    collection('DocumentFamily', 'contentObjects', 'ContentObject');
    collection('DocumentFamily', 'appliedKnowledgeSets', 'AppliedKnowledgeSet');
    collection('DocumentFamily', 'tasks', 'TaskDocumentFamily');
    expect(schemas.DocumentStatus.properties.project).toBeDefined();
    expect(schemas.DocumentFamilyUpdateRequest.properties.tasks).toBeUndefined();
  });
});
