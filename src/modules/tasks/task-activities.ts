import { TaskActivity } from '../../entities/task-activity';
import { logger } from '../../logging/logger';
import { BadRequestError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';

export type TaskActivityType = 'CREATED' | 'UPDATED' | 'STATUS_CHANGED' | 'ASSIGNED' | 'LOCKED' | 'UNLOCKED' | 'COMMENT';

/**
 * Writes a task's history entry with the actor once the change has committed: a change rolled back
 * leaves none, and a failure to write it is logged and neither fails nor undoes the change.
 */
export async function recordTaskActivity(
  tx: RequestContext,
  taskId: string,
  type: TaskActivityType,
  text: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  const values = { taskId, type, text, details, actorId: tx.user?.id ?? null, actorType: tx.actorType };
  await tx.afterCommit(async (outside) => {
    try {
      await outside.services.forEntity(TaskActivity)!.record(outside, values);
    } catch (error) {
      logger.error({ err: error, taskId, type }, 'could not write a task activity');
    }
  });
}

/** What a client writes is a comment, by the caller; the other types are the server's own record. */
export const taskActivityRules: ResourceRules<TaskActivity> = {
  async beforeCreate(ctx, values) {
    if (values.type !== 'COMMENT') throw BadRequestError.forField('type', 'clients may only add COMMENT activities');
    Object.assign(values, { actorId: ctx.user?.id ?? null, actorType: ctx.actorType });
  },
};
