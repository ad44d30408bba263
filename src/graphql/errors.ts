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

/** What a client is told of a request the engine itself failed on (its parser out of stack ...): never the failure's own text. */
const UNREADABLE_REQUEST = 'the request could not be processed: it is too large or nested too deeply';

/** Texts of the engine's own failures, which a message may carry over from the error it wraps. */
const INTERNAL_TEXT = /Maximum call stack size exceeded|Invalid (string|array) length/;

/** Whether the error, or one it wraps, is a failure of the engine (a RangeError) rather than a verdict on the request. */
function isEngineFailure(error: unknown, message: string): boolean {
  if (INTERNAL_TEXT.test(message)) return true;
  let current = error;
  for (let hops = 0; hops < 16 && typeof current === 'object' && current !== null; hops++) {
    if (current instanceof RangeError) return true;
    const wrapper = current as { originalError?: unknown; cause?: unknown };
    current = wrapper.originalError ?? wrapper.cause;
  }
  return false;
}

/** Maps every GraphQL error to `extensions.code` and `extensions.status`, as REST statuses. */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = rootCause(error);
  const code = formatted.extensions?.code;
  const clientError =
    !(original instanceof ApiError) &&
    ((typeof code === 'string' && CLIENT_CODES.has(code)) || (original instanceof GraphQLError && !original.originalError));
  if (clientError) {
    const message = isEngineFailure(error, formatted.message) ? UNREADABLE_REQUEST : formatted.message;
    return { ...formatted, message, extensions: { code: 'BAD_REQUEST', status: 400 } };
  }
  return { ...normalizeError(original).toGraphqlError(), locations: formatted.locations, path: formatted.path };
}
