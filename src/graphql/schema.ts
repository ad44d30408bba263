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
    describeRootTypes(built);
    explainEnumRefusals(built);
    confirmAccessAtRootFields(built);
  }
  return built;
}

/** type-graphql declares the root types itself: their texts are set on the built schema. */
function describeRootTypes(schema: GraphQLSchema): void {
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  const subscription = schema.getSubscriptionType();
  if (query) query.description = 'Reads: every collection as a page and by id, the caller (me), and the read operations';
  if (mutation) mutation.description = 'Writes: create, update and delete of each collection that has them, and the domain operations';
  if (subscription) subscription.description = 'Live updates over the graphql-ws protocol at /graphql (WebSocket only)';
}
