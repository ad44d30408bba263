import { Field, ID, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from './scalars';

/**
 * The answers of the agent session tools `list_service_bridges` and `call_service_bridge`
 * (docs/integrations.md), declared once: these classes are the GraphQL types,
 * and the OpenAPI components of the same names are read from them.
 */

@ObjectType('AgentServiceBridge', { description: "A service bridge an agent session may call: agentCallable and bound to the session's project" })
export class AgentServiceBridge {
  @Field(() => ID, { description: "The service bridge's id" })
  id!: string;

  @Field(() => String, { description: "The service bridge's slug" })
  slug!: string;

  @Field(() => String, { description: "The service bridge's name" })
  name!: string;

  @Field(() => [String], { description: "The endpoints' names, for endpoint_name" })
  endpoints!: string[];
}

@ObjectType('AgentServiceBridgeList', { description: 'The service bridges an agent session may call' })
export class AgentServiceBridgeList {
  @Field(() => [AgentServiceBridge], { description: 'The bridges, each with the names of its endpoints' })
  bridges!: AgentServiceBridge[];
}

@ObjectType('AgentServiceBridgeCall', { description: "What the upstream answered an agent's service bridge call" })
export class AgentServiceBridgeCall {
  @Field(() => Int, { description: "The upstream's status" })
  status!: number;

  @Field(() => Boolean, { description: 'The status is 2xx' })
  ok!: boolean;

  @Field(() => JSONScalar, {
    nullable: true,
    description: 'The body: parsed when it is JSON, else text; null when empty; its first 256 KB as text when longer',
  })
  body!: unknown;

  @Field(() => Boolean, { description: 'The body was longer than 256 KB and is cut' })
  truncated!: boolean;
}
