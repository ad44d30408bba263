import { Project } from '../../entities/project';
import { Task } from '../../entities/task';
import { TaskStatus } from '../../entities/task-status';
import { BadRequestError, ConflictError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import { lockOf, unlockOf } from '../../engine/locks';
import { recordEvent } from '../workflow/platform-events';
import type { ResourceRules } from '../../engine/resource-rules';
import type { ResourceService } from '../../engine/resource-service';
import { recordTaskActivity } from './task-activities';

/**
 * Tasks beyond storage (docs/operations.md): lock and unlock, status changes, and the activities and
 * events each change leaves behind.
 */

function tasks(ctx: RequestContext): ResourceService<Task> {
  return ctx.services.forEntity(Task)!;
}

/** A new task has a CREATED activity and a task_created event; a change of assignee an ASSIGNED one, refused while the task is locked. */
export const taskRules: ResourceRules<Task> = {
  async afterCreate(tx, task) {
    await recordTaskActivity(tx, task.id, 'CREATED', 'Task created');
    await recordEvent(tx, task.projectId, 'task_created', { taskId: task.id });
  },
  afterCreateOnlyInserts: true,
  async beforeUpdate(tx, task, changes) {
    // `changes` holds only what differs from the row, and a non-empty change is written.
    if ('statusSlug' in changes) await recordStatusChange(tx, task, changes.statusSlug ?? null);
    if (!('assigneeId' in changes)) return;
    if (task.locked) throw new ConflictError('task is locked');
    await recordTaskActivity(tx, task.id, 'ASSIGNED', changes.assigneeId ? `Task assigned to ${changes.assigneeId}` : 'Task unassigned', {
      from: task.assigneeId ?? null,
      to: changes.assigneeId ?? null,
    });
  },
  updateWatches: ['statusSlug', 'assigneeId'],
};

/** The STATUS_CHANGED activity and the task_status_changed event of a change of statusSlug. */
async function recordStatusChange(tx: RequestContext, task: Task, to: string | null): Promise<void> {
  const from = task.statusSlug ?? null;
  await recordTaskActivity(tx, task.id, 'STATUS_CHANGED', `Status changed from ${from ?? 'none'} to ${to ?? 'none'}`, {
    from: from ?? 'none',
    to: to ?? 'none',
  });
  await recordEvent(tx, task.projectId, 'task_status_changed', { taskId: task.id, from, to });
}

/** PUT /api/tasks/{id}/lock: 409 when already locked; the data-lake record follows the commit. */
export async function lockTask(ctx: RequestContext, id: string): Promise<Task> {
  const locked = await tasks(ctx).modify(ctx, id, async (tx, task) => {
    const changes = lockOf(tx, task, 'task');
    await recordTaskActivity(tx, task.id, 'LOCKED', 'Task locked');
    await recordEvent(tx, task.projectId, 'task_locked', { taskId: task.id });
    return changes;
  });
  await writeLockRecord(ctx, locked);
  return locked;
}

/** PUT /api/tasks/{id}/unlock `{reason?}`: 409 when not locked. */
export async function unlockTask(ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<Task> {
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  return tasks(ctx).modify(ctx, id, async (tx, task) => {
    const changes = unlockOf(task, 'task');
    await recordTaskActivity(tx, task.id, 'UNLOCKED', `Task unlocked: ${reason}`, reason ? { reason } : {});
    await recordEvent(tx, task.projectId, 'task_unlocked', { taskId: task.id });
    return changes;
  });
}

/** PUT /api/tasks/{id}/status `{statusSlug}` or `{statusId}`: a live task status of the task's organization (400 otherwise). */
export async function setTaskStatus(ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<Task> {
  const slug = typeof input.statusSlug === 'string' ? input.statusSlug : undefined;
  const statusId = typeof input.statusId === 'string' ? input.statusId : undefined;
  if (slug === undefined && statusId === undefined) throw BadRequestError.forField('statusSlug', 'is required (or statusId)');
  return tasks(ctx).modify(ctx, id, async (tx, task) => {
    const organizationId = await organizationOfProject(tx, task.projectId);
    const status = statusId !== undefined ? await statusById(tx, statusId, organizationId) : await statusBySlug(tx, slug!, organizationId);
    if ((task.statusSlug ?? null) === status.slug) return {};
    await recordStatusChange(tx, task, status.slug);
    return { statusSlug: status.slug };
  });
}

async function organizationOfProject(ctx: RequestContext, projectId: string): Promise<string> {
  const project = await ctx.em.findOneOrFail(Project, { id: projectId }, { fields: ['organizationId'] });
  return project.organizationId;
}

async function statusBySlug(ctx: RequestContext, slug: string, organizationId: string): Promise<TaskStatus> {
  const status = await ctx.em.findOne(TaskStatus, { organizationId, slug: slug.toLowerCase(), deleted: false });
  if (!status) throw BadRequestError.forField('statusSlug', `no live task status "${slug}" in the task's organization`);
  return status;
}

/** A status named by id: 400 when it does not exist or belongs to another of the caller's organizations, 403 when it is not theirs to see. */
async function statusById(ctx: RequestContext, id: string, organizationId: string): Promise<TaskStatus> {
  const status = await ctx.services.forEntity(TaskStatus)!.getNamedBy(ctx, 'statusId', id);
  if (status.organizationId !== organizationId) throw BadRequestError.forField('statusId', `task status ${id} is not one of the task's organization`);
  return status;
}

/**
 * The lock's record for analytics, after the commit: `task-locks/YYYY/MM/DD/<taskId>-<epochMillis>.json`
 * (UTC date of lockedAt). Who locked it is left out for API-key and system callers.
 */
async function writeLockRecord(ctx: RequestContext, task: Task): Promise<void> {
  const lake = ctx.services.lake;
  if (!lake || !task.lockedAt) return;
  const lockedAt = new Date(task.lockedAt);
  const byUser = ctx.actorType === 'USER' && ctx.user;
  const record = {
    taskId: task.id,
    lockedAt: lockedAt.toISOString(),
    ...(byUser ? { lockedById: ctx.user!.id, lockedByEmail: ctx.user!.email } : {}),
    taskStatus: task.statusSlug ?? null,
    projectId: task.projectId,
    documentFamilyIds: task.documentFamilyIds ?? [],
    properties: task.properties ?? {},
  };
  const day = lockedAt.toISOString().slice(0, 10).split('-').join('/');
  await lake.write(`task-locks/${day}/${task.id}-${lockedAt.getTime()}.json`, record);
}
