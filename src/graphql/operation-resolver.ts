import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { JSONScalar } from '../model/scalars';
import { entityAnswerOf, pageAnswerOf, rowParamOf, type ArgumentKind, type DomainOperation } from '../model/operation';
import type { Resource } from '../model/resource';
import { runOperation } from '../engine/operations';
import type { PageResult } from '../engine/page';
import type { GraphqlContext } from './context';
import { pageOf } from './resource-resolver';
import { ListArgs, typesOf } from './types';

const GRAPHQL_TYPES: Record<ArgumentKind, () => unknown> = {
  id: () => ID,
  string: () => String,
  stringArray: () => [String],
  json: () => JSONScalar,
  jsonArray: () => [JSONScalar],
  jsonValue: () => JSONScalar,
};

const ROW_ID = 'The id (UUID) of the row the operation acts on, as its REST path names it';

/**
 * One mutation per domain operation, named by its operationId (`lockTask(id: ID!)`), with the row its
 * path names as `id` and its body fields as arguments; it runs the same service method as the REST route.
 * A `get` operation is a query; one answering a page takes the list arguments (`listHistoryForTaskGroup(id, page ...)`).
 */
export function operationResolver(operations: readonly DomainOperation[], resources: readonly Resource[]): Function {
  @Resolver()
  class OperationResolver {}
  const prototype = OperationResolver.prototype as unknown as Record<string, unknown>;
  for (const operation of operations) {
    if (operation.restOnly) continue;
    const paged = resources.find((r) => r.entity === pageAnswerOf(operation));
    if (paged) {
      declarePageQuery(prototype, operation, paged);
      continue;
    }
    const method = `run_${operation.operationId}`;
    const takesId = rowParamOf(operation) !== undefined;
    const argumentsOf = operation.body.filter((a) => !a.restOnly);
    prototype[method] = (...values: unknown[]) => {
      const { ctx } = values[values.length - 1] as GraphqlContext;
      const id = takesId ? (values[0] as string) : undefined;
      const offset = takesId ? 1 : 0;
      const input = Object.fromEntries(argumentsOf.map((a, i) => [a.name, values[offset + i]]).filter(([, v]) => v !== undefined && v !== null));
      return runOperation(ctx, operation, id, input);
    };
    const descriptor = Object.getOwnPropertyDescriptor(prototype, method)!;
    const answer = entityAnswerOf(operation) ?? (operation.answer as { graphql: () => Function }).graphql();
    const field = operation.method === 'get' ? Query : Mutation;
    field(() => answer, { name: operation.operationId, description: operation.summary })(prototype, method, descriptor);
    let index = 0;
    if (takesId) Arg('id', () => ID, { description: ROW_ID })(prototype, method, index++);
    for (const argument of argumentsOf) {
      Arg(argument.name, GRAPHQL_TYPES[argument.kind] as () => typeof String, { nullable: !argument.required, description: argument.description })(
        prototype,
        method,
        index++,
      );
    }
    Ctx()(prototype, method, index);
  }
  return OperationResolver;
}

/** `listHistoryForTaskGroup(id: ID!, page, pageSize, filter, query, sort): TaskGroupHistoryEntryPage!`. */
function declarePageQuery(prototype: Record<string, unknown>, operation: DomainOperation, resource: Resource): void {
  const method = `run_${operation.operationId}`;
  const takesId = rowParamOf(operation) !== undefined;
  prototype[method] = async (...values: unknown[]) => {
    const { ctx } = values[values.length - 1] as GraphqlContext;
    const args = values[takesId ? 1 : 0] as ListArgs;
    return pageOf((await runOperation(ctx, operation, takesId ? (values[0] as string) : undefined, { ...args })) as PageResult<object>);
  };
  const descriptor = Object.getOwnPropertyDescriptor(prototype, method)!;
  Query(() => typesOf(resource).page, { name: operation.operationId, description: operation.summary })(prototype, method, descriptor);
  let index = 0;
  if (takesId) Arg('id', () => ID, { description: ROW_ID })(prototype, method, index++);
  Args(() => ListArgs)(prototype, method, index++);
  Ctx()(prototype, method, index);
}
