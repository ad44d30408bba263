import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import type { Request } from 'express';
import { GraphQLError } from 'graphql';
import type { GraphqlContext } from './context';
import { LimitRefusal } from './errors';
import { httpRequestOf } from './mutation-budget';

/** The response media type of GraphQL over HTTP whose status tells request errors (4xx) from results (200). */
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/**
 * Headers that make a browser preflight a request: a GET /graphql that carries one runs (Apollo's CSRF
 * prevention refuses GETs and simple POSTs without one). Apollo's two, and the credential headers, which
 * every call needs anyway.
 */
export const CSRF_REQUEST_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight', 'x-api-key', 'x-access-token', 'authorization'];

/**
 * The media type a GraphQL answer to `req` is served in, as Apollo negotiates it: application/json for
 * no Accept, a wildcard, or application/json first; false when Accept admits neither type.
 */
export function responseMediaType(req: Request): 'application/json' | typeof GRAPHQL_RESPONSE_JSON | false {
  return req.accepts(['application/json', GRAPHQL_RESPONSE_JSON]) as 'application/json' | typeof GRAPHQL_RESPONSE_JSON | false;
}

/** Request errors in GraphQL's sense: the document does not parse or validate, names no operation, or its variables do not coerce. */
const REQUEST_ERROR_CODES = new Set<unknown>([
  ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
  ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED,
  ApolloServerErrorCode.OPERATION_RESOLUTION_FAILURE,
  ApolloServerErrorCode.BAD_USER_INPUT,
]);

const isRequestError = (error: GraphQLError) => error instanceof LimitRefusal || REQUEST_ERROR_CODES.has(error.extensions?.code);

/**
 * Statuses by the response's media type (GraphQL over HTTP, "Status Codes"). Served as application/json,
 * a request error (also a refusal by the cost, depth or root-mutation limits, validation rules of this
 * server) answers 200 with its errors and no data; served as application/graphql-response+json it keeps
 * 400. Requests that are not well-formed GraphQL requests (no query, variables not an object, JSON
 * nested too deeply), a mutation over GET (405), refused credentials (401) and rate limits (429) keep
 * their status whatever the media type. A request whose Accept admits neither type is refused (406)
 * before anything runs: Apollo finds that out only once the operation has run.
 */
export function graphqlOverHttpPlugin(): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart({ contextValue }) {
      const req = httpRequestOf(contextValue);
      const mediaType = req ? responseMediaType(req) : 'application/json';
      return {
        async didResolveOperation() {
          if (mediaType) return;
          throw new GraphQLError(`send Accept: application/json or ${GRAPHQL_RESPONSE_JSON}`, { extensions: { code: 'BAD_REQUEST', http: { status: 406 } } });
        },
        async willSendResponse({ response, errors }) {
          setRetryAfter(response.http.headers, response.body.kind === 'single' ? response.body.singleResult.errors : undefined);
          if (mediaType !== 'application/json' || response.http.status !== 400 || response.body.kind !== 'single') return;
          if (response.body.singleResult.data !== undefined || !errors?.length || !errors.every(isRequestError)) return;
          response.http.status = 200;
          // Pinned, so that a 200 for a request error is never served as application/graphql-response+json.
          response.http.headers.set('content-type', 'application/json; charset=utf-8');
        },
      };
    },
  };
}

/**
 * `Retry-After` for an answer with an error that says when to try again (a statement cancelled by the
 * statement timeout: SERVICE_UNAVAILABLE), as REST sends it: the longest wait any of them asks.
 */
function setRetryAfter(headers: Map<string, string>, errors: readonly { extensions?: Record<string, unknown> }[] | undefined): void {
  const waits = (errors ?? []).map((error) => error.extensions?.retryAfter).filter((wait): wait is number => typeof wait === 'number');
  if (waits.length) headers.set('retry-after', String(Math.max(...waits)));
}
