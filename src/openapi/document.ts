import { enumSchemaDescription, registeredEnums } from '../model/enums';
import { LIST_ARGUMENTS, PAGE_FIELDS, pageDescription } from '../model/descriptions';
import type { JsonSchema } from '../model/fields';
import { registeredShapes } from '../model/json-shapes';
import { upperFirst } from '../model/naming';
import { argumentSchema, entityAnswerOf, pageAnswerOf, rowParamOf, type DomainOperation, type OperationArgument } from '../model/operation';
import { openApiOperationIds, operations } from '../catalog/operations';
import type { Resource } from '../model/resource';
import { resources as registeredResources } from '../catalog/registry';
import { ModuleRegistry } from '../engine/module-registry';
import { modules } from '../modules';
import { described, entitySchema, requestSchema } from './field-schemas';
import { addObjectTypeSchemas } from './object-type-schema';
import { withIdempotencyKeys } from './idempotency';
import { OPENAI_ERROR_TYPES } from '../errors/openai-error';
import { isAiGatewayPath } from '../modules/ai/ai-gateway';
import { BRIDGE_PROXY_METHODS } from '../rest/bridge-proxy-router';

type Operation = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const ERROR_RESPONSES: Record<string, [string, string]> = {
  '400': ['BadRequest', 'Invalid parameters or body'],
  '401': ['Unauthorized', 'Authentication required'],
  '403': ['Forbidden', 'No permission'],
  '404': ['NotFound', 'No resource with that id'],
  '406': ['NotAcceptable', 'The request asks for an answer type the operation does not give; the message names where it is'],
  '409': ['Conflict', 'A resource with the same unique key exists, or the changeSequence is stale'],
  '412': ['PreconditionFailed', 'If-Match names no current version of the row (the body carries currentChangeSequence)'],
  '413': ['PayloadTooLarge', 'The request body is over the limit'],
  '415': ['UnsupportedMediaType', 'The request body is not JSON'],
  '429': ['TooManyRequests', 'Rate limited'],
  '502': ['BadGateway', 'The upstream service could not be reached or answered unusably'],
  '503': ['ServiceUnavailable', 'The operation is not available on this server'],
  '504': ['GatewayTimeout', 'The upstream service did not answer in time'],
};

/** The refusals of a route that reads a JSON body: too large, or of another media type. */
const BODY_ERRORS = ['413', '415'];

/**
 * The error answers of an operation; every authenticated operation can also answer 401, 403, 429 and
 * 503 (a statement past DATABASE_STATEMENT_TIMEOUT_MS).
 */
function errors(...statuses: string[]): Record<string, unknown> {
  const all = [...new Set([...statuses, '401', '403', '429', '503'])].sort();
  return Object.fromEntries(all.map((s) => [s, response(ERROR_RESPONSES[s][0])]));
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** A success answer, with the rate-limit headers every answer carries. */
function ok(description: string, schema?: JsonSchema, headers: Record<string, unknown> = {}): Record<string, unknown> {
  return { description, headers: { ...RATE_LIMIT_HEADERS, ...headers }, ...(schema ? { content: json(schema) } : {}) };
}

const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/**
 * HTTP validators (docs/rest.md, rest/validators.ts): only the answers tagged there carry
 * an ETag, and a GET of one answers 304 while If-None-Match names it: a row's strong ETag (reads and
 * writes of it), a page's weak one, and the OpenAPI document's strong one. Other answers carry none.
 */
const ROW_ETAG = { ETag: { schema: { type: 'string' }, description: 'Strong, "<id>.<changeSequence>": If-Match of a write names it' } };
const PAGE_ETAG = { ETag: { schema: { type: 'string' }, description: "Weak, over the page's rows' ids and versions and the total" } };
const DOCUMENT_ETAG = { ETag: { schema: { type: 'string' }, description: 'Strong, over the bytes of the document' } };
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  schema: { type: 'string' },
  description: 'An ETag of the answer held: 304 with no body while it is current',
};
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  schema: { type: 'string' },
  description: 'The ETag of the version written over: 412 when the row is no longer at it',
};

/** The 304 of a GET answer marked with `etag`. */
function notModified(etag: Record<string, unknown>): Record<string, unknown> {
  return { '304': { description: 'Not modified: the ETag sent in If-None-Match is current; no body', headers: { ...RATE_LIMIT_HEADERS, ...etag } } };
}

/** `TeamMember` or `teamMembers` in words: `team member`, `team members`. */
function words(name: string): string {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, ' $1').toLowerCase();
}

