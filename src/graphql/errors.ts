import { ApolloServerErrorCode, unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ApiError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';

/**
 * Errors raised by GraphQL and Apollo themselves are the client's: parse and validation failures,
 * argument coercion, a malformed request, and an `operationName` the document does not define (or
 * none for a document of several operations).
 */
const CLIENT_CODES = new Set<string>([
  ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
  ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED,
  ApolloServerErrorCode.BAD_USER_INPUT,
  ApolloServerErrorCode.BAD_REQUEST,
  ApolloServerErrorCode.PERSISTED_QUERY_NOT_FOUND,
  ApolloServerErrorCode.OPERATION_RESOLUTION_FAILURE,
]);

/** The error a resolver threw, through the wrappers of Apollo and of the compiled executor (graphql-jit). */
function rootCause(error: unknown): unknown {
  let current = unwrapResolverError(error);
  while (!(current instanceof ApiError) && isWrapper(current)) current = current.originalError;
  return current;
}

function isWrapper(error: unknown): error is { originalError: unknown } {
  return typeof error === 'object' && error !== null && (error as { originalError?: unknown }).originalError != null;
}

/** Maps every GraphQL error to `extensions.code` and `extensions.status`, as REST statuses. */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = rootCause(error);
  const code = formatted.extensions?.code;
  if (!(original instanceof ApiError) && typeof code === 'string' && CLIENT_CODES.has(code)) {
    return { ...formatted, extensions: { code: 'BAD_REQUEST', status: 400 } };
  }
  if (!(original instanceof ApiError) && original instanceof GraphQLError && !original.originalError) {
    return { ...formatted, extensions: { code: 'BAD_REQUEST', status: 400 } };
  }
  return { ...normalizeError(original).toGraphqlError(), locations: formatted.locations, path: formatted.path };
}
