import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { Request } from 'express';
import {
  getDirectiveValues,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type FieldNode,
  type GraphQLSchema,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS } from '../config/config';
import { rateLimitedError, rateLimitHeaders, type RateDecision } from '../http/rate-limit';
import { contextOf } from '../auth/authenticate';
import type { RequestContext } from '../engine/context';
import type { GraphqlContext } from './context';
import { LimitRefusal } from './errors';

/**
 * A mutation document is as many requests as it has root mutation fields: aliases would otherwise run
 * any number of writes for the price of one request.
 */
export interface MutationBudget {
  /** GRAPHQL_MAX_ROOT_MUTATIONS: a document with more root mutation fields is refused (400). */
  maxRootMutations: number;
  /** Counts `points` more requests of the caller of `req` against its key's and its user's budgets. */
  charge?(req: Request, points: number): Promise<RateDecision>;
  /** Called when a document is refused for its budget (the metrics' count of 429s). */
  onRefusal?(): void;
  /** Called before a mutation runs, with its HTTP request (read replicas: the caller's reads wait for it). */
  writing?(req: Request): Promise<void>;
}

export const DEFAULT_MUTATION_BUDGET: MutationBudget = { maxRootMutations: DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS };

/** The HTTP request of each GraphQL operation's context, to charge its caller's budgets. */
const requests = new WeakMap<RequestContext, Request>();

/** The GraphQL context of `req` (see GraphqlContext). */
export function graphqlContextOf(req: Request): GraphqlContext {
  const ctx = contextOf(req);
  requests.set(ctx, req);
  return { ctx };
}

/** The HTTP request of a context made by graphqlContextOf; undefined for any other. */
export function httpRequestOf(context: GraphqlContext): Request | undefined {
  return requests.get(context.ctx);
}

/**
 * Refuses (400) a mutation with more root fields than `maxRootMutations`, like the cost limit, before
 * anything runs. Once every check has passed, charges the caller one request per root field beyond the
 * first (the request itself counted on arrival); past a budget, the document answers 429 with
 * Retry-After and none of it runs. The X-RateLimit-* headers then describe the key's window after the
 * charge.
 */
export function mutationBudgetPlugin(schema: GraphQLSchema, budget: MutationBudget): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart() {
      let fields = 0;
      return {
        async didResolveOperation({ request, document, operation, contextValue }) {
          if (operation?.operation !== OperationTypeNode.MUTATION) return;
          fields = rootFieldCount(schema, document, operation, request.variables);
          if (fields > budget.maxRootMutations) {
            throw new LimitRefusal(`the document has ${fields} root mutation fields, more than the limit of ${budget.maxRootMutations}`);
          }
          const req = requests.get(contextValue.ctx);
          if (budget.writing && req) await budget.writing(req);
        },
        // Runs only when every plugin's checks passed, so a document refused otherwise is charged once.
        async responseForOperation({ contextValue, response }) {
          const req = requests.get(contextValue.ctx);
          if (fields <= 1 || !budget.charge || !req) return null;
          const decision = await budget.charge(req, fields - 1);
          if (decision.allowed) {
            for (const [name, value] of rateLimitHeaders(decision)) response.http.headers.set(name.toLowerCase(), value);
            return null;
          }
          budget.onRefusal?.();
          const headers = new HeaderMap();
          for (const [name, value] of rateLimitHeaders(decision)) headers.set(name.toLowerCase(), value);
          // The shape of every other 429 on /graphql (see rest/error-handler.ts).
          return { http: { status: 429, headers }, body: { kind: 'single', singleResult: { errors: [rateLimitedError(decision).toGraphqlError()] } } };
        },
      };
    },
  };
}

/**
 * The root fields `operation` runs, as graphql collects them: fragments expanded (each spread once),
 * fields of one response name counted once, @skip/@include applied, `__typename` not counted. Each
 * selection is visited once, so hostile documents cost no more than their size.
 */
export function rootFieldCount(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const coerced = coercedVariables(schema, operation, variables);
  const names = new Set<string>();
  const spread = new Set<string>();
  const pending: SelectionSetNode[] = [operation.selectionSet];
  while (pending.length) {
    for (const selection of pending.pop()!.selections) {
      if (!included(selection, coerced)) continue;
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith('__')) names.add((selection.alias ?? selection.name).value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        pending.push(selection.selectionSet);
      } else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) pending.push(fragment.selectionSet);
      }
    }
  }
  return names.size;
}

/** The operation's variables as execution will see them (defaults applied); undefined when they do not coerce. */
function coercedVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined) {
  try {
    return getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}).coerced;
  } catch {
    return undefined;
  }
}

/** Whether @skip/@include keep the selection; kept when they cannot be read (execution then refuses the variables itself). */
function included(node: FieldNode | FragmentSpreadNode | InlineFragmentNode, variables: Record<string, unknown> | undefined): boolean {
  if (!node.directives?.length) return true;
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  } catch {
    return true;
  }
  return true;
}
