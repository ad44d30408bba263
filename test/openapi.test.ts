import 'reflect-metadata';
import { Validator } from '@seriousme/openapi-schema-validator';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import { jwtSettingsFromEnv } from '../src/auth/jwt';
import { buildGraphqlSchema } from '../src/graphql/schema';
import { resources } from '../src/catalog/registry';
import { ModuleRegistry } from '../src/engine/module-registry';
import { modules } from '../src/modules';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, TEST_DATA_LAKE_DIR, TEST_SECRETS_KEY, unique, type TestServer } from './support/server';

let server: TestServer;
let doc: any;
beforeAll(async () => {
  server = await startServer();
  const answer = await server.request('GET', '/v3/api-docs');
  expect(answer.status, answer.text).toBe(200);
  doc = answer.body;
});
afterAll(() => server.close());

const committed = (name: string) => readFileSync(new URL(`../schema/${name}`, import.meta.url), 'utf8');

/** The entities the registry serves today; a resource silently dropping out of the document must fail. */
const ENTITIES = [
  'AccessToken',
  'Organization',
  'PlatformUser',
  'Team',
  'TeamMember',
  'Project',
  'ProjectStatus',
  'TaskStatus',
  'Task',
  'Label',
  'ProjectResource',
  'Workspace',
  'KnowledgeSet',
  'KnowledgeItem',
  'KnowledgeClause',
  'KnowledgeFeature',
  'KnowledgeSetSnapshot',
  'DataDefinition',
  'AgentRuntime',
  'Agent',
  'AgentSession',
  'Session',
  'TaskTemplate',
  'Prompt',
  'DocumentStatus',
  'DocumentStore',
  'DataStore',
  'DocumentFamily',
  'ContentObject',
  'Assistant',
  'DataForm',
  'Execution',
  'StepExecution',
  'PlatformEvent',
  'Channel',
  'Message',
  'DataObject',
  'LinkedDelta',
  'AppliedKnowledgeSet',
  'TaskDocumentFamily',
  'TaskGroup',
  'TaskGroupHistoryEntry',
  'TaskActivity',
  'ActivityPlan',
  'Activity',
  'Trigger',
  'ProjectTemplate',
  'ServiceBridge',
  'ModelCatalogEntry',
  'OrganizationSecret',
  'WebhookEndpoint',
  'WebhookDelivery',
];

describe('GET /v3/api-docs', () => {
  it('requires credentials', async () => {
    const anonymous = await server.request('GET', '/v3/api-docs', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: 'Unauthorized', status: 401 });
    const wrongKey = await server.request('GET', '/v3/api-docs', { key: 'not-a-real-key' });
    expect(wrongKey.status).toBe(401);
  });

  it('is JSON and a valid OpenAPI 3.0.3 document', async () => {
    const answer = await server.request('GET', '/v3/api-docs');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.0.3');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.0');

    // The validator does reject a broken document (so the check above is not vacuous).
    const broken = structuredClone(doc);
    broken.components.securitySchemes.bearerAuth = { type: 'bearer' };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('declares version 8.0.0', () => {
    expect(doc.info.version).toBe('8.0.0');
    expect(typeof doc.info.title).toBe('string');
  });

  it('declares the x-api-key and bearerAuth security schemes and requires one of them', () => {
    expect(doc.components.securitySchemes['x-api-key']).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.security).toEqual(expect.arrayContaining([{ 'x-api-key': [] }, { bearerAuth: [] }]));
    expect(doc.security).toHaveLength(2);
  });

  it('resolves every internal $ref', () => {
    const refs = new Set<string>();
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.add(value);
          else walk(value);
        }
      }
    };
    walk(doc);
    expect(refs.size).toBeGreaterThan(10);
    const unresolved = [...refs].filter((ref) => {
      if (!ref.startsWith('#/')) return true;
      let target: any = doc;
      for (const part of ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      return target === undefined;
    });
    expect(unresolved).toEqual([]);
  });
});