/** The phrase with its indefinite article: `an organization`, `a task`. */
function withArticle(phrase: string): string {
  return `${/^[aeio]|^u(?!s|ni|ti)/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/** `?format=` of an operation that also answers plain text. */
const formatParameter = {
  name: 'format',
  in: 'query',
  schema: { type: 'string', enum: ['json', 'text'], default: 'json' },
  description: 'json (default), or text for text/plain',
};

/** `?format=` of an export: which wins over the Accept header. */
const EXPORT_FORMAT = {
  name: 'format',
  in: 'query',
  schema: { type: 'string', enum: ['csv', 'ndjson'] },
  description: 'csv or ndjson; wins over the Accept header (text/csv or application/x-ndjson); NDJSON when neither asks for CSV',
};

/** The file name an export is saved under. */
const CONTENT_DISPOSITION = {
  'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename="<collection>.csv" (or .ndjson)' },
};

const EXPORT_CONTENT = {
  'text/csv': {
    schema: {
      type: 'string',
      description:
        "RFC 4180: a header row of the field names, then one record per row; text beginning with = + - @, a tab or a carriage return has a leading '; an export ended early lacks the final CRLF",
    },
  },
  'application/x-ndjson': {
    schema: {
      type: 'string',
      description: 'One JSON object per line, as the page shows each row; an export ended early ends with a line {"error": <the error body>}',
    },
  },
};

/** The parameters of a list's export: the list's own but paging (every matching row is streamed). */
function exportParameters(resource: Resource): JsonSchema[] {
  return [...listParameters(resource).filter((p) => p.name !== 'page' && p.name !== 'pageSize'), EXPORT_FORMAT];
}

function listParameters(resource: Resource): JsonSchema[] {
  const oneBased = resource.paging === 'one-based';
  return [
    {
      name: 'page',
      in: 'query',
      schema: { type: 'integer', format: 'int32', minimum: oneBased ? 1 : 0, default: oneBased ? 1 : 0 },
      description: oneBased ? 'Page number, 1-indexed' : 'Page number, zero-indexed',
    },
    {
      name: 'pageSize',
      in: 'query',
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: oneBased ? 1000 : 100, default: oneBased ? 20 : 10 },
      description: 'Rows per page',
    },
    {
      name: 'sort',
      in: 'query',
      schema: oneBased ? { type: 'array', items: { type: 'string' } } : { type: 'string' },
      ...(oneBased ? { style: 'form', explode: true } : {}),
      description: oneBased ? `${LIST_ARGUMENTS.sort}, or field,direction with the parameter repeated` : LIST_ARGUMENTS.sort,
    },
    { name: 'filter', in: 'query', schema: { type: 'string' }, description: LIST_ARGUMENTS.filter },
    { name: 'query', in: 'query', schema: { type: 'string' }, description: LIST_ARGUMENTS.query },
  ];
}

/** Drops the operations the resource does not have (`operations`). */
function served(resource: Resource, operations: Record<string, Operation>): Record<string, Operation> {
  const action = { post: 'create', put: 'update', delete: 'delete' } as const;
  return Object.fromEntries(Object.entries(operations).filter(([method]) => !(method in action) || resource.operations[action[method as keyof typeof action]]));
}

function resourcePaths(resource: Resource): Record<string, Record<string, Operation>> {
  const paths = allResourcePaths(resource);
  return Object.fromEntries(Object.entries(paths).map(([path, operations]) => [path, served(resource, operations)]));
}

/** A resource's tag: its path, or for a nested one its list name in kebab case (`organization-secrets`). */
function tagOf(resource: Resource): string {
  return resource.parent ? resource.listName.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : resource.path;
}

/** A resource's tag's description: where REST and GraphQL serve it. */
function tagDescription(resource: Resource): string {
  const { create, update, delete: remove } = resource.operations;
  const mutations = [create && `create${resource.name}`, update && `update${resource.name}`, remove && `delete${resource.name}`].filter(Boolean);
  const graphql = [resource.listName, resource.itemName, ...mutations].map((name) => `\`${name}\``).join(', ');
  return `${upperFirst(words(resource.listName))}: /api/${resource.path} and its rows; GraphQL ${graphql}`;
}

/** The tags of the operations that belong to no collection. */
const OTHER_TAGS: Record<string, string> = {
  orchestrator: 'Internal callbacks of the activity orchestrator (platform administrators only)',
  analytics: 'Short-lived tokens for the embedded analytics service',
  ai: 'The AI gateway: chat completions with the models of the catalogue (/api/models)',
  meta: 'This OpenAPI document',
  account: "The caller's own profile",
};

/** The noun of a nested collection's parent (`organization`). */
function parentNoun(resource: Resource): string {
  const field = resource.fields.find((f) => f.name === resource.parent?.field);
  return words(field?.reference?.target().name ?? 'parent');
}

/** The path parameter naming a nested collection's parent (`orgId`), none for the others. */
function parentParameters(resource: Resource): JsonSchema[] {
  const parent = resource.parent;
  return parent
    ? [{ name: parent.param, in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: `The ${parent.field} of every row` }]
    : [];
}

/** The modules' rules, read for what they document. */
let registered: ModuleRegistry | undefined;

/** Whether a create may repeat an earlier one (an execution's idempotencyKey): 200 with that row, nothing written. */
function replaysCreates(resource: Resource): boolean {
  registered ??= new ModuleRegistry(registeredResources, modules);
  return registered.rulesOf(resource.entity).replayOf !== undefined;
}

