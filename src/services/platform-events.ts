import { randomUUID } from 'node:crypto';
import { PlatformEvent } from '../entities/platform-event';
import type { RequestContext } from './context';
import { triggerEvaluationJob } from './trigger-firing';

/** The domain events the server records (BEHAVIOURS.md "Platform events"); triggers listen to them. */
export type EventType =
  | 'task_created'
  | 'task_status_changed'
  | 'task_locked'
  | 'task_unlocked'
  | 'activity_completed'
  | 'document_locked'
  | 'knowledge_set_updated';

/**
 * Records a domain event in the transaction of the change that causes it, with the evaluation of the
 * project's triggers it asks for, in one statement: a change rolled back leaves neither behind. `detail` names the ids involved.
 */
export async function recordEvent(tx: RequestContext, projectId: string, eventType: EventType, detail: Record<string, unknown>): Promise<void> {
  const id = randomUUID();
  const job = triggerEvaluationJob(tx, { id, projectId, eventType });
  await tx.services.forEntity(PlatformEvent)!.record(tx, { id, projectId, eventType, eventDetail: detail, notified: false, dateTime: new Date() }, job);
}
