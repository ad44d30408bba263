import { ActivityPlan } from '../../entities/activity-plan';
import { Project } from '../../entities/project';
import { Trigger, TRIGGER_EVENT_KINDS } from '../../entities/trigger';
import { BadRequestError, type FieldIssue } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import { expressionSyntaxProblem } from './expressions';
import { allowedValueIssue, isPlainObject } from '../../engine/input';
import { combineRules, type ResourceRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';

export { TRIGGER_EVENT_KINDS, type TriggerEventKind } from '../../entities/trigger';

const ACTIVITY_PLAN_REF = /^activity-plan:\/\/([a-z0-9-]+)\/([a-z0-9-]+)$/;

/** The slugs an `activity-plan://<orgSlug>/<planSlug>` reference names, or undefined when it is not one. */
export function parseActivityPlanRef(ref: unknown): { orgSlug: string; planSlug: string } | undefined {
  const match = typeof ref === 'string' ? ACTIVITY_PLAN_REF.exec(ref) : null;
  return match ? { orgSlug: match[1], planSlug: match[2] } : undefined;
}

type TriggerFields = Pick<Trigger, 'eventKind' | 'eventFilter' | 'inputMapping' | 'activityPlanRef'>;

interface OrganizationRef {
  id: string;
  slug: string;
}

/** The organization a trigger's project belongs to (400 naming projectId for no such project). */
async function organizationOfProject(ctx: RequestContext, projectId: string): Promise<OrganizationRef> {
  const row = (await ctx.em
    .getConnection()
    .execute(
      'select o.id, o.slug from project p join organization o on o.id = p.organization_id where p.id = ?',
      [projectId],
      'get',
      ctx.em.getTransactionContext(),
    )) as OrganizationRef | undefined;
  if (!row) throw BadRequestError.forField('projectId', `no Project with id ${projectId}`);
  return row;
}

/** Why the reference does not name a live plan of `organization`, or undefined when it does. */
async function activityPlanRefIssue(ctx: RequestContext, ref: unknown, organization: OrganizationRef): Promise<string | undefined> {
  const parsed = parseActivityPlanRef(ref);
  if (!parsed) return `${JSON.stringify(ref)} is not of the form activity-plan://<orgSlug>/<planSlug> (slugs of a-z, 0-9 and -)`;
  if (parsed.orgSlug !== organization.slug) {
    return `names organization ${parsed.orgSlug}; a trigger starts plans of its own project's organization, ${organization.slug}`;
  }
  const live = await ctx.em.count(ActivityPlan, { organizationId: organization.id, slug: parsed.planSlug, deleted: false });
  return live ? undefined : `no activity plan ${parsed.planSlug} in organization ${organization.slug} (missing or deleted)`;
}

function inputMappingIssues(mapping: unknown, issues: FieldIssue[]): void {
  if (mapping === undefined || mapping === null) return;
  if (!isPlainObject(mapping)) {
    issues.push({ field: 'inputMapping', message: 'must be an object of input name to JSONata expression, or null' });
    return;
  }
  for (const [name, expression] of Object.entries(mapping)) {
    const problem = typeof expression === 'string' ? expressionSyntaxProblem(expression) : 'must be a string (a JSONata expression)';
    if (problem) issues.push({ field: `inputMapping.${name}`, message: problem });
  }
}

/**
 * Refuses (400 naming each field) a trigger row of a project of `organization` that breaks a rule:
 * `eventKind` one of TRIGGER_EVENT_KINDS; `activityPlanRef` `activity-plan://<orgSlug>/<planSlug>`
 * naming a live plan of that organization; `eventFilter` null or a JSONata expression;
 * `inputMapping` null or an object of input name to JSONata expression.
 */
export async function assertValidTrigger(ctx: RequestContext, organization: OrganizationRef, row: Partial<TriggerFields>): Promise<void> {
  const issues: FieldIssue[] = [];
  const kindIssue = allowedValueIssue(row.eventKind, 'TriggerEventKind', TRIGGER_EVENT_KINDS);
  if (kindIssue) issues.push({ field: 'eventKind', message: kindIssue });
  if (row.eventFilter !== undefined && row.eventFilter !== null) {
    const problem = expressionSyntaxProblem(row.eventFilter);
    if (problem) issues.push({ field: 'eventFilter', message: `${problem}; null for no filter` });
  }
  inputMappingIssues(row.inputMapping, issues);
  const refIssue = await activityPlanRefIssue(ctx, row.activityPlanRef, organization);
  if (refIssue) issues.push({ field: 'activityPlanRef', message: refIssue });
  if (issues.length) throw BadRequestError.forFields(issues);
}

/**
 * A trigger is checked (assertValidTrigger) on create and on every update, as the whole row the write
 * leaves (the stored values with the changes), inside the write's transaction.
 */
const validationRules: ResourceRules<Trigger> = {
  async beforeCreate(ctx, values) {
    // The project first (400 when missing, 403 when not the caller's): a refusal below names its organization.
    await ctx.services.forEntity(Project)!.getNamedBy(ctx, 'projectId', values.projectId!);
    await assertValidTrigger(ctx, await organizationOfProject(ctx, values.projectId!), values);
  },
  async beforeUpdate(ctx, trigger, changes) {
    await assertValidTrigger(ctx, await organizationOfProject(ctx, trigger.projectId), { ...trigger, ...changes });
  },
};

/** A trigger's rules: its fields checked, its slug unique within the project. */
export const triggerRules = combineRules<Trigger>(
  validationRules,
  scopedSlugRules({ entity: Trigger, source: 'name', scopeField: 'projectId', fallback: 'trigger' }),
);