function allResourcePaths(resource: Resource): Record<string, Record<string, Operation>> {
  const { name, path } = resource;
  const plural = upperFirst(resource.listName);
  const tags = [tagOf(resource)];
  const parent = parentParameters(resource);
  const item = [...parent, idParameter];
  const one = words(name);
  // Below a parent, the parent is read first: 404 when it does not exist.
  const below = resource.parent ? `, below the ${parentNoun(resource)} the path names (404 when there is none)` : '';
  const parentErrors = resource.parent ? ['404'] : [];
  const created = { Location: { schema: { type: 'string' }, description: 'Path of the row' }, ...ROW_ETAG };
  return {
    [`/api/${path}`]: {
      get: {
        tags,
        operationId: `list${plural}`,
        summary: `List ${words(resource.listName)}`,
        description:
          `A page of the ${words(resource.listName)} the caller may see${below}: filter, query, sort and paging as the parameters say. ` +
          `JSON only: a format parameter, or an Accept header that admits no JSON, is 406 naming the export (GET /api/${path}/export). ` +
          `GraphQL query \`${resource.listName}\`.`,
        parameters: [...parent, ...listParameters(resource), IF_NONE_MATCH],
        responses: { '200': ok('A page', ref(`${name}Page`), PAGE_ETAG), ...notModified(PAGE_ETAG), ...errors('400', '406', ...parentErrors) },
      },
      post: {
        tags,
        operationId: `create${name}`,
        summary: `Create ${withArticle(one)}`,
        description:
          `Creates ${withArticle(one)} from the body${below}: 201 with the row and its Location` +
          (replaysCreates(resource) ? '; a create repeating the idempotencyKey of an earlier one writes nothing and answers 200 with that row' : '') +
          `. GraphQL mutation \`create${name}\`.`,
        ...(parent.length ? { parameters: parent } : {}),
        requestBody: { required: true, content: json(ref(`${name}CreateRequest`)) },
        responses: {
          ...(replaysCreates(resource) ? { '200': ok('The earlier row whose idempotencyKey the body repeats; nothing was written', ref(name), created) } : {}),
          '201': ok('Created', ref(name), created),
          ...errors('400', '409', ...parentErrors),
        },
      },
    },
    [`/api/${path}/export`]: {
      get: {
        tags,
        operationId: `export${plural}`,
        summary: `Export ${words(resource.listName)}`,
        description:
          `Every ${one} the caller may see${below} that filter, query and sort match (as the list reads them; no paging), streamed as the client reads: ` +
          `CSV (a header row of the field names) or one JSON object per line, as format, else the Accept header, asks (NDJSON when neither asks for CSV). ` +
          `400 before anything is streamed past EXPORT_MAX_ROWS rows; 429 while the user streams EXPORT_MAX_CONCURRENT_PER_USER exports.`,
        parameters: [...parent, ...exportParameters(resource)],
        responses: {
          '200': { ...ok('Every matching row', undefined, CONTENT_DISPOSITION), content: EXPORT_CONTENT },
          ...errors('400', ...parentErrors),
        },
      },
    },
    [`/api/${path}/{id}`]: {
      get: {
        tags,
        operationId: `get${name}`,
        summary: `Get ${withArticle(one)}`,
        description: `The ${one} with that id, when the caller may see it (404 otherwise). GraphQL query \`${resource.itemName}\`.`,
        parameters: [...item, IF_NONE_MATCH],
        responses: { '200': ok('The resource', ref(name), ROW_ETAG), ...notModified(ROW_ETAG), ...errors('400', '404') },
      },
      put: {
        tags,
        operationId: `update${name}`,
        summary: `Update ${withArticle(one)}`,
        description: `Writes the fields the body carries; a stale changeSequence is 409, an If-Match naming another version 412. GraphQL mutation \`update${name}\`.`,
        parameters: [...item, IF_MATCH],
        requestBody: { required: true, content: json(ref(`${name}UpdateRequest`)) },
        responses: { '200': ok('Updated', ref(name), ROW_ETAG), ...errors('400', '404', '409', '412') },
      },
      delete: {
        tags,
        operationId: `delete${name}`,
        summary: `Delete ${withArticle(one)}`,
        parameters: [...item, IF_MATCH],
        description:
          (resource.delete.kind === 'soft' ? `Sets ${resource.delete.field}=${resource.delete.value}` : 'Removes the resource permanently') +
          `. GraphQL mutation \`delete${name}\`.`,
        responses: { '204': ok('Deleted'), ...errors('400', '404', '409', '412') },
      },
    },
    [`/api/${path}/{id}/sequence`]: {
      get: {
        tags,
        operationId: `get${name}Sequence`,
        summary: `Get the change sequence of ${withArticle(one)}`,
        description: "The row's current changeSequence, to compare with the one held before updating.",
        parameters: item,
        responses: { '200': ok('The current change sequence', { type: 'integer', format: 'int32' }), ...errors('400', '404') },
      },
    },
  };
}

