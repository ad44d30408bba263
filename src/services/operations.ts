import type { DomainOperation } from '../model/operation';
import type { RequestContext } from './context';
import { parseOperationInput } from './operation-input';
import { lockTask, setTaskStatus, unlockTask } from './tasks';

/** A domain operation's behaviour: the row its path names (if any) and its checked body. */
type OperationHandler = (ctx: RequestContext, id: string | undefined, input: Record<string, unknown>) => Promise<object>;

/** The service method behind each declared operation (model/operations.ts), by operationId. */
const HANDLERS: Record<string, OperationHandler> = {
  lockTask: (ctx, id) => lockTask(ctx, id!),
  unlockTask: (ctx, id, input) => unlockTask(ctx, id!, input),
  setTaskStatus: (ctx, id, input) => setTaskStatus(ctx, id!, input),
};

/** Runs a domain operation for a REST request or a GraphQL mutation alike. */
export function runOperation(ctx: RequestContext, operation: DomainOperation, id: string | undefined, body: unknown): Promise<object> {
  const handler = HANDLERS[operation.operationId];
  if (!handler) throw new Error(`no behaviour bound to operation ${operation.operationId}`);
  return handler(ctx, id, parseOperationInput(operation, body));
}
