import { PlatformEvent } from '../entities/platform-event';
import type { RequestContext } from './context';

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
 * Records a domain event in the transaction of the change that causes it: a change rolled back leaves
 * no event behind. `detail` names the ids involved.
 */
export async function recordEvent(tx: RequestContext, projectId: string, eventType: EventType, detail: Record<string, unknown>): Promise<void> {
  await tx.services.forEntity(PlatformEvent)!.record(tx, { projectId, eventType, eventDetail: detail, notified: false, dateTime: new Date() });
}
