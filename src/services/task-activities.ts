import { TaskActivity } from '../entities/task-activity';
import { logger } from '../http/logger';
import { BadRequestError } from '../errors/api-error';
import type { RequestContext } from './context';
import type { ResourceRules } from './resource-rules';

export type TaskActivityType = 'CREATED' | 'UPDATED' | 'STATUS_CHANGED' | 'ASSIGNED' | 'LOCKED' | 'UNLOCKED' | 'COMMENT';

/**
 * Writes a task's history entry with the actor, inside the change's transaction but behind a savepoint:
 * a failure to write it is logged and neither fails nor undoes the change.
 */
export async function recordTaskActivity(tx: RequestContext, taskId: string, type: TaskActivityType, text: string, details: Record<string, unknown> = {}): Promise<void> {
  try {
    await tx.em.transactional((em) =>
      tx.services.forEntity(TaskActivity)!.record(tx.withEntityManager(em), { taskId, type, text, details, actorId: tx.user?.id ?? null, actorType: tx.actorType }),
    );
  } catch (error) {
    logger.error({ err: error, taskId, type }, 'could not write a task activity');
  }
}

/** What a client writes is a comment, by the caller; the other types are the server's own record. */
export const taskActivityRules: ResourceRules<TaskActivity> = {
  async beforeCreate(ctx, values) {
    if (values.type !== 'COMMENT') throw BadRequestError.forField('type', 'clients may only add COMMENT activities');
    Object.assign(values, { actorId: ctx.user?.id ?? null, actorType: ctx.actorType });
  },
};