/** A domain operation's OpenAPI operation: its id, the row its path names, its body (or list parameters) and its answers. */
function operationPath(operation: DomainOperation, resources: readonly Resource[]): Operation {
  const paged = resources.find((r) => r.entity === pageAnswerOf(operation));
  const entity = entityAnswerOf(operation);
  const answer = paged ? ref(`${paged.name}Page`) : entity ? ref(entity.name) : ref((operation.answer as { schema: string }).schema);
  const properties = Object.fromEntries(operation.body.map((a) => [a.name, bodyArgumentSchema(a)]));
  const required = operation.body.filter((a) => a.required).map((a) => a.name);
  const body = { type: 'object', properties, ...(required.length ? { required } : {}), ...(operation.anyObjectBody ? { additionalProperties: true } : {}) };
  const param = rowParamOf(operation);
  const pathParams = [param, ...(operation.pathParams ?? [])].filter((name): name is string => name !== undefined);
  const read = operation.method === 'get';
  const parameters = [
    ...pathParams.map((name) => ({ ...idParameter, name })),
    ...(paged ? listParameters(paged) : []),
    ...(operation.textFormat ? [formatParameter] : []),
    ...(paged ? [IF_NONE_MATCH] : []),
  ];
  const takesBody = !read && (operation.body.length || !operation.bodyOptional);
  const success = ok(paged ? 'A page' : 'Done', answer, paged ? PAGE_ETAG : {});
  const graphql = operation.restOnly ? 'REST only.' : `GraphQL ${read ? 'query' : 'mutation'} \`${operation.operationId}\`.`;
  return {
    tags: [operation.tag],
    operationId: openApiOperationIds[operation.operationId] ?? operation.operationId,
    summary: leadingClause(operation.summary),
    description: `${operation.summary}. ${graphql}`,
    ...(parameters.length ? { parameters } : {}),
    ...(takesBody ? { requestBody: { required: !operation.bodyOptional, content: json(body) } } : {}),
    responses: {
      [String(operation.status)]: operation.textFormat ? { ...success, content: { ...json(answer), 'text/plain': { schema: { type: 'string' } } } } : success,
      ...(paged ? notModified(PAGE_ETAG) : {}),
      // Every route but a page's reads a body (optional or not): one that is not JSON, or too large, is refused.
      ...errors(...operation.errors, ...(read ? [] : BODY_ERRORS)),
    },
  };
}

/** An operation's summary up to its first `: ` or `; ` (the rest stays in its description). */
function leadingClause(summary: string): string {
  return summary.split(/[:;] /)[0];
}

/** An argument's schema; `nullable` only counts beside a type, and without one null is already allowed. */
function bodyArgumentSchema(argument: OperationArgument): JsonSchema {
  const schema = argumentSchema(argument);
  if (schema.type === undefined) delete schema.nullable;
  return schema;
}

/** The paths of the domain operations (two operations may share a path with different methods). */
function operationPaths(operations: readonly DomainOperation[], resources: readonly Resource[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const operation of operations) (paths[`/api/${operation.path}`] ??= {})[operation.method] = operationPath(operation, resources);
  return paths;
}

const PROXY_METHODS = BRIDGE_PROXY_METHODS.map((method) => method.toLowerCase());

/**
 * The service bridge proxy (rest/bridge-proxy-router.ts): any method, passed on to the upstream; the
 * upstream's status, content type and body come back as they are.
 */
function bridgeProxyPaths(): Record<string, Record<string, Operation>> {
  const bridge = { ...idParameter, description: 'The service bridge (readable by the caller)' };
  const endpointName = {
    name: 'endpointName',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: "The endpoint's name; unknown: 404 listing the bridge's endpoints",
  };
  const proxy = (operationId: string, summary: string, description: string, parameters: JsonSchema[]) =>
    Object.fromEntries(
      PROXY_METHODS.map((method) => [
        method,
        {
          tags: ['service-bridges'],
          operationId: `${operationId}${upperFirst(method)}`,
          summary,
          description: `${description} The upstream's own status comes back as it is; 200 stands for all of them.`,
          parameters,
          ...(method === 'get' || method === 'head' || method === 'delete'
            ? {}
            : { requestBody: { required: false, content: json({ description: 'Passed on as JSON' }) } }),
          responses: {
            '200': {
              ...ok("The upstream's answer: its status, content type and body as it sent them; 200 [] without a call when a required field is missing"),
              ...(method === 'head' ? {} : { content: { '*/*': { schema: {} } } }),
            },
            ...errors('400', '404', '502', '504', ...(method === 'get' || method === 'head' ? [] : BODY_ERRORS)),
          },
        },
      ]),
    );
  return {
    '/api/service-bridges/{id}/proxy/{endpointName}': proxy(
      'proxyServiceBridgeEndpoint',
      'Call a bridge endpoint',
      "Calls the endpoint through the egress guard: baseUrl + path and the query string, the endpoint's method (default this one), the JSON body.",
      [bridge, endpointName],
    ),
    '/api/service-bridges/{id}/proxy': proxy(
      'proxyServiceBridgeSoleEndpoint',
      'Call the sole endpoint of a bridge',
      'Calls the sole endpoint of a single-endpoint bridge (400 listing the names when it has several), as /proxy/{endpointName} does.',
      [bridge],
    ),
  };
}

