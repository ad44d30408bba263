import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type RequestHandler } from 'express';
import type { Resource } from '../model/resource';
import { BODY_LIMIT, GRAPHQL_MEDIA_TYPES, requireJsonContent } from '../http/request-body';
import type { GraphqlContext } from './context';
import { formatGraphqlError } from './errors';
import { jitGateway } from './jit-executor';
import { graphqlNestingGuard } from './json-depth';
import { nameInputValuesRule } from './enum-messages';
import { costLimitPlugin, depthRule } from './limits';
import { DEFAULT_MUTATION_BUDGET, graphqlContextOf, mutationBudgetPlugin, type MutationBudget } from './mutation-budget';
import { CSRF_REQUEST_HEADERS, graphqlOverHttpPlugin } from './over-http';
import { buildGraphqlSchema } from './schema';
import { SqlAnswers, stringifyAnswer } from './sql-answers';
import { boundedAnswerText } from './answer-budget';
import { DEFAULT_RESPONSE_MAX_BYTES } from '../config/config';
import { subscriptionsOverWebSocket } from './subscription-resolver';

/**
 * The /graphql endpoint: Apollo over the registered resources, with the request's context; `budget`
 * counts mutations; no answer is longer than `responseMaxBytes` (RESPONSE_MAX_BYTES).
 */
export async function graphqlHandler(
  resources: readonly Resource[],
  budget: MutationBudget = DEFAULT_MUTATION_BUDGET,
  responseMaxBytes = DEFAULT_RESPONSE_MAX_BYTES,
): Promise<{ handler: RequestHandler[]; stop(): Promise<void> }> {
  const schema = buildGraphqlSchema(resources);
  const server = new ApolloServer<GraphqlContext>({
    gateway: jitGateway(schema, new SqlAnswers(schema, resources)),
    formatError: formatGraphqlError,
    introspection: true,
    // A GET carrying credentials in a header was preflighted by any browser: no CSRF (see over-http.ts).
    csrfPrevention: { requestHeaders: CSRF_REQUEST_HEADERS },
    // main.ts stops everything in order on SIGINT/SIGTERM (the embedded database last); Apollo's own
    // handlers would stop it and then signal the process again, killing it before that ends.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    // Compact JSON: the default indents every answer, which makes large ones a third bigger and slower.
    stringifyResult: (result) => boundedAnswerText(() => stringifyAnswer(result), responseMaxBytes),
    validationRules: [depthRule, nameInputValuesRule],
    // No HTTP cache hints are served; without the plugin no per-field hook runs on every value.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      costLimitPlugin(schema),
      mutationBudgetPlugin(schema, budget),
      subscriptionsOverWebSocket,
      graphqlOverHttpPlugin(),
    ],
  });
  await server.start();
  const middleware = expressMiddleware(server, { context: async ({ req }) => graphqlContextOf(req) });
  // A body of another type is 415 before Apollo sees it (Apollo would answer 400, or its CSRF refusal).
  return {
    handler: [requireJsonContent(GRAPHQL_MEDIA_TYPES), express.json({ limit: BODY_LIMIT }), graphqlNestingGuard, middleware],
    stop: () => server.stop(),
  };
}
