import type { Activity, Project } from '../../entities/index';
import { Task } from '../../entities/index';
import type { RequestContext } from '../../engine/context';
import { evaluateExpression } from './expressions';
import { isPlainObject } from '../../engine/input';
import { callBridgeForResult, findBridge } from '../integrations/service-bridges';

/**
 * One step to run, acting as the system for its activity: inside the transaction that records its
 * outcome, or, for a step that calls out (`OUTSIDE_TRANSACTION`), before it.
 */
export interface StepRun {
  tx: RequestContext;
  activity: Activity;
  project: Project;
  /** The plan step's `options`. */
  options: Record<string, unknown>;
  /** The outputs of the steps already completed, by their `ref`. */
  outputs: Record<string, unknown>;
}

/** Runs a step; what it answers is kept as the step's `output`. A throw fails the step (and what it wrote is undone). */
export type StepRunner = (run: StepRun) => Promise<unknown>;

/** A step that cannot do what it says, with the reason kept in the activity. */
export class StepFailure extends Error {}

/** The step types this server runs; any other fails with `step type <X> has no runner configured`. */
export const STEP_RUNNERS: Readonly<Record<string, StepRunner>> = {
  CREATE_TASK: createTaskStep,
  SCRIPT: scriptStep,
  BRIDGE_CALL: bridgeCallStep,
};

/**
 * Steps that wait on another service (up to its 30 s timeout): they run before the transaction that
 * records their outcome, so no row stays locked and no connection held meanwhile. A crash between the
 * call and its record calls again when the activity resumes (at least once), where a step that writes
 * here runs exactly once.
 */
export const OUTSIDE_TRANSACTION: ReadonlySet<string> = new Set(['BRIDGE_CALL']);

/**
 * A task in the activity's project from `options.taskData`, with its placeholders resolved in `title`,
 * `description` and the top-level string values of `properties`, and `createdByActivityId` set. The
 * task is checked as any created task is (a bad status slug fails the step).
 */
async function createTaskStep({ tx, activity, project, options }: StepRun): Promise<unknown> {
  const taskData = options.taskData;
  if (!isPlainObject(taskData)) throw new StepFailure('options.taskData must be an object');
  const resolve = (text: unknown) => (typeof text === 'string' ? resolvePlaceholders(text, activity, project) : text);
  const body: Record<string, unknown> = { ...taskData, projectId: project.id, createdByActivityId: activity.id };
  for (const field of ['title', 'description']) if (field in body) body[field] = resolve(body[field]);
  if (isPlainObject(taskData.properties)) {
    body.properties = Object.fromEntries(Object.entries(taskData.properties).map(([key, value]) => [key, resolve(value)]));
  }
  const task = await tx.services.forEntity(Task)!.create(tx, body);
  return { taskId: task.id };
}

const PLACEHOLDER = /\$\{(activity\.title|project\.name|project\.id|project\.options\.dataProperties\.([^}]*))\}/g;

/**
 * The CREATE_TASK placeholders of the specification: `${activity.title}`, `${project.name}`,
 * `${project.id}`, `${project.options.dataProperties.<key>}`. An activity title or project name that
 * cannot be resolved stays as written; a dataProperties key that is unset or not a string, number or
 * boolean becomes an empty string. Anything else stays as written.
 */
export function resolvePlaceholders(text: string, activity: Pick<Activity, 'title'>, project: Pick<Project, 'id' | 'name' | 'options'>): string {
  return text.replace(PLACEHOLDER, (placeholder: string, path: string, key: string | undefined) => {
    if (key !== undefined) return simpleValue(dataPropertiesOf(project)[key]);
    if (path === 'project.id') return project.id;
    const value = path === 'activity.title' ? activity.title : project.name;
    return typeof value === 'string' && value !== '' ? value : placeholder;
  });
}

function dataPropertiesOf(project: Pick<Project, 'options'>): Record<string, unknown> {
  const options = project.options as Record<string, unknown> | null | undefined;
  return isPlainObject(options?.dataProperties) ? options.dataProperties : {};
}

function simpleValue(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** `options.expression` (JSONata) over the activity's context; its result is the step's output. */
async function scriptStep({ tx, activity, project, options, outputs }: StepRun): Promise<unknown> {
  if (typeof options.expression !== 'string') throw new StepFailure('options.expression must be a JSONata expression');
  const context = {
    activity: { id: activity.id, title: activity.title, inputs: activity.inputs },
    project: { id: project.id, name: project.name, options: project.options },
    inputs: activity.inputs,
    steps: outputs,
  };
  const result = await evaluateExpression(options.expression, context, tx.services.expressions);
  return result === undefined ? null : JSON.parse(JSON.stringify(result));
}

/**
 * Calls endpoint `options.endpointName` of bridge `options.bridge` (an id or slug in the activity's
 * organization) as the proxy calls it, with `options.query` and `options.body` when present; the
 * output is `{status, ok, body}` (and `truncated: true` when the body was cut at 256 KB). An egress
 * refusal or any other refused call (an ApiError) fails the step with its message.
 */
async function bridgeCallStep({ tx, project, options }: StepRun): Promise<unknown> {
  const ref = String(options.bridge);
  if (options.query !== undefined && !isPlainObject(options.query)) throw new StepFailure('options.query must be an object');
  const bridge = await findBridge(tx, project.organizationId, ref);
  if (!bridge) throw new StepFailure(`no service bridge ${ref} in the activity's organization`);
  const { status, ok, body, truncated } = await callBridgeForResult(tx, bridge, {
    endpointName: String(options.endpointName),
    query: options.query,
    body: options.body,
  });
  // A body longer than 256 KB is cut, and says so.
  return truncated ? { status, ok, body, truncated } : { status, ok, body };
}
