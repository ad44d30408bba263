import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type GraphQLSchema, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphqlContext } from './context';

/** Deepest selection accepted: organizations → projects → tasks → project → organization → a field fits. */
export const MAX_QUERY_DEPTH = 12;
/** Largest estimated cost accepted: each field costs 1, a page multiplies what it selects by its pageSize. */
export const MAX_QUERY_COST = 25_000;
/** pageSize a list takes when its query names none (the general listing default). */
const DEFAULT_PAGE_SIZE = 10;

/** A list field (it takes `pageSize`) costs its selection once per row it may return. */
const pageEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (!field.args.some((a) => a.name === 'pageSize')) return undefined;
  const pageSize = typeof args.pageSize === 'number' ? args.pageSize : DEFAULT_PAGE_SIZE;
  return 1 + childComplexity * Math.max(1, pageSize);
};

/**
 * Refuses an operation whose fields nest more than MAX_QUERY_DEPTH levels below its root fields
 * (introspection fields are not counted). Documents are hostile until validated: a spread of an
 * undefined fragment, or of a fragment in a cycle, counts as empty (graphql's own rules refuse those
 * documents), and each fragment is measured once, in an order found without recursion, so that long
 * chains of fragments and fragments spread many times cost no more than their size. The work happens
 * while the document is visited: graphql catches what a visitor throws (its error limit), not what
 * the creation of a rule throws.
 */
export const depthRule: ValidationRule = (context) => {
  let fragments: Map<string, number> | undefined;
  return {
    OperationDefinition(operation) {
      fragments ??= fragmentHeights(context);
      if (heightOf(operation.selectionSet, fragments) <= MAX_QUERY_DEPTH) return;
      const name = operation.name ? `"${operation.name.value}"` : 'the operation';
      context.reportError(new GraphQLError(`query is too deep: ${name} nests fields deeper than the maximum depth of ${MAX_QUERY_DEPTH}`, { nodes: operation }));
    },
  };
};

/** How many levels of fields a selection set nests below itself; fragments are looked up in `fragments`. */
function heightOf(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, number>): number {
  let height = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.selectionSet && !selection.name.value.startsWith('__')) height = Math.max(height, 1 + heightOf(selection.selectionSet, fragments));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      height = Math.max(height, heightOf(selection.selectionSet, fragments));
    } else {
      height = Math.max(height, fragments.get(selection.name.value) ?? 0);
    }
  }
  return height;
}

/** The height of every defined fragment, each measured after the fragments it spreads (depth-first, with a stack). */
function fragmentHeights(context: ValidationContext): Map<string, number> {
  const heights = new Map<string, number>();
  // Fragments entered; until measured they lie on the current path, and spreading one again is a cycle.
  const open = new Set<string>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const pending = [definition.name.value];
    while (pending.length) {
      const name = pending[pending.length - 1];
      const fragment = context.getFragment(name);
      if (heights.has(name) || !fragment) {
        pending.pop();
      } else if (!open.has(name)) {
        open.add(name);
        for (const spread of context.getFragmentSpreads(fragment.selectionSet)) {
          if (!open.has(spread.name.value)) pending.push(spread.name.value);
        }
      } else {
        pending.pop();
        heights.set(name, heightOf(fragment.selectionSet, heights));
      }
    }
  }
  return heights;
}

/** Refuses operations whose estimated cost is past MAX_QUERY_COST before anything runs. */
export function costLimitPlugin(schema: GraphQLSchema): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          let cost: number;
          try {
            cost = getComplexity({
              schema,
              query: document,
              variables: request.variables,
              operationName: request.operationName,
              estimators: [pageEstimator, simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch {
            // Invalid variables: execution refuses them with its own BAD_USER_INPUT error.
            return;
          }
          if (cost > MAX_QUERY_COST) {
            throw new GraphQLError(`query is too expensive: estimated cost ${cost} is above the limit of ${MAX_QUERY_COST}; request smaller pages or fewer nested levels`, {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
