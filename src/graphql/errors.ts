import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ApiError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';

/** Errors raised by GraphQL itself (parse, validation, argument coercion) are the client's. */
const CLIENT_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND']);

/** Maps every GraphQL error to `extensions.code` and `extensions.status`, as REST statuses. */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const code = formatted.extensions?.code;
  if (!(original instanceof ApiError) && typeof code === 'string' && CLIENT_CODES.has(code)) {
    return { ...formatted, extensions: { code: 'BAD_REQUEST', status: 400 } };
  }
  if (!(original instanceof ApiError) && original instanceof GraphQLError && !original.originalError) {
    return { ...formatted, extensions: { code: 'BAD_REQUEST', status: 400 } };
  }
  return { ...normalizeError(original).toGraphqlError(), locations: formatted.locations, path: formatted.path };
}