describe('schemas', () => {
  it('has <Entity>, and <Entity>CreateRequest and <Entity>UpdateRequest where it has those operations, for every resource', () => {
    expect(resources.map((r) => r.name).sort()).toEqual([...ENTITIES].sort());
    const schemas = doc.components.schemas;
    for (const { name, operations } of resources) {
      const requests = [...(operations.create ? [`${name}CreateRequest`] : []), ...(operations.update ? [`${name}UpdateRequest`] : [])];
      for (const schema of [name, ...requests]) {
        expect(schemas[schema], schema).toBeDefined();
        expect(schemas[schema].type, schema).toBe('object');
      }
      if (!operations.create) expect(schemas, name).not.toHaveProperty(`${name}CreateRequest`);
      if (!operations.update) expect(schemas, name).not.toHaveProperty(`${name}UpdateRequest`);
      for (const serverField of ['id', 'uuid', 'createdOn', 'updatedOn', 'changeSequence']) {
        if (operations.create) expect(schemas[`${name}CreateRequest`].properties, `${name}CreateRequest.${serverField}`).not.toHaveProperty(serverField);
        expect(schemas[name].required, `${name}.required`).toContain(serverField);
      }
      if (operations.update) {
        expect(schemas[`${name}UpdateRequest`].required ?? [], `${name}UpdateRequest.required`).toEqual([]);
        expect(schemas[`${name}UpdateRequest`].properties.changeSequence, `${name}UpdateRequest.changeSequence`).toMatchObject({
          type: 'integer',
          format: 'int32',
        });
      }
    }
  });

  it('serves task-group-history read-only and task-activities without update', () => {
    expect(doc.components.schemas).not.toHaveProperty('TaskGroupHistoryEntryCreateRequest');
    expect(doc.components.schemas).not.toHaveProperty('TaskGroupHistoryEntryUpdateRequest');
    expect(doc.components.schemas).not.toHaveProperty('TaskActivityUpdateRequest');
    expect(doc.components.schemas).toHaveProperty('TaskActivityCreateRequest');
    expect(Object.keys(doc.paths['/api/task-group-history'])).toEqual(['get', 'head']);
    expect(Object.keys(doc.paths['/api/task-group-history/{id}'])).toEqual(['get', 'head']);
    expect(Object.keys(doc.paths['/api/task-activities/{id}']).sort()).toEqual(['delete', 'get', 'head']);
  });

  it('requires exactly projectId in TaskCreateRequest', () => {
    expect(doc.components.schemas.TaskCreateRequest.required).toEqual(['projectId']);
  });

  it('gives TeamMemberUpdateRequest exactly changeSequence, team, teamId, user and userId, none required', () => {
    const schema = doc.components.schemas.TeamMemberUpdateRequest;
    expect(Object.keys(schema.properties).sort()).toEqual(['changeSequence', 'team', 'teamId', 'user', 'userId']);
    expect(schema.required ?? []).toEqual([]);
    expect(schema.properties.changeSequence).toMatchObject({ type: 'integer', format: 'int32' });
    expect(schema.properties.teamId.type).toBe('string');
    expect(schema.properties.userId.type).toBe('string');
    expect(JSON.stringify(schema.properties.team)).toContain('"$ref":"#/components/schemas/Team"');
    expect(JSON.stringify(schema.properties.user)).toContain('"$ref":"#/components/schemas/PlatformUser"');
  });

  it('types every TeamMemberUpdateRequest field as nullable, as the specification lists them (team, teamId, user, userId "or null")', () => {
    const { properties } = doc.components.schemas.TeamMemberUpdateRequest;
    for (const field of ['team', 'teamId', 'user', 'userId']) expect(properties[field].nullable, field).toBe(true);
  });

  it("lists the specification's required Organization fields, and not archived", () => {
    const organization = doc.components.schemas.Organization;
    const required = [
      'id',
      'uuid',
      'createdOn',
      'updatedOn',
      'changeSequence',
      'name',
      'slug',
      'description',
      'searchText',
      'organizationStatus',
      'publicAccess',
      'authGroupLink',
      'hasImage',
      'defaultToPrivateTemplates',
      'memory',
      'supportAccess',
      'supportAccessExpiresAt',
      'billingCustomerId',
      'enterpriseOrganization',
      'properties',
      'features',
    ];
    expect(organization.required).toEqual(expect.arrayContaining(required));
    expect(organization.required).not.toContain('archived');
    expect(organization.properties).toHaveProperty('archived');
    expect(organization.properties.slug).toMatchObject({ type: 'string', minLength: 3, maxLength: 100, pattern: '^[a-z0-9-]+$' });
    expect(organization.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(organization.properties.createdOn).toMatchObject({ type: 'string', format: 'date-time' });
    expect(organization.properties.changeSequence).toMatchObject({ type: 'integer', format: 'int32' });
    for (const nullable of ['supportAccessExpiresAt', 'enterpriseOrganization', 'properties', 'features']) {
      expect(organization.properties[nullable].nullable, nullable).toBe(true);
    }
    expect(organization.properties.authGroupLink.properties.authGroup.type).toBe('string');
    expect(organization.properties.memory.properties.orderedDashboards).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it('has the named enum TaskStatusType, referenced by $ref from TaskStatus', () => {
    const schemas = doc.components.schemas;
    expect(schemas.TaskStatusType).toMatchObject({ type: 'string' });
    expect([...schemas.TaskStatusType.enum].sort()).toEqual(['BLOCKED', 'DONE', 'IN_PROGRESS', 'OPEN', 'PENDING']);
    const statusType = schemas.TaskStatus.properties.statusType;
    const ref = statusType.$ref ?? statusType.allOf?.[0]?.$ref;
    expect(ref).toBe('#/components/schemas/TaskStatusType');
    expect(statusType.enum).toBeUndefined();
    const createRef = schemas.TaskStatusCreateRequest.properties.statusType;
    expect(createRef.$ref ?? createRef.allOf?.[0]?.$ref).toBe('#/components/schemas/TaskStatusType');
  });

  it('has the sixteen named enumerations of the specification, and WebhookDeliveryStatus, as components with exactly their values', () => {
    const expected: Record<string, string[]> = {
      TaskStatusType: ['OPEN', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'PENDING'],
      ExecutionStatus: ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'],
      ExecutionStatusMessageType: ['INFO', 'WARNING', 'ERROR'],
      SortDirection: ['ASC', 'DESC'],
      AuditAction: ['CREATE', 'UPDATE', 'DELETE'],
      ChatMessageRole: ['USER', 'ASSISTANT', 'SYSTEM', 'TOOL'],
      WebLlmModelSize: ['SMALL', 'MEDIUM', 'LARGE'],
      TaskActivityType: ['CREATED', 'UPDATED', 'STATUS_CHANGED', 'ASSIGNED', 'LOCKED', 'UNLOCKED', 'COMMENT'],
      DocumentActorType: ['USER', 'API_KEY', 'SYSTEM', 'AGENT'],
      TaxonCardinality: ['ONCE_PER_DOCUMENT', 'MULTIPLE_PER_DOCUMENT', 'ONCE_PER_SEGMENT', 'MULTIPLE_PER_SEGMENT'],
      TaxonValuePath: ['VALUE_OR_ALL_CONTENT', 'VALUE_ONLY', 'ALL_CONTENT', 'METADATA', 'DERIVED', 'EXPRESSION'],
      TaxonMetadataValue: ['FILENAME', 'CREATED_DATE_TIME', 'OWNER_NAME', 'DOCUMENT_LABELS', 'TRANSITION'],
      AnalyticsFieldType: ['STRING', 'NUMBER', 'DATE', 'BOOLEAN'],
      TaskSignalOutcome: ['APPROVED', 'REJECTED', 'DEFERRED'],
      SessionState: ['ACTIVE', 'COMPLETED', 'FAILED', 'CANCELLED'],
      PipelineStepType: ['MODULE', 'CREATE_TASK', 'SCRIPT', 'BRIDGE_CALL', 'EXECUTION', 'LLM', 'AGENT', 'APPROVAL'],
      WebhookDeliveryStatus: ['PENDING', 'SUCCEEDED', 'RETRYING', 'FAILED'],
    };
    const schemas = doc.components.schemas;
    const enums = Object.keys(schemas).filter((name) => Array.isArray(schemas[name].enum));
    expect(enums.sort()).toEqual(Object.keys(expected).sort());
    for (const [name, values] of Object.entries(expected)) {
      expect(schemas[name], name).toEqual({ type: 'string', enum: values, description: expect.any(String) });
      // Each value is explained in the description, as GraphQL describes each enum value.
      for (const value of values) expect(schemas[name].description, `${name}.${value}`).toMatch(new RegExp(`^- ${value}: \\S`, 'm'));
    }
  });

  it('has a page schema per resource and the error schema', () => {
    const schemas = doc.components.schemas;
    for (const name of ENTITIES) {
      const page = schemas[`${name}Page`];
      expect(page, `${name}Page`).toBeDefined();
      expect(page.properties.content).toEqual({ type: 'array', items: { $ref: `#/components/schemas/${name}` }, description: expect.stringMatching(/\S/) });
      expect(page.required).toEqual(
        expect.arrayContaining(['content', 'first', 'last', 'number', 'numberOfElements', 'size', 'totalElements', 'totalPages', 'pageable', 'sort']),
      );
    }
    expect(schemas.Error.required).toEqual(expect.arrayContaining(['error', 'message', 'status']));
  });
});

describe('paths', () => {
  it('lists responses 200, 400, 401, 403, 404 and 409 for PUT /api/team-members/{id}', () => {
    const put = doc.paths['/api/team-members/{id}'].put;
    // The specification's six answers, 412 (an If-Match naming a stale version), 413 (a body over the
    // limit), 415 (a body that is not JSON), 429 (every operation can be rate limited) and 503 (a
    // statement past its timeout).
    expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '412', '413', '415', '429', '503']);
    expect(doc.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined();
    expect(JSON.stringify(put.responses['200'])).toContain('#/components/schemas/TeamMember"');
    expect(put.requestBody.required).toBe(true);
    expect(put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TeamMemberUpdateRequest' });
    expect(put.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) }),
      expect.objectContaining({ name: 'If-Match', in: 'header' }),
    ]);
  });

  it('has list, get and sequence for every resource, and create, update and delete where it has them', () => {
    for (const resource of resources) {
      const collection = doc.paths[`/api/${resource.path}`];
      const item = doc.paths[`/api/${resource.path}/{id}`];
      const sequence = doc.paths[`/api/${resource.path}/{id}/sequence`];
      const { create, update, delete: remove } = resource.operations;
      expect(Object.keys(collection ?? {}).sort(), resource.path).toEqual(['get', 'head', ...(create ? ['post'] : [])]);
      expect(Object.keys(item ?? {}).sort(), resource.path).toEqual([...(remove ? ['delete'] : []), 'get', 'head', ...(update ? ['put'] : [])]);
      expect(Object.keys(sequence ?? {}), resource.path).toEqual(['get', 'head']);
      if (create) {
        expect(collection.post.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/${resource.name}CreateRequest`);
        expect(Object.keys(collection.post.responses)).toContain('201');
      }
      if (update) expect(item.put.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/${resource.name}UpdateRequest`);
      const params = collection.get.parameters.map((p: any) => p.name).sort();
      expect(params, resource.path).toEqual(
        [...(resource.parent ? [resource.parent.param] : []), 'If-None-Match', 'filter', 'page', 'pageSize', 'query', 'sort'].sort(),
      );
      expect(Object.keys(collection.get.responses['200'].content), resource.path).toEqual(['application/json']);
      const pageSize = collection.get.parameters.find((p: any) => p.name === 'pageSize');
      const oneBased = resource.paging === 'one-based';
      expect(pageSize.schema, resource.path).toMatchObject({ minimum: 1, maximum: oneBased ? 1000 : 100, default: oneBased ? 20 : 10 });
      const page = collection.get.parameters.find((p: any) => p.name === 'page');
      expect(page.schema, resource.path).toMatchObject({ minimum: oneBased ? 1 : 0, default: oneBased ? 1 : 0 });
    }
  });
});

