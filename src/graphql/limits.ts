import type { ApolloServerPlugin } from '@apollo/server';
import {
  getNamedType,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { logger } from '../logging/logger';
import { defaultPageSize } from '../query/paging';
import type { GraphqlContext } from './context';
import { LimitRefusal } from './errors';

/** Deepest selection accepted: organizations → projects → tasks → project → organization → a field fits. */
export const MAX_QUERY_DEPTH = 12;
/** Largest estimated cost accepted: each field costs 1, a page multiplies what it selects by its pageSize. */
export const MAX_QUERY_COST = 25_000;
/**
 * A list field (it takes `pageSize`) costs its selection once per row it may return: without a
 * pageSize, its listing's default (its page type says which).
 */
const pageEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (!field.args.some((a) => a.name === 'pageSize')) return undefined;
  const pageSize = typeof args.pageSize === 'number' ? args.pageSize : defaultPageSizeOf(field.type);
  return 1 + childComplexity * Math.max(1, pageSize);
};

/** The default page size a page type declares (types.ts); the largest listing default where none is declared. */
function defaultPageSizeOf(type: GraphQLOutputType): number {
  const declared = getNamedType(type).extensions?.defaultPageSize;
  return typeof declared === 'number' ? declared : LARGEST_DEFAULT_PAGE_SIZE;
}

/** The largest default page size of any listing: an undeclared list is never counted as smaller than it may be. */
const LARGEST_DEFAULT_PAGE_SIZE = Math.max(defaultPageSize('zero-based'), defaultPageSize('one-based'));

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
      context.reportError(
        new GraphQLError(`query is too deep: ${name} nests fields deeper than the maximum depth of ${MAX_QUERY_DEPTH}`, { nodes: operation }),
      );
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

/**
 * Most selections (fields, fragment spreads, inline fragments) an operation may hold once its fragments
 * are expanded: a fragment counts again every time it is spread. The cost estimator follows fragments
 * that way and gives up at 10,000 of them, so larger operations are refused before it runs.
 */
export const MAX_QUERY_SELECTIONS = 5_000;
/**
 * Most levels an operation may nest, counting every field (introspection fields too), fragment spread
 * and inline fragment: the cost estimator recurses once per level, and a long chain of fragments ran it
 * out of stack.
 */
export const MAX_SELECTION_NESTING = 100;

/** What the cost estimator has to walk through: selections with fragments expanded, and how deep they nest. */
interface Extent {
  selections: number;
  nesting: number;
}

/**
 * The extent of `root` with every fragment spread expanded, found without recursion: each selection set
 * is measured once, after the sets below it (fragments included), so that long chains of fragments and
 * fragments spread exponentially often cost no more than the document's size. A spread of an unknown
 * fragment, or of one in a cycle, counts as empty (graphql's own rules refuse those documents).
 */
function extentOf(root: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): Extent {
  const measured = new Map<SelectionSetNode, Extent>();
  // Sets entered; until measured they lie on the current path, and reaching one again is a cycle.
  const open = new Set<SelectionSetNode>();
  const below = (selection: SelectionNode): SelectionSetNode | undefined =>
    selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value)?.selectionSet : selection.selectionSet;
  const pending = [root];
  while (pending.length) {
    const set = pending[pending.length - 1];
    if (measured.has(set)) {
      pending.pop();
    } else if (!open.has(set)) {
      open.add(set);
      for (const selection of set.selections) {
        const child = below(selection);
        if (child && !open.has(child) && !measured.has(child)) pending.push(child);
      }
    } else {
      pending.pop();
      open.delete(set);
      let selections = 0;
      let nesting = 0;
      for (const selection of set.selections) {
        const child = below(selection);
        const extent = child ? measured.get(child) : undefined;
        selections += 1 + (extent?.selections ?? 0);
        nesting = Math.max(nesting, 1 + (extent?.nesting ?? 0));
      }
      measured.set(set, { selections, nesting });
    }
  }
  return measured.get(root)!;
}

/** A count for a message: exact while it is, a bound past that (fragments spread exponentially often). */
const countOf = (n: number) => (n <= Number.MAX_SAFE_INTEGER ? String(n) : `more than ${Number.MAX_SAFE_INTEGER}`);

/** A refusal of the whole request before anything runs: BAD_REQUEST/400 (see LimitRefusal). */
function refusal(message: string): GraphQLError {
  return new LimitRefusal(message);
}

/** Whether graphql can coerce the request's variables for `operation` (when not, execution refuses them itself). */
function variablesAreValid(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): boolean {
  try {
    return !getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}).errors;
  } catch {
    return false;
  }
}

/**
 * Refuses operations whose estimated cost is past MAX_QUERY_COST before anything runs. The estimate is
 * never skipped: an operation too large to estimate (past MAX_QUERY_SELECTIONS or MAX_SELECTION_NESTING)
 * is refused, and so is one the estimator fails on. Only what graphql refuses itself is left to it: an
 * operation it cannot resolve (an unknown operationName) and variables it cannot coerce.
 */
export function costLimitPlugin(schema: GraphQLSchema): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operation }) {
          if (operation) assertAffordable(schema, document, operation, request.variables);
        },
      };
    },
  };
}

/**
 * Throws the refusal (BAD_REQUEST) of `operation` when its estimated cost is past MAX_QUERY_COST or it is
 * too large to estimate; nothing when graphql will refuse its variables itself. Used by the cost-limit
 * plugin of /graphql over HTTP and by subscriptions.
 */
export function assertAffordable(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): void {
  if (!variablesAreValid(schema, operation, variables)) return;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const { selections, nesting } = extentOf(operation.selectionSet, fragments);
  if (selections > MAX_QUERY_SELECTIONS) {
    throw refusal(
      `query is too large to estimate its cost: ${countOf(selections)} selections with its fragments expanded, above the limit of ${MAX_QUERY_SELECTIONS}`,
    );
  }
  if (nesting > MAX_SELECTION_NESTING) {
    throw refusal(`query is too large to estimate its cost: selections nest ${nesting} levels counting fragments, above the limit of ${MAX_SELECTION_NESTING}`);
  }
  let cost: number;
  try {
    cost = getComplexity({
      schema,
      query: document,
      variables,
      // The resolved operation only (graphql's rules leave one anonymous operation at most).
      operationName: operation.name?.value,
      estimators: [pageEstimator, simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch (error) {
    // Not expected within the limits above; never a reason to run the operation unestimated.
    logger.warn({ err: error }, 'GraphQL cost estimation failed: request refused');
    throw refusal('query is too large to estimate its cost');
  }
  if (cost > MAX_QUERY_COST) {
    throw refusal(`query is too expensive: estimated cost ${cost} is above the limit of ${MAX_QUERY_COST}; request smaller pages or fewer nested levels`);
  }
}
