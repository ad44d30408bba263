import { createHash } from 'node:crypto';
import { wrap } from '@mikro-orm/core';
import { Activity, ActivityPlan, DocumentFamily, Organization, PlatformEvent, Project, Task, Trigger } from '../../entities/index';
import { ConflictError } from '../../errors/api-error';
import { logger } from '../../logging/logger';
import type { FollowingStatement } from '../../database/row-writes';
import { enqueueJob, jobStatementIf } from '../../jobs/job-queue';
import type { ActivityCause, RequestContext } from '../../engine/context';
import { evaluateExpression } from './expressions';
import { parseActivityPlanRef } from './triggers';

/** A chain of activities starting activities stops here (docs/automation.md). */
export const MAX_ACTIVITY_DEPTH = 5;

export const EVALUATE_TRIGGERS_JOB = 'evaluate-triggers';
export const RUN_ACTIVITY_JOB = 'run-activity';

/** The job that evaluates a project's triggers for one recorded event. */
export interface TriggerEvaluation {
  eventId: string;
  /** The activity whose steps caused the event, if one did. */
  cause?: ActivityCause;
}

/** The job that runs one activity's steps. */
export interface ActivityRun {
  activityId: string;
  /** 1 for an activity started by a person's change; one more for each activity in between. */
  depth: number;
}

/** What a trigger's `eventFilter` and `inputMapping` are evaluated over (docs/automation.md). */
export type EventSubject = Record<string, unknown> & { eventKind: string; project: { id: string; name: string } };

/**
 * The job that evaluates the project's triggers for an event, added in the event's own INSERT when the
 * project has an enabled trigger of that kind (other than the one that started the causing activity,
 * which never fires again for it): none of the queue's rows for projects without triggers.
 */
export function triggerEvaluationJob(
  tx: RequestContext,
  event: { id: string; organizationId: string; projectId: string; eventType: string },
): FollowingStatement {
  const evaluation: TriggerEvaluation = { eventId: event.id, ...(tx.cause ? { cause: tx.cause } : {}) };
  return jobStatementIf(EVALUATE_TRIGGERS_JOB, evaluation, tx.services.jobOwner(event.organizationId, event.id), {
    key: 'enabled-trigger',
    sql: 'select 1 from "trigger" t where t.project_id = $1 and t.event_kind = $2 and t.enabled and t.id is distinct from $3::uuid',
    params: [event.projectId, event.eventType, tx.cause?.triggerId ?? null],
  });
}

/**
 * The job behind an event: every enabled trigger of its project and kind whose filter is true (or
 * absent) starts an activity, except the trigger that started the activity which caused the event. A
 * trigger's activity has an id derived from the event and the trigger, so a job run twice starts it once.
 */
export async function evaluateTriggers(ctx: RequestContext, { eventId, cause }: TriggerEvaluation): Promise<void> {
  const event = await ctx.em.findOne(PlatformEvent, { id: eventId });
  // Triggers belong to projects: an event of no project has none to fire.
  if (!event?.projectId) return;
  const projectId = event.projectId;
  const triggers = await ctx.em.find(
    Trigger,
    { projectId, eventKind: event.eventType, enabled: true, ...(cause?.triggerId ? { id: { $ne: cause.triggerId } } : {}) },
    { orderBy: { createdOn: 'asc', id: 'asc' } },
  );
  if (triggers.length === 0) return;
  const subject = await eventSubject(ctx, event, projectId);
  const depth = (cause?.depth ?? 0) + 1;
  for (const trigger of triggers) {
    if (!(await filterOutcome(ctx, trigger, subject)).passes) continue;
    if (depth > MAX_ACTIVITY_DEPTH) {
      await refuseDeeperChain(ctx, trigger, cause!);
      continue;
    }
    await startActivity(ctx, trigger, subject, depth, derivedId(event.id, trigger.id));
  }
}

/**
 * `POST /api/triggers/{id}/fire`: starts an enabled `manual` trigger's activity by hand, with `input`
 * (the caller must be allowed to change the trigger). 409 when the trigger is disabled, listens to
 * another event kind, or its filter is false for this input.
 */