describe('exports', () => {
  it('are an operation of their own at every list path plus /export, answering CSV and NDJSON only', () => {
    expect(resources.length).toBeGreaterThan(50);
    for (const resource of resources) {
      const path = `/api/${resource.path}/export`;
      const item = doc.paths[path];
      expect(Object.keys(item ?? {}), path).toEqual(['get', 'head']);
      expect(item.get.operationId, path).toBe(`export${resource.listName[0].toUpperCase()}${resource.listName.slice(1)}`);
      expect(Object.keys(item.get.responses['200'].content).sort(), path).toEqual(['application/x-ndjson', 'text/csv']);
      expect(item.get.responses['200'].headers['Content-Disposition'], path).toBeDefined();
      const params = item.get.parameters.map((p: any) => p.name).sort();
      expect(params, path).toEqual([...(resource.parent ? [resource.parent.param] : []), 'filter', 'format', 'query', 'sort'].sort());
      expect(item.get.parameters.find((p: any) => p.name === 'format').schema.enum, path).toEqual(['csv', 'ndjson']);
      // The list refuses what the export answers: 406, documented.
      expect(doc.paths[`/api/${resource.path}`].get.responses['406'], path).toEqual({ $ref: '#/components/responses/NotAcceptable' });
    }
    expect(doc.components.responses.NotAcceptable.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('leave every other read of the document one JSON answer (a page, a row), or JSON and text/plain where format=text asks for it', () => {
    const exports = new Set(resources.map((resource) => `/api/${resource.path}/export`));
    const reads = documented().filter(({ path, method }) => method === 'get' && !exports.has(path));
    const pages = reads.filter(({ operation }) => /Page$/.test(operation.responses['200']?.content?.['application/json']?.schema?.$ref ?? ''));
    expect(pages.length).toBe(resources.length + 1);
    for (const { path, operation } of reads) {
      const success = Object.entries<any>(operation.responses).find(([status]) => status.startsWith('2'))![1];
      const types = Object.keys(success.content ?? {});
      const textual = (operation.parameters ?? []).some((p: any) => p.name === 'format' && p.schema.enum?.includes('text'));
      // The bridge proxy answers whatever the upstream does.
      if (path.includes('/proxy')) expect(types, path).toEqual(['*/*']);
      else expect(types, path).toEqual(textual ? ['application/json', 'text/plain'] : ['application/json']);
    }
  });
});

/** The operations of the document: every path and method. */
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

function documented(): { path: string; method: string; operation: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
  );
}

/** Every object of the document, with where it is. */
function nodes(node: unknown, at = '#'): [string, Record<string, unknown>][] {
  if (Array.isArray(node)) return node.flatMap((child, i) => nodes(child, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return [[at, node as Record<string, unknown>], ...Object.entries(node).flatMap(([key, child]) => nodes(child, `${at}/${key}`))];
}

describe('operations', () => {
  it('gives every operation an operationId of its own', () => {
    const ids = documented().map(({ operation }) => operation.operationId);
    expect(ids.length).toBeGreaterThan(300);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('names the agent tools apart from GET /api/service-bridges, their GraphQL fields unchanged', async () => {
    expect(doc.paths['/api/service-bridges'].get.operationId).toBe('listServiceBridges');
    expect(doc.paths['/api/agent-sessions/{id}/tools/list_service_bridges'].get.operationId).toBe('listAgentSessionServiceBridges');
    expect(doc.paths['/api/agent-sessions/{id}/tools/call_service_bridge'].post.operationId).toBe('callAgentSessionServiceBridge');
    const { __schema } = await server.graphqlData('{ __schema { queryType { fields { name } } mutationType { fields { name } } } }');
    expect(__schema.queryType.fields.map((f: any) => f.name)).toEqual(expect.arrayContaining(['listServiceBridges', 'serviceBridges']));
    expect(__schema.mutationType.fields.map((f: any) => f.name)).toContain('callServiceBridge');
  });

  it('gives every operation a summary (with the right article) and a description', () => {
    for (const { path, method, operation } of documented()) {
      const at = `${method} ${path}`;
      expect(operation.summary, at).toMatch(/\S/);
      expect(operation.description, at).toMatch(/\S/);
      expect(operation.summary, at).not.toMatch(/\ba [aeio]/i);
      expect(operation.summary, at).not.toMatch(/\ban [^aeiou\s]/i);
    }
    expect(doc.paths['/api/organizations'].post.summary).toBe('Create an organization');
    expect(doc.paths['/api/team-members/{id}'].delete.summary).toBe('Delete a team member');
  });

  it('declares every tag the operations use, once, each with a description', () => {
    const declared = doc.tags.map((tag: any) => tag.name);
    expect(declared.filter((name: string, i: number) => declared.indexOf(name) !== i)).toEqual([]);
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/\S/);
    const used = new Set(documented().flatMap(({ operation }) => operation.tags));
    expect([...used].sort()).toEqual([...declared].sort());
    expect(declared).toEqual(expect.arrayContaining(['account', 'analytics', 'ai', 'orchestrator', 'meta']));
  });

  it('declares the licence of package.json', () => {
    expect(doc.info.license).toEqual({
      name: JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).license,
      url: 'https://www.apache.org/licenses/LICENSE-2.0',
    });
  });
});

describe('schema shapes both linters accept', () => {
  it('states a type beside every nullable, and nothing beside a $ref', () => {
    for (const [at, node] of nodes(doc)) {
      if (node.nullable === true) expect(node.type, at).toBeDefined();
      if (typeof node.$ref === 'string') expect(Object.keys(node), at).toEqual(['$ref']);
    }
  });

  it('refers to Project.status as a nullable ProjectStatus', () => {
    expect(doc.components.schemas.Project.properties.status).toEqual({
      type: 'object',
      nullable: true,
      allOf: [{ $ref: '#/components/schemas/ProjectStatus' }],
      description: 'The ProjectStatus that statusId names, as an object, or null',
    });
  });
});

describe('nested collections', () => {
  const nested = resources.filter((r) => r.parent);

  it('leave the parent the path names out of the create body', async () => {
    expect(nested.map((r) => r.name)).toContain('OrganizationSecret');
    for (const resource of nested) {
      const schema = doc.components.schemas[`${resource.name}CreateRequest`];
      const relation = resource.fields.find((f) => f.name === resource.parent!.field)!.reference!.relation;
      expect(Object.keys(schema.properties), resource.name).not.toContain(resource.parent!.field);
      expect(Object.keys(schema.properties), resource.name).not.toContain(relation);
      expect(schema.required ?? [], resource.name).not.toContain(resource.parent!.field);
    }
    const organization = await createOrganization(server);
    const created = await server.request('POST', `/api/organizations/${organization.id}/secrets`, {
      body: { name: unique('OPENAPI').toUpperCase().replace(/-/g, '_'), value: 'v' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.organizationId).toBe(organization.id);
  });

  it('document and answer 404 on their list and create when the parent does not exist', async () => {
    for (const resource of nested) {
      expect(doc.paths[`/api/${resource.path}`].get.responses['404'], resource.path).toEqual({ $ref: '#/components/responses/NotFound' });
      expect(doc.paths[`/api/${resource.path}`].post.responses['404'], resource.path).toEqual({ $ref: '#/components/responses/NotFound' });
    }
    const path = `/api/organizations/${randomUUID()}/secrets`;
    const list = await server.request('GET', path);
    expect(list.status, list.text).toBe(404);
    const create = await server.request('POST', path, { body: { name: 'NEVER', value: 'v' } });
    expect(create.status, create.text).toBe(404);
  });
});

describe('every status the server answers', () => {
  it('documents 200 on the create of a collection whose create may repeat an earlier one (executions), and answers it', async () => {
    const replaying = resources.filter((r) => r.operations.create && new ModuleRegistry(resources, modules).rulesOf(r.entity).replayOf).map((r) => r.path);
    expect(replaying).toContain('executions');
    for (const resource of resources.filter((r) => r.operations.create)) {
      expect('200' in doc.paths[`/api/${resource.path}`].post.responses, resource.path).toBe(replaying.includes(resource.path));
    }
    const organization = await createOrganization(server);
    const body = { organizationId: organization.id, idempotencyKey: unique('openapi') };
    const first = await server.request('POST', '/api/executions', { body });
    expect(first.status, first.text).toBe(201);
    const again = await server.request('POST', '/api/executions', { body });
    expect(again.status, again.text).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });

  it('documents If-None-Match and 304 on exactly the reads whose answer carries an ETag', () => {
    const reads = documented().filter(({ method }) => method === 'get' || method === 'head');
    const tagged = reads.filter(({ operation }) => operation.responses['304']);
    expect(tagged.length).toBeGreaterThan(200);
    for (const { path, method, operation } of reads) {
      const at = `${method} ${path}`;
      const success = Object.entries<any>(operation.responses).find(([status]) => status.startsWith('2'))![1];
      const conditional = (operation.parameters ?? []).some((p: any) => p.name === 'If-None-Match');
      expect([conditional, success.headers?.ETag !== undefined], at).toEqual([
        operation.responses['304'] !== undefined,
        operation.responses['304'] !== undefined,
      ]);
    }
  });

  it('answers an ETag, and 304 to GET and HEAD naming it, exactly on the reads that document 304', async () => {
    const organization = await createOrganization(server);
    const project = await createProject(server, organization.id);
    const task = await createTask(server, project.id);
    const created = async (path: string, body: Record<string, unknown>) => {
      const answer = await server.request('POST', path, { body });
      expect(answer.status, `${path}: ${answer.text}`).toBe(201);
      return answer.body;
    };
    const secret = await created(`/api/organizations/${organization.id}/secrets`, { name: unique('ETAG').toUpperCase().replace(/-/g, '_'), value: 'v' });
    const channel = await created('/api/channels', { projectId: project.id, name: unique('chat') });
    const agent = await created('/api/agents', { organizationId: organization.id, name: unique('Agent') });
    const session = await created('/api/agent-sessions', { agentId: agent.id, projectId: project.id });
    const group = await created('/api/task-groups', { projectId: project.id, name: unique('Group') });
    // One read of each kind: collections, nested ones, rows, sequences, the domain operations' reads, the account, the document.
    const reads: [template: string, path: string][] = [
      ['/api/tasks', `/api/tasks?filter=${encodeURIComponent(`id==${task.id}`)}`],
      ['/api/tasks/{id}', `/api/tasks/${task.id}`],
      ['/api/tasks/{id}/sequence', `/api/tasks/${task.id}/sequence`],
      ['/api/organizations/{orgId}/secrets', `/api/organizations/${organization.id}/secrets`],
      ['/api/organizations/{orgId}/secrets/{id}', `/api/organizations/${organization.id}/secrets/${secret.id}`],
      ['/api/organizations/{orgId}/secrets/{id}/sequence', `/api/organizations/${organization.id}/secrets/${secret.id}/sequence`],
      ['/api/task-groups/{id}/history', `/api/task-groups/${group.id}/history`],
      ['/api/channels/{id}/transcript', `/api/channels/${channel.id}/transcript`],
      ['/api/channels/{id}/transcript', `/api/channels/${channel.id}/transcript?format=text`],
      ['/api/agent-sessions/{id}/tools/list_service_bridges', `/api/agent-sessions/${session.id}/tools/list_service_bridges`],
      ['/api/account/me', '/api/account/me'],
      ['/v3/api-docs', '/v3/api-docs'],
    ];
    for (const [template, path] of reads) {
      const documents304 = doc.paths[template].get.responses['304'] !== undefined;
      expect(doc.paths[template].head.responses['304'] !== undefined, template).toBe(documents304);
      const first = await server.request('GET', path);
      expect(first.status, `${path}: ${first.text}`).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag !== null, `ETag of ${path}`).toBe(documents304);
      for (const method of ['GET', 'HEAD']) {
        const again = await server.request(method, path, { headers: { 'if-none-match': etag ?? '*' } });
        expect(again.status, `${method} ${path} If-None-Match: ${etag ?? '*'}`).toBe(documents304 ? 304 : 200);
        if (documents304) expect(again.text, `${method} ${path}`).toBe('');
      }
    }
  });

  it('documents HEAD wherever GET is, with the same parameters and statuses and no bodies, and answers it without a body', async () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!item.get) continue;
      expect(item.head, path).toBeDefined();
      expect(Object.keys(item.head.responses), path).toEqual(Object.keys(item.get.responses));
      expect(item.head.parameters, path).toEqual(item.get.parameters);
      for (const answer of Object.values<any>(item.head.responses)) expect(answer.content, path).toBeUndefined();
    }
    const get = await server.request('GET', '/api/organizations?pageSize=1');
    const head = await server.request('HEAD', '/api/organizations?pageSize=1');
    expect([head.status, head.text]).toEqual([200, '']);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
  });

  it('documents 413 and 415 on every operation that takes a body, and answers 415 exactly there', async () => {
    const writes = documented().filter(({ method }) => method !== 'get' && method !== 'head');
    for (const { path, method, operation } of writes.filter(({ operation }) => operation.requestBody)) {
      // The AI gateway's paths refer to the twins in the shape OpenAI clients read.
      const twin = path.startsWith('/api/ai/') ? 'OpenAi' : '';
      expect(operation.responses['413'], `${method} ${path}`).toEqual({ $ref: `#/components/responses/${twin}PayloadTooLarge` });
      expect(operation.responses['415'], `${method} ${path}`).toEqual({ $ref: `#/components/responses/${twin}UnsupportedMediaType` });
    }
    expect(doc.components.responses.UnsupportedMediaType.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    // A text/plain body to every write (unknown ids: nothing is written): 415 where the route reads a body.
    const mismatched: string[] = [];
    for (let i = 0; i < writes.length; i += 25) {
      await Promise.all(
        writes.slice(i, i + 25).map(async ({ path, method, operation }) => {
          const answer = await server.request(method.toUpperCase(), concrete(path), { body: 'not json', headers: { 'content-type': 'text/plain' } });
          if ((answer.status === 415) !== (operation.responses['415'] !== undefined)) mismatched.push(`${method} ${path}: ${answer.status}`);
          if (operation.responses['415']) expect(operation.responses['413'], `${method} ${path}`).toBeDefined();
        }),
      );
    }
    expect(writes.length).toBeGreaterThan(150);
    expect(mismatched.sort()).toEqual([]);
  });
});

/** A documented path with a fresh UUID for each parameter. */
function concrete(path: string): string {
  return path.replace(/\{\w+\}/g, () => randomUUID());
}

/** A route's methods as the server takes them: HEAD wherever GET is, every method for `all`. */
interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  rawPath?: unknown;
  handle?: { stack?: RouterLayer[] };
}

/** `/api/x/:id/proxy{/:name}` as OpenAPI paths: each optional part absent and present, `:id` as `{id}`. */
function openApiPaths(expressPath: string): string[] {
  const optional = /\{([^{}]*)\}/.exec(expressPath);
  if (!optional) return [expressPath.replace(/:(\w+)/g, '{$1}')];
  return [...openApiPaths(expressPath.replace(optional[0], '')), ...openApiPaths(expressPath.replace(optional[0], optional[1]))];
}

function joined(prefix: string, path: string): string {
  return `${prefix}${path === '/' ? '' : path}`.replace(/\/{2,}/g, '/') || '/';
}

/** Every route of a router stack, mounted routers included, as `method path`. */
function routesOf(stack: RouterLayer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).flatMap((m) => (m === '_all' ? [...METHODS] : m === 'get' ? ['get', 'head'] : [m]));
      const paths = [layer.route.path].flat().flatMap((path) => openApiPaths(joined(prefix, path)));
      return paths.flatMap((path) => methods.map((method) => `${method} ${path}`));
    }
    const mount = typeof layer.rawPath === 'string' ? joined(prefix, layer.rawPath) : prefix;
    return layer.handle?.stack ? routesOf(layer.handle.stack, mount) : [];
  });
}

