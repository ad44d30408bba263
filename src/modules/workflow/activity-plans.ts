import { randomUUID } from 'node:crypto';
import { ActivityPlan } from '../../entities/activity-plan';
import { PipelineStepType } from '../../entities/enums';
import { BadRequestError, type FieldIssue } from '../../errors/api-error';
import { expressionSyntaxProblem } from './expressions';
import { allowedValueIssue, isPlainObject } from '../../engine/input';
import { combineRules, type ResourceRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';

type Step = Record<string, unknown>;

/** Absent for a step's optional fields: not sent, or null. */
const absent = (value: unknown): value is undefined | null => value === undefined || value === null;

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The options a step type cannot run without, each with its check; `field` is `steps[i].options`. */
function optionIssues(stepType: unknown, options: Record<string, unknown>, field: string, issues: FieldIssue[]): void {
  const need = (key: string, ok: boolean, what: string) => {
    if (!ok) issues.push({ field: `${field}.${key}`, message: `a ${String(stepType)} step needs ${what}` });
  };
  switch (stepType) {
    case 'CREATE_TASK':
      need('taskData', isPlainObject(options.taskData), 'an object (the task to create)');
      break;
    case 'BRIDGE_CALL':
      need('bridge', nonEmptyString(options.bridge), 'a non-empty string (the id or slug of a service bridge)');
      need('endpointName', nonEmptyString(options.endpointName), "a non-empty string (the name of one of the bridge's endpoints)");
      break;
    case 'SCRIPT': {
      if (typeof options.expression !== 'string') {
        need('expression', false, 'a string (a JSONata expression)');
        break;
      }
      const problem = expressionSyntaxProblem(options.expression);
      if (problem) issues.push({ field: `${field}.expression`, message: problem });
      break;
    }
  }
}

/** Records the problems of step `index` (not its id or ref, see checkedSteps). */
function stepIssues(step: Step, index: number, issues: FieldIssue[]): void {
  const field = `steps[${index}]`;
  const typeIssue = allowedValueIssue(step.stepType, 'PipelineStepType', PipelineStepType.values);
  if (typeIssue) issues.push({ field: `${field}.stepType`, message: typeIssue });
  if (absent(step.options)) optionIssues(step.stepType, {}, `${field}.options`, issues);
  else if (isPlainObject(step.options)) optionIssues(step.stepType, step.options, `${field}.options`, issues);
  else issues.push({ field: `${field}.options`, message: 'must be an object' });
}

/** A step's `id` or `ref` as sent: absent (undefined), or a non-empty string (otherwise an issue). */
function identifier(step: Step, key: 'id' | 'ref', index: number, issues: FieldIssue[]): string | undefined {
  const value = step[key];
  if (absent(value)) return undefined;
  if (nonEmptyString(value)) return value;
  issues.push({ field: `steps[${index}].${key}`, message: 'must be a non-empty string' });
  return undefined;
}

/** Records a value met twice among the steps, naming the later step and the earlier one. */
function uniqueAmongSteps(values: (string | undefined)[], key: 'id' | 'ref', issues: FieldIssue[]): void {
  const first = new Map<string, number>();
  values.forEach((value, index) => {
    if (value === undefined) return;
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, index);
    else issues.push({ field: `steps[${index}].${key}`, message: `${value} is also the ${key} of steps[${earlier}]; ${key}s are unique within a plan` });
  });
}

/**
 * A plan's steps checked and completed, as they are stored; 400 naming each problem
 * (`steps[1].stepType`, `steps[0].options.taskData`, ...):
 * - each step is an object whose `stepType` is a PipelineStepType; `options`, when present, an object;
 * - CREATE_TASK needs `options.taskData` (an object), BRIDGE_CALL `options.bridge` (a bridge's id or
 *   slug) and `options.endpointName`, SCRIPT `options.expression` (a string that parses as JSONata);
 * - a step without `ref` gets `step-<n>` (1-based position); one without `id` gets the id of the
 *   `stored` step with the same ref (so ids stay stable across updates that leave them out), else a
 *   new UUID. Given ids and refs are kept; both are unique within the plan.
 */
export function checkedSteps(steps: unknown, stored: readonly Step[] = []): Step[] {
  if (!Array.isArray(steps)) throw BadRequestError.forField('steps', 'must be a JSON array');
  const issues: FieldIssue[] = [];
  const objects = steps.map((step, index) => {
    if (isPlainObject(step)) return step;
    issues.push({ field: `steps[${index}]`, message: 'must be an object {id?, ref?, name?, stepType, options?, executionPolicy?}' });
    return {};
  });
  const refs = objects.map((step, index) => identifier(step, 'ref', index, issues) ?? `step-${index + 1}`);
  const givenIds = objects.map((step, index) => identifier(step, 'id', index, issues));
  objects.forEach((step, index) => stepIssues(step, index, issues));
  uniqueAmongSteps(refs, 'ref', issues);
  uniqueAmongSteps(givenIds, 'id', issues);
  if (issues.length) throw BadRequestError.forFields(issues);

  const taken = new Set(givenIds.filter((id) => id !== undefined));
  const storedIdByRef = new Map(stored.filter((s) => nonEmptyString(s?.id) && nonEmptyString(s?.ref)).map((s) => [s.ref as string, s.id as string]));
  return objects.map((step, index) => {
    let id = givenIds[index];
    if (id === undefined) {
      const kept = storedIdByRef.get(refs[index]);
      id = kept !== undefined && !taken.has(kept) ? kept : randomUUID();
      taken.add(id);
    }
    return { ...step, id, ref: refs[index] };
  });
}

/**
 * A plan's steps are checked (checkedSteps) on create and on every update: sent steps are checked and
 * completed, and an update that sends none still has the stored ones checked, as the row it leaves.
 */
const stepRules: ResourceRules<ActivityPlan> = {
  async beforeCreate(_ctx, values) {
    values.steps = checkedSteps(values.steps ?? []);
  },
  async beforeUpdate(_ctx, plan, changes, sent) {
    if (sent.steps === undefined) checkedSteps(plan.steps);
    // Put in `changes` also when equal to the stored steps: the service drops what did not change.
    else changes.steps = checkedSteps(sent.steps, plan.steps);
  },
};

/** An activity plan's rules: its steps checked, its slug unique within the organization. */
export const activityPlanRules = combineRules<ActivityPlan>(
  stepRules,
  scopedSlugRules({ entity: ActivityPlan, source: 'name', scopeField: 'organizationId', fallback: 'activity-plan' }),
);
