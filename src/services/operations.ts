import { pageAnswerOf, type DomainOperation } from '../model/operation';
import { mintAnalyticsEmbedToken } from './analytics-embed';
import { batchUpdate } from './batch-update';
import type { RequestContext } from './context';
import { parseOperationInput } from './operation-input';
import type { ListParams } from './resource-service';
import { listHistoryForTaskGroup } from './task-groups';
import { clearDocumentStatus, lockDocumentFamily, setDocumentStatus, unlockDocumentFamily } from './document-families';
import { cancelExecution } from './executions';
import { failActivityStep } from './activity-runner';
import { fireTrigger } from './trigger-firing';
import { applyProjectTemplate } from './project-templates';
import { lockTask, setTaskStatus, unlockTask } from './tasks';
import { callServiceBridge, listServiceBridges } from './agent-bridge-tools';
import { getChannelTranscript } from './chat-transcripts';

/** A domain operation's behaviour: the row its path names (if any) and its checked body (a read: its list arguments). */
type OperationHandler = (ctx: RequestContext, id: string | undefined, input: Record<string, unknown>, params: Record<string, string>) => Promise<object>;

/** The service method behind each declared operation (catalog/operations.ts), by operationId. */
const HANDLERS: Record<string, OperationHandler> = {
  lockTask: (ctx, id) => lockTask(ctx, id!),
  unlockTask: (ctx, id, input) => unlockTask(ctx, id!, input),
  setTaskStatus: (ctx, id, input) => setTaskStatus(ctx, id!, input),
  listHistoryForTaskGroup: (ctx, id, input) => listHistoryForTaskGroup(ctx, id!, input as ListParams),
  setDocumentStatus: (ctx, id, input) => setDocumentStatus(ctx, id!, input),
  clearDocumentStatus: (ctx, id) => clearDocumentStatus(ctx, id!),
  lockDocumentFamily: (ctx, id) => lockDocumentFamily(ctx, id!),
  unlockDocumentFamily: (ctx, id) => unlockDocumentFamily(ctx, id!),
  cancelExecution: (ctx, id) => cancelExecution(ctx, id!),
  batchUpdate: (ctx, _id, input) => batchUpdate(ctx, input),
  fireTrigger: (ctx, id, input) => fireTrigger(ctx, id!, input),
  failActivityStep: (ctx, id, input, params) => failActivityStep(ctx, id!, params.stepId, input),
  applyProjectTemplate: (ctx, id, input) => applyProjectTemplate(ctx, id!, input),
  mintAnalyticsEmbedToken: (ctx, _id, input) => mintAnalyticsEmbedToken(ctx, input),
  listServiceBridges: (ctx, id) => listServiceBridges(ctx, id!),
  callServiceBridge: (ctx, id, input) => callServiceBridge(ctx, id!, input),
  getChannelTranscript: (ctx, id) => getChannelTranscript(ctx, id!),
};

/**
 * Runs a domain operation for a REST request or a GraphQL field alike. An operation answering a page
 * receives the list arguments (`page`, `pageSize`, `filter`, `query`, `sort`), which the list checks.
 */
export function runOperation(ctx: RequestContext, operation: DomainOperation, id: string | undefined, body: unknown, params: Record<string, string> = {}): Promise<object> {
  const handler = HANDLERS[operation.operationId];
  if (!handler) throw new Error(`no behaviour bound to operation ${operation.operationId}`);
  const input = pageAnswerOf(operation) ? ({ ...(body as ListParams) } as Record<string, unknown>) : parseOperationInput(operation, body);
  return handler(ctx, id, input, params);
}
