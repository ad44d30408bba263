import { TaskGroup } from '../../entities/task-group';
import { TaskGroupHistoryEntry } from '../../entities/task-group-history-entry';
import { BadRequestError } from '../../errors/api-error';
import { fieldsOf } from '../../model/fields';
import { isUuid } from '../../model/uuid';
import type { RequestContext } from '../../engine/context';
import type { PageResult } from '../../engine/page';
import type { ResourceRules } from '../../engine/resource-rules';
import type { ListParams } from '../../engine/read-plan';

/**
 * Task groups beyond storage (docs/operations.md): every create, update and
 * delete leaves a history entry in the transaction of the change, so a change that fails leaves none.
 */

export type HistoryAction = 'CREATE' | 'UPDATE' | 'DELETE';

type Changes = Record<string, { from: unknown; to: unknown }>;

/** The fields a client writes: what a history entry tells about (not ids, stamps or the delete state). */
const RECORDED = fieldsOf(TaskGroup)
  .filter((f) => f.kind !== 'id' && (f.options.writable ?? 'always') !== 'never')
  .map((f) => f.name);

async function recordHistory(tx: RequestContext, group: TaskGroup, action: HistoryAction, changes: Changes): Promise<void> {
  await tx.services.forEntity(TaskGroupHistoryEntry)!.record(tx, {
    taskGroupId: group.id,
    projectId: group.projectId,
    action,
    changes,
    actorId: tx.user?.id ?? null,
    occurredAt: new Date(),
  });
}

/** Dates as the API writes them, so that an entry reads like the answers it sits beside. */
function plain(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : (value ?? null);
}

export const taskGroupRules: ResourceRules<TaskGroup> = {
  async afterCreate(tx, group) {
    const row = group as unknown as Record<string, unknown>;
    const changes = Object.fromEntries(RECORDED.map((name) => [name, { from: null, to: plain(row[name]) }]));
    await recordHistory(tx, group, 'CREATE', changes);
  },
  async afterUpdate(tx, _group, changed, before) {
    const row = before as unknown as Record<string, unknown>;
    const written = changed as Record<string, unknown>;
    const names = RECORDED.filter((name) => name in written);
    if (names.length === 0) return;
    await recordHistory(tx, before, 'UPDATE', Object.fromEntries(names.map((name) => [name, { from: plain(row[name]), to: plain(written[name]) }])));
  },
  async afterDelete(tx, group) {
    await recordHistory(tx, group, 'DELETE', { deleted: { from: false, to: true } });
  },
};

/**
 * GET /api/task-groups/{id}/history: one group's entries, newest first unless sorted otherwise, with the
 * list arguments. The group may have been deleted (its history stays readable to the members of its
 * organization): 404 when no group ever had the id (or its project is deleted), 403 when it is another
 * organization's.
 */
export async function listHistoryForTaskGroup(ctx: RequestContext, id: string, params: ListParams): Promise<PageResult<TaskGroupHistoryEntry>> {
  if (!isUuid(id)) throw BadRequestError.forField('id', 'must be a UUID');
  await ctx.services.forEntity(TaskGroup)!.getOnRecord(ctx, id);
  return ctx.services.forEntity(TaskGroupHistoryEntry)!.list(ctx, { ...params, match: { taskGroupId: id.toLowerCase() } });
}