/** The AI gateway (rest/ai-gateway-router.ts): a chat completion answered whole, or streamed as server-sent events. */
function aiGatewayPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/ai/chat/completions': {
      post: {
        tags: ['ai'],
        operationId: 'chatCompletion',
        summary: 'Create a chat completion',
        description:
          "A chat completion with a model of the catalogue, through its provider's OpenAI-compatible API. " +
          'Before any upstream call: an unknown or disabled model is 400 naming it; tools on a model without supports_tools, an image_url part ' +
          'without supports_vision, a document part without supports_documents are 400 "model <name> does not support tools|images|documents"; ' +
          "a provider not configured on the server (or its key variable unset) is 503. The provider gets the model's upstreamModel; the answer " +
          'names the catalogue model and carries reasoning only for models with reasoning_output. With stream: true the answer is text/event-stream: ' +
          "the provider's chunks as they arrive, then data: [DONE]; a failure before the first chunk is the plain error body, after it an " +
          'event: error whose data is that same error body, and the stream ends. Errors are in the shape OpenAI clients read (OpenAiError), with ' +
          "upstreamStatus when the provider answered an error status: its 400, 404, 413 or 422 keeps its status (the request was at fault), its 429 is 429 with the provider's " +
          'Retry-After, its 401 or 403 (the provider key) is 502 with x-should-retry: false, its 5xx is 502; no answer in time is 504 with x-should-retry: false, ' +
          'a broken connection 502, an egress refusal 400. Every refusal made before the provider is called says x-should-retry: false.',
        requestBody: { required: true, content: json(ref('ChatCompletionRequest')) },
        responses: {
          '200': {
            ...ok("The provider's answer"),
            content: {
              ...json(ref('ChatCompletion')),
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description:
                    'With stream: true: events "data: <ChatCompletion chunk JSON>", then "data: [DONE]"; a failure after the first chunk: "event: error" with "data: <Error JSON>"',
                },
              },
            },
          },
          ...errors('400', '404', '502', '503', '504'),
        },
      },
    },
    '/api/ai/models': {
      get: {
        tags: ['ai'],
        operationId: 'listAiModels',
        summary: 'List the models of the AI gateway',
        description:
          'The enabled models of the catalogue (/api/models), by name, in the list shape OpenAI clients read: id is the name chat completions take as model.',
        responses: { '200': ok('The enabled models', ref('AiModelList')), ...errors() },
      },
    },
  };
}

const chatSchemas: Record<string, JsonSchema> = {
  OpenAiError: {
    type: 'object',
    description: "An error of the AI gateway's paths: the Error body, but error is an object as OpenAI clients read it",
    properties: {
      error: {
        type: 'object',
        properties: {
          message: { type: 'string', description: 'The same text as message' },
          type: { type: 'string', enum: [...OPENAI_ERROR_TYPES] },
          param: { type: 'string', nullable: true, description: 'The offending field (the first one details names), or null' },
          code: { type: 'string', description: 'The error code, as GraphQL extensions.code gives it (BAD_REQUEST, RATE_LIMITED, BAD_GATEWAY ...)' },
        },
        required: ['message', 'type', 'param', 'code'],
      },
      message: { type: 'string' },
      status: { type: 'integer', format: 'int32' },
      upstreamStatus: { type: 'integer', format: 'int32', description: "The provider's status, when it answered with an error status" },
      details: {
        type: 'array',
        items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'message'] },
      },
    },
    required: ['error', 'message', 'status'],
  },
  AiModelList: {
    type: 'object',
    properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: ref('AiModel') } },
    required: ['object', 'data'],
  },
  AiModel: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'The catalogue name, which chat completions take as model' },
      object: { type: 'string', enum: ['model'] },
      created: { type: 'integer', format: 'int64', description: 'When the model joined the catalogue, epoch seconds' },
      owned_by: { type: 'string', description: 'Its provider' },
    },
    required: ['id', 'object', 'created', 'owned_by'],
  },
  ChatCompletionRequest: {
    type: 'object',
    description: 'Further OpenAI-compatible parameters (temperature, max_tokens ...) are passed on as they are',
    properties: {
      model: { type: 'string', description: 'The name of a model of the catalogue (/api/models)' },
      messages: { type: 'array', minItems: 1, items: ref('ChatMessage') },
      tools: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Needs supports_tools; an empty list is no tools' },
      stream: { type: 'boolean', default: false, description: 'Answer text/event-stream, chunk by chunk' },
    },
    required: ['model', 'messages'],
    additionalProperties: true,
  },
  ChatMessage: {
    type: 'object',
    properties: {
      role: { type: 'string', description: 'system, user, assistant, tool ...' },
      // null matches the first branch alone (nullable only counts beside a type).
      content: {
        oneOf: [
          { type: 'string', nullable: true },
          { type: 'array', items: ref('ChatContentPart') },
        ],
      },
    },
    required: ['role'],
    additionalProperties: true,
  },
  ChatContentPart: {
    type: 'object',
    description: 'text {text}; image_url {image_url: {url}} (needs supports_vision); document {document: {name, mimeType, data}} (needs supports_documents)',
    properties: {
      type: { type: 'string', description: 'text, image_url or document (other types are passed on)' },
      text: { type: 'string' },
      image_url: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
      document: {
        type: 'object',
        properties: { name: { type: 'string' }, mimeType: { type: 'string' }, data: { type: 'string', description: 'The content, base64' } },
        required: ['name', 'mimeType', 'data'],
      },
    },
    required: ['type'],
    additionalProperties: true,
  },
  ChatCompletion: {
    type: 'object',
    description:
      "The provider's answer as it sent it, but model (the catalogue name) and, unless the model has reasoning_output, without reasoning in its messages",
    properties: {
      id: { type: 'string' },
      object: { type: 'string' },
      created: { type: 'integer', format: 'int64' },
      model: { type: 'string' },
      choices: { type: 'array', items: { type: 'object', additionalProperties: true } },
      usage: { type: 'object', additionalProperties: true },
    },
    additionalProperties: true,
  },
};

