import { Activity, ActivityPlan, Project } from '../../entities/index';
import { ApiError, BadRequestError, ForbiddenError, NotFoundError } from '../../errors/api-error';
import { logger } from '../../logging/logger';
import { isUuid } from '../../model/uuid';
import type { RequestContext } from '../../engine/context';
import { ExpressionEvaluationError, ExpressionSyntaxError } from './expressions';
import { recordEvent } from './platform-events';
import { OUTSIDE_TRANSACTION, STEP_RUNNERS, StepFailure } from './step-runners';
import type { ActivityRun } from './trigger-firing';

type ActivityStep = Record<string, unknown> & { id: string; ref: string; stepType: string; status: string };

/** Statuses an activity never leaves. */
const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/**
 * The job of one activity: PENDING → RUNNING, then each step in order, each in its own transaction with
 * the record of its outcome (so a step that completed is never run again when the job is run again after
 * a crash), then COMPLETED (which records `activity_completed`), or FAILED at the first failing step
 * with `errorDetails` saying why. The steps' writes carry the activity as their cause (see trigger-firing.ts).
 */
export async function runActivity(ctx: RequestContext, { activityId, depth }: ActivityRun): Promise<void> {
  const activities = ctx.services.forEntity(Activity)!;
  const activity = await ctx.em.findOne(Activity, { id: activityId });
  if (!activity || FINAL.has(activity.status)) return;
  ctx.cause = { activityId, triggerId: activity.startedByTriggerId ?? null, depth };
  if (activity.status === 'PENDING') {
    await activities.modify(ctx, activityId, async (_tx, row) => (row.status === 'PENDING' ? { status: 'RUNNING', startedOn: new Date() } : {}));
  }
  const project = await ctx.em.findOneOrFail(Project, { id: activity.projectId });
  const plan = activity.activityPlanId ? await ctx.em.findOne(ActivityPlan, { id: activity.activityPlanId }) : null;
  const outputs: Record<string, unknown> = {};
  for (let index = 0; index < activity.steps.length; index++) {
    const step = activity.steps[index] as ActivityStep;
    const outcome = await runStep(ctx, { activityId, index, options: planStepOptions(plan, step, index), project, outputs });
    if (outcome === 'stopped') return;
  }
  await activities.modify(ctx, activityId, async (tx, row) => {
    if (row.status !== 'RUNNING') return {};
    // A change the server decides runs no update rules: the event is recorded here, as a PUT's rules would.
    await recordEvent(tx, row.projectId, 'activity_completed', { activityId });
    return { status: 'COMPLETED', completedOn: new Date() };
  });
}

/** One step of a running activity, with what running it needs. */
interface StepPlace {
  activityId: string;
  index: number;
  /** The plan step's options (undefined: the step is no longer in the plan). */
  options: Record<string, unknown> | undefined;
  project: Project;
  /** The outputs of the steps before it, by ref; the step adds its own. */
  outputs: Record<string, unknown>;
}

/**
 * Runs step `index` unless it has completed or the activity is no longer running (failed by the
 * orchestrator's callback, cancelled): its effects and its outcome are written together.
 */
async function runStep(ctx: RequestContext, place: StepPlace): Promise<'done' | 'stopped'> {
  const { activityId, index, options, project, outputs } = place;
  let outcome: 'done' | 'stopped' = 'done';
  try {
    const called = await callOutside(ctx, place);
    await ctx.services.forEntity(Activity)!.modify(ctx, activityId, async (tx, row) => {
      const steps = row.steps.map((s) => ({ ...s })) as ActivityStep[];
      const step = steps[index];
      if (row.status !== 'RUNNING') {
        outcome = 'stopped';
        return {};
      }
      if (step.status === 'COMPLETED') {
        outputs[step.ref] = step.output;
        return {};
      }
      const runner = STEP_RUNNERS[step.stepType];
      if (!runner) throw new StepFailure(`step type ${step.stepType} has no runner configured`);
      if (!options) throw new StepFailure(`step ${step.ref} is no longer in the activity plan`);
      const output = called ? called.output : await runner({ tx, activity: row, project, options, outputs });
      outputs[step.ref] = output;
      steps[index] = { ...step, status: 'COMPLETED', ...(output === undefined ? {} : { output }) };
      return { steps };
    });
  } catch (error) {
    if (!isStepFailure(error)) throw error;
    await failActivity(ctx, activityId, index, { message: error.message });
    return 'stopped';
  }
  return outcome;
}