export async function fireTrigger(ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<Activity> {
  let started: Activity | undefined;
  await ctx.services.forEntity(Trigger)!.modify(ctx, id, async (tx, trigger) => {
    if (!trigger.enabled) throw new ConflictError(`trigger ${trigger.slug} is disabled`);
    if (trigger.eventKind !== 'manual')
      throw new ConflictError(`trigger ${trigger.slug} listens to ${trigger.eventKind}; only manual triggers are fired by hand`);
    const project = await tx.em.findOneOrFail(Project, { id: trigger.projectId });
    const subject: EventSubject = { eventKind: 'manual', project: { id: project.id, name: project.name }, input: input.input ?? {} };
    const filter = await filterOutcome(tx, trigger, subject);
    if (filter.failure) throw new ConflictError(`the eventFilter of trigger ${trigger.slug} failed for this input: ${filter.failure}`);
    if (!filter.passes) throw new ConflictError(`the eventFilter of trigger ${trigger.slug} is false for this input`);
    started = await startActivity(tx, trigger, subject, (tx.cause?.depth ?? 0) + 1);
    return {};
  });
  return started!;
}

/** Records a PENDING activity of the trigger's plan and its job, in one transaction. */
async function startActivity(ctx: RequestContext, trigger: Trigger, subject: EventSubject, depth: number, id?: string): Promise<Activity> {
  return ctx.transaction(async (tx) => {
    const earlier = id ? await tx.em.findOne(Activity, { id }) : null;
    if (earlier) return earlier;
    const plan = await planOf(tx, trigger);
    const mapped = await mappedInputs(tx, trigger, subject);
    const failure = !plan ? { message: `${trigger.activityPlanRef} names no live activity plan` } : 'error' in mapped ? { message: mapped.error } : undefined;
    const activity = await tx.services.forEntity(Activity)!.record(tx, {
      ...(id ? { id } : {}),
      projectId: trigger.projectId,
      activityPlanId: plan?.id ?? null,
      title: plan?.name ?? trigger.name,
      status: failure ? 'FAILED' : 'PENDING',
      inputs: 'inputs' in mapped ? mapped.inputs : {},
      steps: (plan?.steps ?? []).map((step, index) => activityStep(step, index)),
      startedByTriggerId: trigger.id,
      ...(failure ? { errorDetails: failure, completedOn: new Date() } : {}),
    });
    if (failure) logger.warn({ triggerId: trigger.id, activityId: activity.id, ...failure }, 'activity failed to start');
    else
      await enqueueJob(
        tx.em,
        RUN_ACTIVITY_JOB,
        { activityId: activity.id, depth } satisfies ActivityRun,
        tx.services.jobOwner(plan!.organizationId, activity.id),
      );
    return activity;
  });
}

/** An activity's record of one plan step, before it runs. */
function activityStep(step: Record<string, unknown>, index: number): Record<string, unknown> {
  return {
    id: step.id ?? derivedId(String(index), JSON.stringify(step)),
    ref: step.ref ?? `step-${index + 1}`,
    name: step.name ?? null,
    stepType: step.stepType,
    status: 'PENDING',
  };
}

/** The live plan the trigger names, in its project's organization. */
async function planOf(ctx: RequestContext, trigger: Trigger): Promise<ActivityPlan | null> {
  const ref = parseActivityPlanRef(trigger.activityPlanRef);
  if (!ref) return null;
  const project = await ctx.em.findOneOrFail(Project, { id: trigger.projectId });
  const organization = await ctx.em.findOne(Organization, { id: project.organizationId, slug: ref.orgSlug });
  if (!organization) return null;
  return ctx.em.findOne(ActivityPlan, { organizationId: organization.id, slug: ref.planSlug, deleted: false });
}

/** Whether the trigger's filter holds; one that fails (an error, a limit exceeded) is logged and does not, `failure` saying why. */
async function filterOutcome(ctx: RequestContext, trigger: Trigger, subject: EventSubject): Promise<{ passes: boolean; failure?: string }> {
  if (!trigger.eventFilter) return { passes: true };
  try {
    return { passes: Boolean(await evaluateExpression(trigger.eventFilter, subject, ctx.services.expressions)) };
  } catch (error) {
    logger.warn({ err: error, triggerId: trigger.id }, 'trigger filter failed; the trigger does not fire');
    return { passes: false, failure: (error as Error).message };
  }
}

/** The activity inputs: each mapping expression over the event (a manual trigger without one: its input). */
async function mappedInputs(ctx: RequestContext, trigger: Trigger, subject: EventSubject): Promise<{ inputs: Record<string, unknown> } | { error: string }> {
  const mapping = trigger.inputMapping as Record<string, string> | null | undefined;
  if (!mapping) return { inputs: subject.eventKind === 'manual' ? (subject.input as Record<string, unknown>) : {} };
  const inputs: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(mapping)) {
    try {
      const value = await evaluateExpression(expression, subject, ctx.services.expressions);
      if (value !== undefined) inputs[name] = plain(value);
    } catch (error) {
      return { error: `inputMapping.${name}: ${(error as Error).message}` };
    }
  }
  return { inputs };
}

/** The event as triggers see it: its kind, project, and the records its detail names. */
async function eventSubject(ctx: RequestContext, event: PlatformEvent, projectId: string): Promise<EventSubject> {
  const detail = (event.eventDetail ?? {}) as Record<string, unknown>;
  const project = await ctx.em.findOneOrFail(Project, { id: projectId });
  const subject: EventSubject = { eventKind: event.eventType, project: { id: project.id, name: project.name } };
  const related = [
    ['task', Task, detail.taskId],
    ['activity', Activity, detail.activityId],
    ['documentFamily', DocumentFamily, detail.documentFamilyId],
  ] as const;
  for (const [name, entity, id] of related) {
    if (typeof id !== 'string') continue;
    const row = await ctx.em.findOne(entity as typeof Task, { id });
    if (row) subject[name] = plain(wrap(row).toObject());
  }
  if ('from' in detail) subject.from = detail.from;
  if ('to' in detail) subject.to = detail.to;
  return subject;
}

/** A chain too deep: logged, and recorded in the activity that would have started another. */
async function refuseDeeperChain(ctx: RequestContext, trigger: Trigger, cause: ActivityCause): Promise<void> {
  const message = `activity chain stopped at depth ${MAX_ACTIVITY_DEPTH}: trigger ${trigger.slug} (${trigger.id}) was not started`;
  logger.warn({ activityId: cause.activityId, triggerId: trigger.id }, message);
  await ctx.services.forEntity(Activity)!.modify(ctx, cause.activityId, async () => ({
    errorDetails: { message, chainDepthExceeded: true, triggerId: trigger.id },
  }));
}

/** JSON as it would travel (dates as text), so that expressions compare what clients see. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** A UUID fixed by its parts (same parts, same id). */
function derivedId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('/')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
