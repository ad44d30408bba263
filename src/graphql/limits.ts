import type { ApolloServerPlugin } from '@apollo/server';
import depthLimit from 'graphql-depth-limit';
import { GraphQLError, type GraphQLSchema, type ValidationRule } from 'graphql';
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

export const depthRule: ValidationRule = depthLimit(MAX_QUERY_DEPTH) as ValidationRule;

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