function pageSchema(resource: Resource): JsonSchema {
  const int32 = { type: 'integer', format: 'int32' };
  return {
    type: 'object',
    description: pageDescription(resource.listName),
    properties: {
      content: { type: 'array', items: ref(resource.name), description: PAGE_FIELDS.content },
      first: { type: 'boolean', description: PAGE_FIELDS.first },
      last: { type: 'boolean', description: PAGE_FIELDS.last },
      number: { ...int32, description: PAGE_FIELDS.number },
      numberOfElements: { ...int32, description: PAGE_FIELDS.numberOfElements },
      size: { ...int32, description: PAGE_FIELDS.size },
      totalElements: { type: 'integer', format: 'int64', description: PAGE_FIELDS.totalElements },
      totalPages: { ...int32, description: PAGE_FIELDS.totalPages },
      pageable: described(ref('Pageable'), 'The paging this page was read with'),
      sort: described(ref('SortObject'), 'Whether this page is sorted'),
    },
    required: ['content', 'first', 'last', 'number', 'numberOfElements', 'size', 'totalElements', 'totalPages', 'pageable', 'sort'],
  };
}

const sharedSchemas: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    properties: {
      error: { type: 'string', description: 'HTTP reason phrase' },
      message: { type: 'string' },
      status: { type: 'integer', format: 'int32' },
      details: {
        type: 'array',
        items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'message'] },
      },
    },
    required: ['error', 'message', 'status'],
  },
  UpstreamError: {
    allOf: [
      ref('Error'),
      {
        type: 'object',
        properties: { upstreamStatus: { type: 'integer', format: 'int32', description: "The upstream's status, when it answered with an error status" } },
      },
    ],
  },
  ConflictError: {
    allOf: [
      ref('Error'),
      {
        type: 'object',
        properties: { currentChangeSequence: { type: 'integer', format: 'int32', description: 'Present when the changeSequence sent was stale' } },
      },
    ],
  },
  SortObject: {
    type: 'object',
    properties: { empty: { type: 'boolean' }, sorted: { type: 'boolean' }, unsorted: { type: 'boolean' } },
    required: ['empty', 'sorted', 'unsorted'],
  },
  Pageable: {
    type: 'object',
    properties: {
      offset: { type: 'integer', format: 'int64' },
      pageNumber: { type: 'integer', format: 'int32' },
      pageSize: { type: 'integer', format: 'int32' },
      paged: { type: 'boolean' },
      unpaged: { type: 'boolean' },
      sort: ref('SortObject'),
    },
    required: ['offset', 'pageNumber', 'pageSize', 'paged', 'unpaged', 'sort'],
  },
};

