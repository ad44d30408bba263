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

/**
 * A document refused by a limit of this server (its cost, its root mutation fields) once its operation
 * is known, before anything runs: BAD_REQUEST/400. GraphQL over HTTP counts such limits as validation
 * rules, so its HTTP status follows the response's media type as a validation error's does (see over-http.ts).
 */
export class LimitRefusal extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  }
}

/**
 * The HTTP status Apollo answers a client error with (405 for a mutation over GET, 406 for an Accept it
 * cannot serve ...): 400 unless the error names another 4xx.
 */
function clientStatusOf(error: unknown): number {
  const status = error instanceof GraphQLError ? (error.extensions?.http as { status?: unknown } | undefined)?.status : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
}

/**
 * Automatic persisted queries: the codes clients (Apollo's persisted-queries link, urql's exchange) look
 * for to send the whole document next. Kept as they are; the answer's HTTP status stays Apollo's (200).
 */
const PERSISTED_QUERY_CODES = new Set<unknown>([ApolloServerErrorCode.PERSISTED_QUERY_NOT_FOUND, ApolloServerErrorCode.PERSISTED_QUERY_NOT_SUPPORTED]);

/** Maps every GraphQL error to `extensions.code` and `extensions.status`, as REST statuses. */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = rootCause(error);
  const code = formatted.extensions?.code;
  // A hash the server does not know (yet) is a document not found: the client sends it whole next.
  if (PERSISTED_QUERY_CODES.has(code)) return { message: formatted.message, extensions: { code, status: 404 } };
  const clientError =
    !(original instanceof ApiError) && ((typeof code === 'string' && CLIENT_CODES.has(code)) || (original instanceof GraphQLError && !original.originalError));
  if (clientError) {
    const message = isEngineFailure(error, formatted.message) ? UNREADABLE_REQUEST : formatted.message;
    // The status the answer carries, so that the code agrees with it.
    const status = clientStatusOf(error);
    return { ...formatted, message, extensions: { code: status === 405 ? 'METHOD_NOT_ALLOWED' : 'BAD_REQUEST', status } };
  }
  return { ...normalizeError(original).toGraphqlError(), locations: formatted.locations, path: formatted.path };
}
