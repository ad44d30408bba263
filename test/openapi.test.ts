import 'reflect-metadata';
import { Validator } from '@seriousme/openapi-schema-validator';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraphqlSchema } from '../src/graphql/schema';
import { resources } from '../src/model/registry';
import { startServer, type TestServer } from './support/server';

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
  'AccessToken', 'Organization', 'PlatformUser', 'Team', 'TeamMember', 'Project', 'ProjectStatus', 'TaskStatus', 'Task', 'Label',
  'ProjectResource', 'Workspace', 'KnowledgeSet', 'KnowledgeItem', 'KnowledgeClause', 'KnowledgeFeature', 'KnowledgeSetSnapshot', 'DataDefinition',
  'AgentRuntime', 'Agent', 'AgentSession', 'Session', 'TaskTemplate', 'Prompt', 'DocumentStatus',
  'DocumentStore', 'DataStore', 'DocumentFamily', 'ContentObject', 'Assistant', 'DataForm', 'Execution', 'StepExecution',
  'PlatformEvent', 'Channel', 'Message', 'DataObject', 'LinkedDelta', 'AppliedKnowledgeSet', 'TaskDocumentFamily',
  'TaskGroup', 'TaskGroupHistoryEntry', 'TaskActivity', 'ActivityPlan', 'Activity', 'Trigger', 'ProjectTemplate', 'ServiceBridge', 'ModelCatalogEntry',
  'OrganizationSecret',
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
        expect(schemas[`${name}UpdateRequest`].properties.changeSequence, `${name}UpdateRequest.changeSequence`).toMatchObject({ type: 'integer', format: 'int32' });
      }
    }
  });

  it('serves task-group-history read-only and task-activities without update', () => {
    expect(doc.components.schemas).not.toHaveProperty('TaskGroupHistoryEntryCreateRequest');
    expect(doc.components.schemas).not.toHaveProperty('TaskGroupHistoryEntryUpdateRequest');
    expect(doc.components.schemas).not.toHaveProperty('TaskActivityUpdateRequest');
    expect(doc.components.schemas).toHaveProperty('TaskActivityCreateRequest');
    expect(Object.keys(doc.paths['/api/task-group-history'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/task-group-history/{id}'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/task-activities/{id}']).sort()).toEqual(['delete', 'get']);
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
      'id', 'uuid', 'createdOn', 'updatedOn', 'changeSequence', 'name', 'slug', 'description', 'searchText', 'organizationStatus',
      'publicAccess', 'authGroupLink', 'hasImage', 'defaultToPrivateTemplates', 'memory', 'supportAccess', 'supportAccessExpiresAt',
      'billingCustomerId', 'enterpriseOrganization', 'properties', 'features',
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

  it('has the sixteen named enumerations of the specification as components, with exactly their values', () => {
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
    };
    const schemas = doc.components.schemas;
    const enums = Object.keys(schemas).filter((name) => Array.isArray(schemas[name].enum));
    expect(enums.sort()).toEqual(Object.keys(expected).sort());
    for (const [name, values] of Object.entries(expected)) expect(schemas[name], name).toEqual({ type: 'string', enum: values });
  });

  it('has a page schema per resource and the error schema', () => {
    const schemas = doc.components.schemas;
    for (const name of ENTITIES) {
      const page = schemas[`${name}Page`];
      expect(page, `${name}Page`).toBeDefined();
      expect(page.properties.content).toEqual({ type: 'array', items: { $ref: `#/components/schemas/${name}` } });
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
    // limit), 429 (every operation can be rate limited) and 503 (a statement past its timeout).
    expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '412', '413', '429', '503']);
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
      expect(Object.keys(collection ?? {}).sort(), resource.path).toEqual(['get', ...(create ? ['post'] : [])]);
      expect(Object.keys(item ?? {}).sort(), resource.path).toEqual([...(remove ? ['delete'] : []), 'get', ...(update ? ['put'] : [])]);
      expect(Object.keys(sequence ?? {}), resource.path).toEqual(['get']);
      if (create) {
        expect(collection.post.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/${resource.name}CreateRequest`);
        expect(Object.keys(collection.post.responses)).toContain('201');
      }
      if (update) expect(item.put.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/${resource.name}UpdateRequest`);
      const params = collection.get.parameters.map((p: any) => p.name).sort();
      expect(params, resource.path).toEqual([...(resource.parent ? [resource.parent.param] : []), 'If-None-Match', 'filter', 'page', 'pageSize', 'query', 'sort'].sort());
      const pageSize = collection.get.parameters.find((p: any) => p.name === 'pageSize');
      const oneBased = resource.paging === 'one-based';
      expect(pageSize.schema, resource.path).toMatchObject({ minimum: 1, maximum: oneBased ? 1000 : 100, default: oneBased ? 20 : 10 });
      const page = collection.get.parameters.find((p: any) => p.name === 'page');
      expect(page.schema, resource.path).toMatchObject({ minimum: oneBased ? 1 : 0, default: oneBased ? 1 : 0 });
    }
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
    for (const name of [...queries, ...mutations]) expect(text, name).toMatch(new RegExp(`^  ${name}[(:]`, "m"));
    expect(queries).toEqual(expect.arrayContaining(['organizations', 'organization', 'teamMembers', 'teamMember', 'taskStatuses', 'users', 'platformUser']));
    expect(mutations).toEqual(expect.arrayContaining(['createOrganization', 'updateTeamMember', 'deletePlatformUser']));
  });
});
