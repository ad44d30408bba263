import {
  getArgumentValues,
  getNamedType,
  getVariableValues,
  GraphQLError,
  isNonNullType,
  isObjectType,
  Kind,
  type ExecutionResult,
  type FormattedExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLOutputType,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { writableAsJson, type JsonPage, type JsonPageEntry, type JsonRow, type JsonRowEntry, type PageSummaryField } from '../engine/json-pages';
import { ApiError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';
import { collectionNamesOf } from '../model/fields';
import type { Resource } from '../model/resource';
import type { GraphqlContext } from './context';
import type { ListArgs } from './types';

/** A root field's answer as the database wrote it: the response carries the text as it is (see `stringifyAnswer`). */
export class JsonText {
  constructor(readonly text: string) {}
}

const SUMMARY_FIELDS = new Set<string>(['totalElements', 'totalPages', 'number', 'size', 'numberOfElements', 'first', 'last']);

interface Collection {
  child: Resource;
  foreignKey: string;
}

/** A to-one relation: the resource it names and the field holding the id. */
interface Reference {
  target: Resource;
  foreignKey: string;
}

/** What a query may name: the list fields of the resources, the to-many and to-one relations of each. */
interface Catalogue {
  lists: Map<string, Resource>;
  items: Map<string, Resource>;
  collections: Map<Resource, Map<string, Collection>>;
  references: Map<Resource, Map<string, Reference>>;
}

function catalogueOf(resources: readonly Resource[]): Catalogue {
  const collections = new Map<Resource, Map<string, Collection>>(resources.map((r) => [r, new Map()]));
  const references = new Map<Resource, Map<string, Reference>>(resources.map((r) => [r, new Map()]));
  for (const child of resources) {
    for (const field of child.fields) {
      if (!field.reference) continue;
      const target = resources.find((r) => r.entity === field.reference!.target());
      if (!target) continue;
      references.get(child)!.set(field.reference.relation, { target, foreignKey: field.name });
      for (const name of collectionNamesOf(field)) collections.get(target)!.set(name, { child, foreignKey: field.name });
    }
  }
  const byName = (name: (r: Resource) => string) => new Map(resources.map((r) => [name(r), r]));
  return { lists: byName((r) => r.listName), items: byName((r) => r.itemName), collections, references };
}

/** Thrown while reading a document that the database cannot answer alone; the resolvers answer it. */
class NotInSql extends Error {}

/**
 * Answers a query whose every root field is a list or an item, of stored fields, references and nested
 * lists (pages of to-many relations) at any depth, with one statement per root field, in which the
 * database writes the JSON of the answer: Node neither reads the rows nor serializes them. Anything
 * else (operations, directives, a field the database does not store, a caller who sees a projection
 * of a row, an item the lists do not show the caller) is answered by the resolvers: undefined, known
 * before any statement is sent. The levels are the lists the resolvers would read, so the answer is the same.
 */
export class SqlAnswers {
  private readonly catalogue: Catalogue;

  constructor(
    private readonly schema: GraphQLSchema,
    resources: readonly Resource[],
  ) {
    this.catalogue = catalogueOf(resources);
  }

  async answer(
    operation: OperationDefinitionNode,
    fragments: Record<string, FragmentDefinitionNode>,
    variableValues: Record<string, unknown> | undefined,
    context: GraphqlContext,
  ): Promise<ExecutionResult | undefined> {
    if (operation.operation !== 'query') return undefined;
    const coerced = getVariableValues(this.schema, operation.variableDefinitions ?? [], variableValues ?? {});
    if (coerced.errors) return undefined;
    let roots: RootAnswer[];
    const reading = new DocumentReading(this.schema, this.catalogue, fragments, coerced.coerced);
    try {
      roots = reading.roots(operation.selectionSet);
    } catch (error) {
      if (error instanceof NotInSql) return undefined;
      throw error;
    }
    const data: Record<string, unknown> = {};
    const errors: GraphQLError[] = [];
    const { ctx } = context;
    for (const root of roots) {
      if ('literal' in root) {
        data[root.key] = root.literal;
        continue;
      }
      let text: string | undefined;
      try {
        // A change of access that committed since the last root field holds for this one.
        await ctx.confirmAccess();
        const service = ctx.services.resource(root.path);
        text = await ('page' in root ? service.pageAsJson(ctx, root.page) : service.itemAsJson(ctx, root.item.id, root.item.row));
      } catch (error) {
        // An answer past the request's budget is refused whole (see answer-budget.ts).
        if (error === ctx.budget.exceeded) throw error;
        // A refusal (a bad filter, a parent not the caller's, a revoked key) is found before any statement
        // runs: the resolvers word it, with its path. A statement that failed (cancelled by the statement
        // timeout, or a defect) is answered as it is: running it again elsewhere would only fail again
        // (and once one has failed, so is every later root field).
        if (error instanceof ApiError && errors.length === 0) return undefined;
        errors.push(failure(root.key, normalizeError(error)));
        // A field that may not be null takes the whole answer with it, as GraphQL has it.
        if (!root.nullable) return { data: null, errors };
        data[root.key] = null;
        continue;
      }
      if (text === undefined) return undefined;
      data[root.key] = new JsonText(text);
    }
    return errors.length ? { data, errors } : { data };
  }
}

/** A root field's error as the resolvers' would be: formatted from `error` (graphql/errors.ts). */
const failure = (key: string, error: ApiError) => new GraphQLError(error.message, { path: [key], originalError: error });

/** One document read against the schema with its variables: the pages its root fields ask for. */
class DocumentReading {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly catalogue: Catalogue,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
  ) {}

  roots(selectionSet: SelectionSetNode): RootAnswer[] {
    const query = this.schema.getQueryType()!;
    return this.fields(selectionSet, query).map((node) => {
      const key = responseKey(node);
      if (node.name.value === '__typename') return { key, literal: query.name };
      const definition = query.getFields()[node.name.value];
      const nullable = !!definition && !isNonNullType(definition.type);
      const item = this.catalogue.items.get(node.name.value);
      if (item && definition) {
        const { id } = this.argumentsOf(definition, node);
        if (typeof id !== 'string') throw new NotInSql();
        return { key, nullable, path: item.path, item: { id, row: this.row(node, item, objectType(definition.type)) } };
      }
      const resource = this.catalogue.lists.get(node.name.value);
      if (!resource || !definition) throw new NotInSql();
      const args = this.argumentsOf(definition, node);
      const parentId = resource.parent ? (args[resource.parent.field] as string | undefined) : undefined;
      return { key, nullable, path: resource.path, page: this.page(node, resource, definition.type, args, parentId) };
    });
  }

  private page(node: FieldNode, resource: Resource, type: GraphQLOutputType, args: Record<string, unknown>, parentId?: string): JsonPage {
    const pageType = objectType(type);
    const entries: JsonPageEntry[] = this.fields(node.selectionSet, pageType).map((field) => {
      const key = responseKey(field);
      const name = field.name.value;
      if (name === '__typename') return { key, literal: pageType.name };
      if (SUMMARY_FIELDS.has(name)) return { key, summary: name as PageSummaryField };
      if (name !== 'content') throw new NotInSql();
      return { key, content: this.row(field, resource, objectType(pageType.getFields().content.type)) };
    });
    const { page, pageSize, filter, query, sort } = args as ListArgs;
    return { params: { page, pageSize, filter, query, sort, ...(parentId === undefined ? {} : { parentId }) }, entries };
  }

  private row(node: FieldNode, resource: Resource, type: GraphQLObjectType): JsonRow {
    const entries: JsonRowEntry[] = this.fields(node.selectionSet, type).map((field) => {
      const key = responseKey(field);
      const name = field.name.value;
      if (name === '__typename') return { key, literal: type.name };
      const definition = type.getFields()[name];
      const stored = resource.fields.find((f) => f.name === name);
      // A field with a resolver of its own answers something other than its column.
      if (stored && writableAsJson(stored) && !definition?.resolve) return { key, field: name };
      const reference = this.catalogue.references.get(resource)?.get(name);
      if (reference && definition) {
        const row = this.row(field, reference.target, objectType(definition.type));
        return { key, reference: { path: reference.target.path, foreignKey: reference.foreignKey, row } };
      }
      const collection = this.catalogue.collections.get(resource)?.get(name);
      if (!collection || !definition) throw new NotInSql();
      const page = this.page(field, collection.child, definition.type, this.argumentsOf(definition, field));
      return { key, children: { path: collection.child.path, foreignKey: collection.foreignKey, page } };
    });
    return { entries };
  }

  /** The fields of a selection on `type`, fragments spread; a directive, a fragment on another type or a key asked twice is not read here. */
  private fields(selectionSet: SelectionSetNode | undefined, type: GraphQLObjectType): FieldNode[] {
    if (!selectionSet) throw new NotInSql();
    const fields: FieldNode[] = [];
    const keys = new Set<string>();
    const collect = (set: SelectionSetNode, depth: number) => {
      if (depth > MAX_FRAGMENT_DEPTH) throw new NotInSql();
      for (const selection of set.selections) {
        if (selection.directives?.length) throw new NotInSql();
        if (selection.kind === Kind.FIELD) {
          const key = responseKey(selection);
          if (keys.has(key)) throw new NotInSql();
          keys.add(key);
          fields.push(selection);
          continue;
        }
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : this.fragments[selection.name.value];
        if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) throw new NotInSql();
        collect(fragment.selectionSet, depth + 1);
      }
    };
    collect(selectionSet, 0);
    return fields;
  }

  private argumentsOf(definition: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> {
    try {
      return getArgumentValues(definition, node, this.variables);
    } catch {
      // graphql's own error, worded by the resolvers' run.
      throw new NotInSql();
    }
  }
}

type RootAnswer =
  | { key: string; nullable: boolean; path: string; page: JsonPage }
  | { key: string; nullable: boolean; path: string; item: { id: string; row: JsonRow } }
  | { key: string; literal: string };

/** Fragments spread in fragments: validation refuses cycles; this bounds the walk anyway. */
const MAX_FRAGMENT_DEPTH = 10;

const responseKey = (node: FieldNode) => node.alias?.value ?? node.name.value;

function objectType(type: GraphQLOutputType): GraphQLObjectType {
  const named = getNamedType(type);
  if (!isObjectType(named)) throw new NotInSql();
  return named;
}

/** The response as JSON, each root field the database answered spliced in as the text it wrote. */
export function stringifyAnswer(result: FormattedExecutionResult): string {
  const data = result.data;
  if (!data || !Object.values(data).some((value) => value instanceof JsonText)) return JSON.stringify(result);
  const members = Object.entries(result as Record<string, unknown>)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${JSON.stringify(name)}:${name === 'data' ? dataText(data) : JSON.stringify(value)}`);
  return `{${members.join(',')}}`;
}

function dataText(data: Record<string, unknown>): string {
  const members = Object.entries(data).map(([key, value]) => `${JSON.stringify(key)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`);
  return `{${members.join(',')}}`;
}