/** The OpenAPI 3.0.3 document of the whole API, derived from the same declarations as GraphQL. */
export function buildOpenApiDocument(resources: readonly Resource[]): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = { ...sharedSchemas, ...chatSchemas };
  for (const definition of registeredEnums())
    schemas[definition.name] = { type: 'string', description: enumSchemaDescription(definition), enum: [...definition.values] };
  for (const [name, shape] of registeredShapes()) schemas[name] = shape;
  for (const resource of resources) {
    schemas[resource.name] = entitySchema(resource.entity, resource.fields);
    if (resource.operations.create) schemas[`${resource.name}CreateRequest`] = requestSchema(resource, 'create');
    if (resource.operations.update) schemas[`${resource.name}UpdateRequest`] = requestSchema(resource, 'update');
    schemas[`${resource.name}Page`] = pageSchema(resource);
  }
  for (const operation of operations) {
    if ('schema' in operation.answer) addObjectTypeSchemas(schemas, operation.answer.graphql(), operation.answer.schema);
  }
  const errorResponse = (description: string, schema = 'Error') => ({ description, content: json(ref(schema)) });
  const document = {
    openapi: '3.0.3',
    info: {
      title: 'Document Processing Platform API',
      version: '8.0.0',
      description: 'REST API of the document-processing and workflow platform. The same model is served as GraphQL at /graphql.',
      // package.json's license.
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    servers: [{ url: '/', description: 'This instance' }],
    security: [{ 'x-api-key': [] }, { bearerAuth: [] }],
    // Filled in by withTags once every operation is known.
    tags: [] as { name: string; description: string }[],
    paths: {
      ...Object.assign({}, ...resources.map(resourcePaths)),
      ...operationPaths(operations, resources),
      ...bridgeProxyPaths(),
      ...aiGatewayPaths(),
      '/v3/api-docs': {
        get: {
          tags: ['meta'],
          operationId: 'getApiDocs',
          summary: 'Get this OpenAPI document',
          description: 'The OpenAPI 3.0.3 document of the REST API, as schema/openapi.json holds it.',
          parameters: [IF_NONE_MATCH],
          responses: { '200': ok('OpenAPI 3.0.3 document', { type: 'object' }, DOCUMENT_ETAG), ...notModified(DOCUMENT_ETAG), ...errors() },
        },
      },
      '/api/account/me': {
        get: {
          tags: ['account'],
          operationId: 'getCurrentUser',
          summary: 'Get the authenticated caller',
          description: 'The PlatformUser the credentials (API key or bearer token) belong to. GraphQL query `me`.',
          parameters: [IF_NONE_MATCH],
          responses: { '200': ok('The caller', ref('PlatformUser'), ROW_ETAG), ...notModified(ROW_ETAG), ...errors() },
        },
      },
      '/api/account/callback': {
        post: {
          tags: ['account'],
          operationId: 'accountCallback',
          summary: "Synchronize the caller's profile",
          description:
            'After an identity-provider sign-in. ' +
            "With a bearer token: creates or updates the PlatformUser the token names (by sub, then email) from its claims (email, given_name, family_name, picture). With other credentials: answers the caller's profile unchanged.",
          responses: { '200': ok('User profile synchronised', ref('PlatformUser')), ...errors('400') },
        },
      },
    },
    components: {
      schemas,
      responses: {
        BadRequest: errorResponse('Invalid parameters or body'),
        Unauthorized: errorResponse('Missing or invalid credentials'),
        Forbidden: errorResponse('Authenticated without permission'),
        NotFound: errorResponse('No resource with the given id'),
        NotAcceptable: errorResponse(
          'The request asks for a type the operation does not answer (a list asked for CSV or NDJSON): the message names the path that does',
        ),
        Conflict: errorResponse('Uniqueness violation, stale changeSequence, or a request with the same Idempotency-Key still running', 'ConflictError'),
        PreconditionFailed: errorResponse('If-Match names no current version of the row; currentChangeSequence says where it is', 'ConflictError'),
        BadGateway: errorResponse(
          'The upstream service answered an error status (upstreamStatus), could not be reached, broke off, redirected too often or answered more than 10 MB',
          'UpstreamError',
        ),
        GatewayTimeout: errorResponse('The upstream service did not answer in time'),
        TooManyRequests: {
          ...errorResponse(
            'Rate limited: per API key at most RATE_LIMIT_PER_MINUTE requests a minute and RATE_LIMIT_BURST_PER_SECOND a second, and all keys and bearer tokens of one user together at most RATE_LIMIT_USER_PER_MINUTE a minute; a GraphQL document counts one request per root mutation field',
          ),
          headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
        },
        ServiceUnavailable: {
          ...errorResponse(
            'The operation is not available on this server (for example the analytics embed token minter is disabled or its key unusable, or an AI provider is not configured), or a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS and was cancelled (with Retry-After)',
          ),
          headers: { 'Retry-After': { description: 'Seconds to wait before retrying (a cancelled statement)', schema: { type: 'integer' } } },
        },
        PayloadTooLarge: errorResponse('The request body is over the limit of its route (1 MB; 20 MB for chat completions); the message names it'),
        UnsupportedMediaType: errorResponse('The request body has a Content-Type other than application/json or application/*+json'),
      },
      headers: {
        'X-RateLimit-Limit': { description: 'Requests allowed per minute', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Epoch seconds at which the minute window resets', schema: { type: 'integer' } },
        'x-should-retry': {
          description:
            "On the AI gateway's paths, false on every error but a provider's 429 or 5xx and a broken connection: OpenAI clients then do not send the request again on their own",
          schema: { type: 'string', enum: ['false'] },
        },
      },
      securitySchemes: {
        'x-api-key': {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'An API key from POST /api/access-tokens (the legacy header x-access-token is accepted too, and so is the key as a bearer token: see bearerAuth)',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A JWT from the identity provider (issuer, audience and expiry checked), or an API key (pk_…): a bearer token of the API-key form is looked up as a key, so OpenAI clients given only an apiKey authenticate',
        },
      },
    },
  };
  return withTags(withHeadOperations(withOpenAiErrors(withBodyLimits(withIdempotencyKeys(document)))), resources);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is a JSON tree, walked by key
type PathItems = Record<string, Record<string, any>>;

/**
 * Every operation that takes a body may answer 413 past the body limit, and 415 for a body that is not
 * JSON (rest/json-body.ts). Writes that read a body they do not document (PUT /api/tasks/{id}/lock)
 * list BODY_ERRORS themselves.
 */
function withBodyLimits<T extends Record<string, unknown>>(document: T): T {
  for (const item of Object.values(document.paths as PathItems)) {
    for (const operation of Object.values(item)) {
      if (operation?.requestBody) {
        operation.responses = sortedByStatus({ ...operation.responses, '413': response('PayloadTooLarge'), '415': response('UnsupportedMediaType') });
      }
    }
  }
  return document;
}

/**
 * The AI gateway's paths answer errors as OpenAI clients read them (rest/error-handler.ts): each error
 * answer there is the OpenAI twin of the shared one (`OpenAiBadRequest` of `BadRequest`), with the
 * OpenAiError body and the x-should-retry header.
 */
function withOpenAiErrors<T extends Record<string, unknown>>(document: T): T {
  const shared = (document.components as { responses: PathItems }).responses;
  for (const [path, item] of Object.entries(document.paths as PathItems)) {
    if (!isAiGatewayPath(path)) continue;
    for (const operation of Object.values(item)) {
      operation.responses = Object.fromEntries(
        Object.entries(operation.responses as PathItems).map(([status, answer]) => [status, Number(status) >= 400 ? openAiTwin(answer, shared) : answer]),
      );
    }
  }
  return document;
}

/** The OpenAI twin of a shared error answer, declared among the shared ones the first time it is needed; an answer of its own becomes one in place. */
function openAiTwin(answer: PathItems[string], shared: PathItems): Record<string, unknown> {
  if (!answer.$ref) return openAiShaped(answer);
  const name = String(answer.$ref).split('/').pop()!;
  const twin = `OpenAi${name}`;
  shared[twin] ??= openAiShaped(shared[name]);
  return response(twin);
}

function openAiShaped(answer: PathItems[string]): Record<string, unknown> {
  return {
    description: answer.description,
    headers: { ...answer.headers, 'x-should-retry': { $ref: '#/components/headers/x-should-retry' } },
    content: json(ref('OpenAiError')),
  };
}

/**
 * Express answers HEAD wherever it answers GET, and the Allow headers list it there: each GET gets its
 * HEAD twin, with the same parameters and statuses and no bodies (a path that declares its own HEAD
 * keeps it).
 */
function withHeadOperations<T extends Record<string, unknown>>(document: T): T {
  const paths = document.paths as PathItems;
  for (const [path, item] of Object.entries(paths)) {
    const get = item.get;
    if (!get || item.head) continue;
    const head = {
      tags: get.tags,
      operationId: `${get.operationId}Head`,
      summary: `${get.summary} (headers only)`,
      description: `GET ${path} without the body: the same statuses and headers.`,
      ...(get.parameters ? { parameters: [...get.parameters] } : {}),
      responses: Object.fromEntries(Object.entries(get.responses as PathItems).map(([status, answer]) => [status, withoutContent(answer)])),
    };
    paths[path] = Object.fromEntries(
      Object.entries(item).flatMap(([method, operation]) =>
        method === 'get'
          ? [
              [method, operation],
              ['head', head],
            ]
          : [[method, operation]],
      ),
    );
  }
  return document;
}

/** An answer to HEAD: its headers, no body (a shared error answer stays a reference). */
function withoutContent(answer: Record<string, unknown>): Record<string, unknown> {
  const { content: _content, ...rest } = answer;
  return rest;
}

/** Declares every tag the operations use, once: the collections' first, then the others (OTHER_TAGS). */
function withTags<T extends Record<string, unknown>>(document: T, resources: readonly Resource[]): T {
  const declared = resources.map((resource) => ({ name: tagOf(resource), description: tagDescription(resource) }));
  const used = new Set(Object.values(document.paths as PathItems).flatMap((item) => Object.values(item).flatMap((operation) => operation.tags as string[])));
  for (const name of used) {
    if (declared.some((tag) => tag.name === name)) continue;
    const description = OTHER_TAGS[name];
    if (!description) throw new Error(`the OpenAPI tag ${name} belongs to no collection and has no description in OTHER_TAGS`);
    declared.push({ name, description });
  }
  (document as Record<string, unknown>).tags = declared;
  return document;
}

function sortedByStatus(responses: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