/**
 * Runs step `index` first, outside any transaction, when it calls another service and is still to run;
 * its outcome is then recorded as any step's. Undefined for the other steps.
 */
async function callOutside(ctx: RequestContext, { activityId, index, options, project, outputs }: StepPlace): Promise<{ output: unknown } | undefined> {
  const activity = await ctx.em.fork().findOne(Activity, { id: activityId });
  const step = activity?.steps[index] as ActivityStep | undefined;
  if (!activity || !step || !options || activity.status !== 'RUNNING' || step.status === 'COMPLETED' || !OUTSIDE_TRANSACTION.has(step.stepType))
    return undefined;
  return { output: await STEP_RUNNERS[step.stepType]({ tx: ctx, activity, project, options, outputs }) };
}

/** Failures that belong to the step (its own refusal, a refused write, an expression's error), not to the job (retried). */
function isStepFailure(error: unknown): error is Error {
  return error instanceof StepFailure || error instanceof ApiError || error instanceof ExpressionEvaluationError || error instanceof ExpressionSyntaxError;
}

/** The plan step's options, found by the step's id (or position, for plans written before steps had ids). */
function planStepOptions(plan: ActivityPlan | null, step: ActivityStep, index: number): Record<string, unknown> | undefined {
  if (!plan) return undefined;
  const planStep = plan.steps.find((s) => s.id === step.id) ?? (plan.steps[index] && !plan.steps[index].id ? plan.steps[index] : undefined);
  if (!planStep) return undefined;
  return (planStep.options as Record<string, unknown> | undefined) ?? {};
}

/** The step (by index) and its activity FAILED, with why. */
async function failActivity(ctx: RequestContext, activityId: string, index: number, details: Record<string, unknown>): Promise<Activity> {
  return ctx.services.forEntity(Activity)!.modify(ctx, activityId, async (_tx, row) => {
    const steps = row.steps.map((s) => ({ ...s })) as ActivityStep[];
    const step = steps[index];
    steps[index] = { ...step, status: 'FAILED', error: details };
    logger.warn({ activityId, step: step.ref, ...details }, 'activity step failed');
    return { steps, status: 'FAILED', completedOn: new Date(), errorDetails: { stepId: step.id, ref: step.ref, stepType: step.stepType, ...details } };
  });
}

/**
 * `POST /api/orchestrator/activities/{id}/steps/{stepId}/error` (platform administrators): the step and
 * its activity FAILED with the body as `errorDetails`.
 */
export async function failActivityStep(ctx: RequestContext, activityId: string, stepId: string, details: Record<string, unknown>): Promise<Activity> {
  if (!ctx.isAdmin) throw new ForbiddenError('only platform administrators may report a step error');
  if (!isUuid(stepId)) throw BadRequestError.forField('stepId', 'must be a UUID');
  return ctx.services.forEntity(Activity)!.modify(ctx, activityId, async (_tx, row) => {
    const steps = row.steps.map((s) => ({ ...s })) as ActivityStep[];
    const index = steps.findIndex((s) => s.id === stepId);
    if (index < 0) throw new NotFoundError(`activity ${activityId} has no step ${stepId}`);
    steps[index] = { ...steps[index], status: 'FAILED', error: details };
    return { steps, status: 'FAILED', completedOn: new Date(), errorDetails: details };
  });
}
