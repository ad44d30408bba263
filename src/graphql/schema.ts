import type { GraphQLSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { operations } from '../catalog/operations';
import type { Resource } from '../model/resource';
import { confirmAccessAtRootFields } from './access-changes';
import { AccountResolver } from './account-resolver';
import { AiGatewayResolver } from './ai-gateway-resolver';
import { explainEnumRefusals } from './enum-messages';
import { operationResolver } from './operation-resolver';
import { resourceResolver } from './resource-resolver';
import { noPubSub, SubscriptionResolver } from './subscription-resolver';

let built: GraphQLSchema | undefined;

/** The GraphQL schema of all registered resources and domain operations (type-graphql's metadata is global, so it is built once). */
export function buildGraphqlSchema(resources: readonly Resource[]): GraphQLSchema {
  if (!built) {
    const resolvers = [
      AccountResolver,
      AiGatewayResolver,
      operationResolver(operations, resources),
      ...resources.map((resource) => resourceResolver(resource, resources)),
      SubscriptionResolver,
    ] as [Function, ...Function[]];
    built = buildSchemaSync({ resolvers, validate: false, emitSchemaFile: false, pubSub: noPubSub });
    explainEnumRefusals(built);
    confirmAccessAtRootFields(built);
  }
  return built;
}
