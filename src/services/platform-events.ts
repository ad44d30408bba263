import { randomUUID } from 'node:crypto';
import { PlatformEvent, type EventType } from '../entities/platform-event';
import type { RequestContext } from './context';
import { triggerEvaluationJob } from './trigger-firing';

/**
 * Records a domain event in the transaction of the change that causes it, with the evaluation of the
 * project's triggers it asks for, in one statement: a change rolled back leaves neither behind. `detail` names the ids involved.
 */
export async function recordEvent(tx: RequestContext, projectId: string, eventType: EventType, detail: Record<string, unknown>): Promise<void> {
  const id = randomUUID();
  const job = triggerEvaluationJob(tx, { id, projectId, eventType });
  await tx.services.forEntity(PlatformEvent)!.record(tx, { id, projectId, eventType, eventDetail: detail, notified: false, dateTime: new Date() }, job);
}