describe('the document and the Express router', () => {
  it('have the same operations: every route under /api and /v3 that does not answer 405, and no other', async () => {
    const built = await createApp(server.orm, {
      rateLimits: { perMinute: 1_000_000, burstPerSecond: 1_000_000, userPerMinute: 1_000_000 },
      jwt: jwtSettingsFromEnv(),
      secretsKey: TEST_SECRETS_KEY,
      dataLake: { kind: 'file', dir: TEST_DATA_LAKE_DIR },
    });
    let routes: string[];
    try {
      routes = routesOf((built.app as unknown as { router: { stack: RouterLayer[] } }).router.stack);
    } finally {
      await built.close();
    }
    const candidates = [...new Set(routes)].filter((route) => / \/(api|v3)\//.test(route) && METHODS.includes(route.split(' ')[0] as never));
    expect(candidates.length).toBeGreaterThan(300);
    // A route that answers 405 whatever the request (a write the collection does not have, a method an
    // operation path does not serve) is no operation. Unknown ids and a body that is no object: nothing is written.
    const served: string[] = [];
    for (let i = 0; i < candidates.length; i += 25) {
      await Promise.all(
        candidates.slice(i, i + 25).map(async (route) => {
          const [method, path] = route.split(' ');
          const answer = await fetch(`${server.url}${concrete(path)}`, {
            method: method.toUpperCase(),
            headers: { 'x-api-key': server.adminKey, 'content-type': 'application/json' },
            body: method === 'get' || method === 'head' ? undefined : '[]',
          });
          await answer.arrayBuffer();
          expect(answer.status, route).toBeLessThan(500);
          if (answer.status !== 405) served.push(route);
        }),
      );
    }
    const inDocument = documented().map(({ method, path }) => `${method} ${path}`);
    expect(served.filter((route) => !inDocument.includes(route)).sort(), 'served, not documented').toEqual([]);
    expect(inDocument.filter((route) => !served.includes(route)).sort(), 'documented, not served').toEqual([]);
  });
});

describe('committed generated files', () => {
  it('serves exactly the committed schema/openapi.json', () => {
    expect(doc).toEqual(JSON.parse(committed('openapi.json')));
  });

  it('commits schema/schema.graphql as printed from the registry', () => {
    const printed = printSchema(lexicographicSortSchema(buildGraphqlSchema(resources))) + '\n';
    expect(committed('schema.graphql')).toBe(printed);
  });

  it('serves the committed GraphQL schema at /graphql', async () => {
    const answer = await server.graphql('{ __schema { queryType { fields { name } } mutationType { fields { name } } } }');
    expect(answer.body.errors).toBeUndefined();
    const queries = answer.body.data.__schema.queryType.fields.map((f: any) => f.name);
    const mutations = answer.body.data.__schema.mutationType.fields.map((f: any) => f.name);
    const text = committed('schema.graphql');
    for (const name of [...queries, ...mutations]) expect(text, name).toMatch(new RegExp(`^  ${name}[(:]`, 'm'));
    expect(queries).toEqual(expect.arrayContaining(['organizations', 'organization', 'teamMembers', 'teamMember', 'taskStatuses', 'users', 'platformUser']));
    expect(mutations).toEqual(expect.arrayContaining(['createOrganization', 'updateTeamMember', 'deletePlatformUser']));
  });
});
