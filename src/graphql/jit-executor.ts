import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  execute,
  GraphQLError,
  Kind,
  printSchema,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { BoundedMap } from '../engine/bounded-map';
import { budgetRefusal } from './answer-budget';
import type { GraphqlContext } from './context';
import type { SqlAnswers } from './sql-answers';

/** Compiled operations kept, by document and operation name; clients send few distinct documents. */
const MAX_COMPILED = 1_000;

/**
 * Executes queries with graphql-jit: each document is compiled once into plain functions, which run
 * large answers (a thousand objects) several times faster than graphql-js interprets them. Apollo Server
 * still parses, validates (depth rule, cost limit) and formats; it takes a custom executor only in the
 * shape of a gateway, so that is the shape given here.
 */
export function jitGateway(schema: GraphQLSchema, sqlAnswers?: SqlAnswers): GatewayInterface {
  const compiled = new BoundedMap<string, CompiledQuery>(MAX_COMPILED);
  const executor: GatewayExecutor = async (requestContext) => {
    // Mutations stay with graphql-js: graphql-jit turns an input field whose variable was not sent into
    // null, where an omitted field must leave the stored value alone. Mutations answer little anyway.
    // So does a document in which Apollo found no operation by the name sent (also an empty name, which
    // graphql-jit would take as none and run): graphql-js answers the error Apollo turns into a 400.
    const context = requestContext.context as GraphqlContext;
    if (!requestContext.operation || requestContext.operation.operation === 'mutation') {
      // A mutation answers what it wrote: never refused after its writes are made.
      context.ctx.budget = context.ctx.budget.withoutByteLimit();
      return execute({
        schema,
        document: requestContext.document,
        operationName: requestContext.request.operationName,
        variableValues: requestContext.request.variables,
        contextValue: requestContext.context,
      });
    }
    let answered: ExecutionResult | undefined;
    try {
      answered = await sqlAnswers?.answer(requestContext.operation, fragmentsOf(requestContext.document), requestContext.request.variables, context);
    } catch (error) {
      const refusal = budgetRefusal(context);
      if (refusal) return refusal;
      throw error;
    }
    if (answered) return answered;
    // As the client named it: an unknown name compiles to graphql's own error, which Apollo answers with 400.
    const operationName = requestContext.request.operationName ?? undefined;
    const key = `${operationName ?? ''}\u0000${requestContext.queryHash}`;
    let query = compiled.get(key);
    if (!query) {
      const result = compileQuery(schema, requestContext.document, operationName);
      if (!isCompiledQuery(result)) return result;
      query = result;
      compiled.set(key, query);
    }
    const result = await query.query(undefined, requestContext.context, requestContext.request.variables ?? {});
    const refusal = budgetRefusal(context, result.data);
    if (refusal) return refusal;
    if (!result.errors) return result;
    // Without data the variables did not coerce: BAD_USER_INPUT, as Apollo marks graphql-js's own.
    const coercion = result.data === undefined;
    const errors = result.errors.map((error) => asGraphqlError(error, coercion ? 'BAD_USER_INPUT' : undefined));
    return { ...result, errors: inAnswerOrder(errors, requestContext.operation) };
  };
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    load: async () => ({ executor }),
    stop: async () => undefined,
  };
}

/**
 * Errors in the order of their paths: root fields as the document names them, then deeper keys by name
 * and list positions by number. Several fields may fail at once, and the order they fail in is the
 * database's; the order they are reported in is the document's.
 */
function inAnswerOrder(errors: GraphQLError[], operation: OperationDefinitionNode): GraphQLError[] {
  const roots = new Map(
    operation.selectionSet.selections.flatMap((selection, index) =>
      selection.kind === Kind.FIELD ? [[(selection.alias ?? selection.name).value, index] as const] : [],
    ),
  );
  const rank = (step: string | number, depth: number) => (typeof step === 'number' ? step : depth === 0 ? (roots.get(step) ?? roots.size) : 0);
  const compare = (a: readonly (string | number)[], b: readonly (string | number)[]): number => {
    for (let depth = 0; depth < Math.min(a.length, b.length); depth++) {
      const order = rank(a[depth], depth) - rank(b[depth], depth) || String(a[depth]).localeCompare(String(b[depth]));
      if (order) return order;
    }
    return a.length - b.length;
  };
  return [...errors].sort((a, b) => compare(a.path ?? [], b.path ?? []) || a.message.localeCompare(b.message));
}

const fragmentsByDocument = new WeakMap<DocumentNode, Record<string, FragmentDefinitionNode>>();

/** The fragments of a document by name (documents are parsed once and kept by Apollo). */
function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  let fragments = fragmentsByDocument.get(document);
  if (!fragments) {
    fragments = Object.fromEntries(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    fragmentsByDocument.set(document, fragments);
  }
  return fragments;
}

/**
 * graphql-jit reports errors in a class of its own that passes for graphql's but lacks its `extensions`;
 * Apollo formats graphql's (the thrown error stays the original). Its `locations` are kept: graphql's
 * error takes them only from AST nodes, which graphql-jit does not hand on. `code` marks the error.
 */
function asGraphqlError(error: GraphQLError, code?: string): GraphQLError {
  if (error instanceof GraphQLError && error.extensions && !code) return error;
  const { message, path, originalError, extensions, locations } = error as {
    message: string;
    path?: readonly (string | number)[];
    originalError?: Error | null;
    extensions?: Record<string, unknown>;
    locations?: GraphQLError['locations'];
  };
  const converted = new GraphQLError(message, { path, originalError: originalError ?? undefined, extensions: code ? { ...extensions, code } : extensions });
  if (locations?.length) Object.assign(converted, { locations });
  return converted;
}
