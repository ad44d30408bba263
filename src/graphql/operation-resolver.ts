import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { JSONScalar } from '../model/scalars';
import type { ArgumentKind, DomainOperation } from '../model/operation';
import { runOperation } from '../services/operations';
import type { GraphqlContext } from './context';

const GRAPHQL_TYPES: Record<ArgumentKind, () => unknown> = {
  id: () => ID,
  string: () => String,
  json: () => JSONScalar,
  jsonArray: () => [JSONScalar],
};

/**
 * One mutation per domain operation, named by its operationId (`lockTask(id: ID!)`), with the row its
 * path names as `id` and its body fields as arguments; it runs the same service method as the REST route.
 */
export function operationResolver(operations: readonly DomainOperation[]): Function {
  @Resolver()
  class OperationResolver {}
  const prototype = OperationResolver.prototype as unknown as Record<string, unknown>;
  for (const operation of operations) {
    const method = `run_${operation.operationId}`;
    const takesId = operation.path.includes('{id}');
    const argumentsOf = operation.body.filter((a) => !a.restOnly);
    prototype[method] = (...values: unknown[]) => {
      const { ctx } = values[values.length - 1] as GraphqlContext;
      const id = takesId ? (values[0] as string) : undefined;
      const offset = takesId ? 1 : 0;
      const input = Object.fromEntries(argumentsOf.map((a, i) => [a.name, values[offset + i]]).filter(([, v]) => v !== undefined && v !== null));
      return runOperation(ctx, operation, id, input);
    };
    const descriptor = Object.getOwnPropertyDescriptor(prototype, method)!;
    const answer = 'entity' in operation.answer ? operation.answer.entity : operation.answer.graphql();
    Mutation(() => answer, { name: operation.operationId, description: operation.summary })(prototype, method, descriptor);
    let index = 0;
    if (takesId) Arg('id', () => ID)(prototype, method, index++);
    for (const argument of argumentsOf) {
      Arg(argument.name, GRAPHQL_TYPES[argument.kind] as () => typeof String, { nullable: !argument.required, description: argument.description })(prototype, method, index++);
    }
    Ctx()(prototype, method, index);
  }
  return OperationResolver;
}
