import type { EntityClass } from '@mikro-orm/core';
import type { JsonSchema } from './fields';

/**
 * A domain operation beyond list/get/create/update/delete (`PUT /api/tasks/{id}/lock`): declared once,
 * served as a REST route, a GraphQL mutation (a query for `get`) named by its `operationId` and an
 * OpenAPI operation. Its behaviour is the handler a domain module registers under the same
 * `operationId`. A `get` operation is a GraphQL query and takes no body: it answers a page
 * (`answer: { page }`, taking the list arguments) or a shape of its own.
 */
export interface DomainOperation {
  /** OpenAPI operationId and GraphQL mutation (or query) name, e.g. `lockTask`. */
  operationId: string;
  method: 'get' | 'put' | 'post' | 'delete';
  /** Path under /api; `{id}` (or `{<rowParam>}`) names the row the operation acts on (GraphQL argument `id: ID!`). */
  path: string;
  /** The path parameter naming the row, where the specification names it otherwise (`{executionId}`); default `id`. */
  rowParam?: string;
  /** Further path parameters (UUIDs) beyond the row's, handed to the operation by name (`{stepId}`). */
  pathParams?: string[];
  /** Served over REST only (an internal callback): no GraphQL field. */
  restOnly?: boolean;
  /** The body is any JSON object, handed to the operation whole (beside the declared arguments, if any). */
  anyObjectBody?: boolean;
  /** OpenAPI tag: the collection the operation belongs to. */
  tag: string;
  summary: string;
  /** The fields of the JSON body, also the GraphQL arguments beside `id`. */
  body: OperationArgument[];
  /** The body may be absent (`PUT /api/tasks/{id}/lock`). */
  bodyOptional?: boolean;
  /**
   * What it answers: a resource's entity (as the resource's REST JSON and GraphQL type), a page of a
   * resource's rows (its `{Name}Page`, the list arguments as query parameters) or a shape of its own.
   */
  answer: { entity: EntityClass<object> } | { page: EntityClass<object> } | { schema: string; graphql: () => Function };
  /**
   * A plain-text rendering of the answer, served over REST for `?format=text` (`?format=json`, the
   * default, answers JSON; any other format is 400). GraphQL answers the object.
   */
  textFormat?(answer: object): string;
  /** Success status. */
  status: 200 | 201 | 202;
  /** Error statuses beyond 401, 403 and 429 (which every operation may answer); 502 and 504 for calls to other services. */
  errors: ('400' | '404' | '409' | '502' | '503' | '504')[];
}

/** The path parameter naming the row the operation acts on, if its path has one. */
export function rowParamOf(operation: DomainOperation): string | undefined {
  const name = operation.rowParam ?? 'id';
  return operation.path.includes(`{${name}}`) ? name : undefined;
}

/** `stringArray` is an array of texts, `json` an object, `jsonArray` an array of objects, `jsonValue` any JSON value. */
export type ArgumentKind = 'id' | 'string' | 'stringArray' | 'json' | 'jsonArray' | 'jsonValue';

export interface OperationArgument {
  name: string;
  kind: ArgumentKind;
  required?: boolean;
  description?: string;
  /** Accepted in REST bodies only (an alias such as a DocumentStatus object's `id`). */
  restOnly?: boolean;
}

/** The entity whose page the operation answers (a `get` operation), if it answers one. */
export function pageAnswerOf(operation: DomainOperation): EntityClass<object> | undefined {
  return 'page' in operation.answer ? operation.answer.page : undefined;
}

/** The entity the operation answers one row of, if it does. */
export function entityAnswerOf(operation: DomainOperation): EntityClass<object> | undefined {
  return 'entity' in operation.answer ? operation.answer.entity : undefined;
}

/** `{ "reason": ... }`: the arguments' JSON Schema as OpenAPI lists it. */
export function argumentSchema(argument: OperationArgument): JsonSchema {
  const base: Record<string, JsonSchema> = {
    id: { type: 'string', format: 'uuid' },
    string: { type: 'string' },
    stringArray: { type: 'array', items: { type: 'string' } },
    json: { type: 'object', additionalProperties: true },
    jsonArray: { type: 'array', items: { type: 'object', additionalProperties: true } },
    jsonValue: {},
  };
  return { ...base[argument.kind], ...(argument.required ? {} : { nullable: true }), ...(argument.description ? { description: argument.description } : {}) };
}
