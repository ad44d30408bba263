import { pageAnswerOf, type DomainOperation } from '../model/operation';
import type { RequestContext } from './context';
import { parseOperationInput } from './operation-input';
import type { ListParams } from './read-plan';

/**
 * Runs a domain operation for a REST request or a GraphQL field alike, with the handler its module
 * registered. An operation answering a page receives the list arguments (`page`, `pageSize`, `filter`,
 * `query`, `sort`), which the list checks.
 */
export function runOperation(
  ctx: RequestContext,
  operation: DomainOperation,
  id: string | undefined,
  body: unknown,
  params: Record<string, string> = {},
): Promise<object> {
  const handler = ctx.services.modules.handler(operation.operationId);
  const input = pageAnswerOf(operation) ? ({ ...(body as ListParams) } as Record<string, unknown>) : parseOperationInput(operation, body);
  return handler(ctx, id, input, params);
}
