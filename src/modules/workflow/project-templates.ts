import type { EntityClass } from '@mikro-orm/core';
import type { RE2JS } from 're2js';
import { ActivityPlan, DocumentStatus, Organization, Project, ProjectTemplate, TaskStatus, Trigger } from '../../entities/index';
import type { BaseEntity } from '../../entities/base';
import { BadRequestError, type FieldIssue } from '../../errors/api-error';
import { TemplateApplication, type TemplateItem, type TemplateItemKind } from '../../model/template-application';
import { isUuid } from '../../model/uuid';
import type { RequestContext } from '../../engine/context';
import { isPlainObject } from '../../engine/input';
import { re2, re2Problem, Re2SyntaxError } from '../../engine/re2';
import type { ResourceRules } from '../../engine/resource-rules';
import { slugFromName } from '../../engine/slugs';
import { and, memberships } from '../../engine/tenancy';
import { parseActivityPlanRef } from './triggers';

/**
 * Project templates applied (docs/automation.md): at project creation, in the create's
 * transaction, and again by `POST /api/projects/{id}/apply-template`. A template's option values are
 * checked and completed in the project's `options.dataProperties`; its task statuses and activity
 * plans are placed in the organization, its document statuses and triggers in the project, each
 * through its collection's own create (slug and validation rules), and skipped where one with the
 * same slug is already there.
 */

const FIELD = 'projectTemplateRef';
const TEMPLATE_SCHEME = 'project-template://';
const PLAN_SCHEME = 'activity-plan://';

type Element = Record<string, unknown>;

/** An organization as template references name it. */
interface OrganizationKey {
  id: string;
  slug: string;
}

/** Where a template is applied: the project and its organization. */
interface Target {
  projectId: string;
  organization: OrganizationKey;
}

/** How one kind of template element becomes a row: the collection, the scope its slug is unique in, what its slug derives from. */
interface ElementKind {
  kind: TemplateItemKind;
  /** As refusals name it: `template task status "open"`. */
  label: string;
  entity: EntityClass<BaseEntity>;
  scope: 'organization' | 'project';
  /** The field a slug is derived from when the element has none (as the collection derives it), and the fallback. */
  nameField: string;
  fallback: string;
}

const TASK_STATUS: ElementKind = {
  kind: 'taskStatus',
  label: 'task status',
  entity: TaskStatus,
  scope: 'organization',
  nameField: 'label',
  fallback: 'status',
};
const DOCUMENT_STATUS: ElementKind = {
  kind: 'documentStatus',
  label: 'document status',
  entity: DocumentStatus,
  scope: 'project',
  nameField: 'status',
  fallback: 'status',
};
const ACTIVITY_PLAN: ElementKind = {
  kind: 'activityPlan',
  label: 'activity plan',
  entity: ActivityPlan,
  scope: 'organization',
  nameField: 'name',
  fallback: 'activity-plan',
};
const TRIGGER: ElementKind = { kind: 'trigger', label: 'trigger', entity: Trigger, scope: 'project', nameField: 'name', fallback: 'trigger' };

/**
 * A project created with `projectTemplateRef`: its option values are checked and completed before the
 * insert, and the template's rows placed once the project exists, all in the create's transaction.
 */
export const projectTemplateRules: ResourceRules<Project> = {
  async beforeCreate(ctx, values) {
    const ref = templateRefOf(values.projectTemplateRef);
    // A caller who may not create here is refused after this rule: no template is looked up for them, so
    // the refusal says nothing of the organization's templates.
    if (!ref || !(await mayCreateProjectIn(ctx, values.organizationId))) return;
    const template = await templateNamed(ctx, ref, await organizationOf(ctx, values.organizationId!));
    values.options = optionsWithTemplate(template, values.options ?? {});
  },
  async afterCreate(ctx, project) {
    const ref = templateRefOf(project.projectTemplateRef);
    if (!ref) return;
    const target = await targetOf(ctx, project);
    await placeTemplate(ctx, await templateNamed(ctx, ref, target.organization), target, new TemplateApplication());
  },
};

/**
 * POST /api/projects/{id}/apply-template `{projectTemplateRef}`: the caller must be allowed to update the
 * project (404, 403 as for its PUT); the options are checked against the stored values (defaults filled
 * in), and what the project or organization already has is skipped.
 */
export async function applyProjectTemplate(ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<TemplateApplication> {
  const ref = templateRefOf(input.projectTemplateRef);
  if (!ref) throw BadRequestError.forField(FIELD, 'is required');
  const application = new TemplateApplication();
  await ctx.services.forEntity(Project)!.modify(ctx, id, async (tx, project) => {
    const target = await targetOf(tx, project);
    const template = await templateNamed(tx, ref, target.organization);
    const options = optionsWithTemplate(template, project.options ?? {});
    await placeTemplate(tx, template, target, application);
    return { options };
  });
  return application;
}

/** A reference sent blank names no template (a client's empty template choice). */
function templateRefOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

async function mayCreateProjectIn(ctx: RequestContext, organizationId: string | undefined): Promise<boolean> {
  if (ctx.isAdmin) return true;
  return organizationId !== undefined && (await memberships(ctx)).member.has(organizationId);
}

async function organizationOf(ctx: RequestContext, organizationId: string): Promise<OrganizationKey> {
  const [organization] = await ctx.em.createQueryBuilder(Organization).select(['id', 'slug']).where({ id: organizationId }).execute('all', true);
  // The create's reference check refuses an organization that does not exist; until then, no template is its.
  return { id: organizationId, slug: (organization as { slug?: string } | undefined)?.slug ?? '' };
}

async function targetOf(ctx: RequestContext, project: Project): Promise<Target> {
  return { projectId: project.id, organization: await organizationOf(ctx, project.organizationId) };
}

/**
 * The live template of the project's organization the reference names: its id, its slug, or
 * `project-template://<orgSlug>/<slug>`. Anything else (another organization's, a deleted one) is 400.
 */
async function templateNamed(ctx: RequestContext, ref: string, organization: OrganizationKey): Promise<ProjectTemplate> {
  const named = templateCondition(ref, organization.slug);
  const templates = ctx.services.forEntity(ProjectTemplate)!;
  const [template] = named
    ? ((await ctx.em
        .createQueryBuilder(ProjectTemplate)
        .select('*')
        .where(and(named, { organizationId: organization.id }, templates.live(ctx)))
        .limit(1)
        .execute('all', true)) as ProjectTemplate[])
    : [];
  if (!template) throw BadRequestError.forField(FIELD, `no project template "${ref}" in the project's organization`);
  return template;
}

/** The condition on ProjectTemplate a reference makes; none for a full reference to another organization. */
function templateCondition(ref: string, organizationSlug: string): Record<string, unknown> | undefined {
  if (ref.startsWith(TEMPLATE_SCHEME)) {
    const [orgSlug, slug, ...rest] = ref.slice(TEMPLATE_SCHEME.length).split('/');
    return orgSlug === organizationSlug && slug && rest.length === 0 ? { slug: slug.toLowerCase() } : undefined;
  }
  const lowered = ref.toLowerCase();
  return isUuid(lowered) ? { id: lowered } : { slug: lowered };
}

/**
 * The project's options with the template's option values checked (every refusal at once, each naming
 * `options.dataProperties.<name>`) and missing ones given their default; the template's option
 * definitions become the project's when it has none.
 */
export function optionsWithTemplate(template: ProjectTemplate, options: Record<string, unknown>): Record<string, unknown> {
  const definitions = (template.options ?? []).filter((d): d is Element & { name: string } => isPlainObject(d) && typeof d.name === 'string' && d.name !== '');
  if (definitions.length === 0) return options;
  const dataProperties = isPlainObject(options.dataProperties) ? { ...options.dataProperties } : {};
  const issues: FieldIssue[] = [];
  for (const definition of definitions) {
    const value = dataProperties[definition.name];
    const field = `options.dataProperties.${definition.name}`;
    if (isFilled(value)) {
      const problem = patternProblem(definition, value);
      if (problem) issues.push({ field, message: problem });
    } else if (definition.default !== undefined) {
      dataProperties[definition.name] = definition.default;
    } else if (definition.required === true) {
      issues.push({ field, message: `is required by project template "${template.slug}"` });
    }
  }
  if (issues.length) throw BadRequestError.forFields(issues);
  const hasDefinitions = Array.isArray(options.options) && options.options.length > 0;
  return { ...options, dataProperties, ...(hasDefinitions ? {} : { options: template.options }) };
}

function isFilled(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Why a value does not match its option's `properties.pattern` (an RE2 regular expression, unanchored as
 * in JSON Schema, matched in linear time): the option's `patternMessage`, or a generic message. A
 * pattern that does not compile (stored before patterns were checked) is the template's fault, said as such.
 */
function patternProblem(definition: Element, value: unknown): string | undefined {
  const properties = isPlainObject(definition.properties) ? definition.properties : {};
  const pattern = properties.pattern;
  if (typeof pattern !== 'string' || pattern === '') return undefined;
  let expression: RE2JS;
  try {
    expression = re2(pattern);
  } catch (error) {
    if (!(error instanceof Re2SyntaxError)) throw error;
    return `the project template's pattern for this option is not a valid RE2 regular expression (${error.reason})`;
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
    return `must be a string, number or boolean (the option has a pattern)`;
  if (expression.test(String(value))) return undefined;
  const message = properties.patternMessage;
  return typeof message === 'string' && message.trim() !== '' ? message : `does not match the pattern ${pattern}`;
}

/**
 * A template's option patterns are checked when the template is written (create, and an update
 * carrying `options`): one RE2 does not compile is 400 naming `options[<i>].properties.pattern`.
 */
export const projectTemplateOptionRules: ResourceRules<ProjectTemplate> = {
  async beforeCreate(_ctx, values) {
    assertOptionPatterns(values.options);
  },
  async beforeUpdate(_ctx, _entity, changes, sent) {
    if (sent.options !== undefined) assertOptionPatterns(sent.options);
    else if (changes.options !== undefined) assertOptionPatterns(changes.options);
  },
};

function assertOptionPatterns(options: unknown): void {
  if (!Array.isArray(options)) return;
  const issues: FieldIssue[] = [];
  options.forEach((option, index) => {
    const pattern = isPlainObject(option) && isPlainObject(option.properties) ? option.properties.pattern : undefined;
    const problem = typeof pattern === 'string' && pattern !== '' ? re2Problem(pattern) : undefined;
    if (problem) issues.push({ field: `options[${index}].properties.pattern`, message: problem });
  });
  if (issues.length) throw BadRequestError.forFields(issues);
}

/**
 * The template's rows, in order: task statuses, document statuses, activity plans (created or bound),
 * then triggers pointing at the bound plans. Each one found already there (same slug) is skipped.
 */
async function placeTemplate(ctx: RequestContext, template: ProjectTemplate, target: Target, application: TemplateApplication): Promise<void> {
  for (const element of elementsOf(template.taskStatuses)) {
    await place(ctx, TASK_STATUS, element, target, application, async () => ({ ...element, statusType: storedStatusType(element.statusType) }));
  }
  for (const element of elementsOf(template.documentStatuses)) {
    await place(ctx, DOCUMENT_STATUS, element, target, application, async () => element);
  }
  // A plan's slug as the template declares it, to the slug of the plan it is bound to (a new plan may take a suffix).
  const plans = new Map<string, string>();
  for (const element of elementsOf(template.activityPlans)) {
    const plan = await place(ctx, ACTIVITY_PLAN, element, target, application, async () => element);
    plans.set(slugOf(ACTIVITY_PLAN, element), plan.slug);
  }
  for (const element of elementsOf(template.triggers)) {
    await place(ctx, TRIGGER, element, target, application, async (slug) => ({
      ...element,
      activityPlanRef: `${PLAN_SCHEME}${target.organization.slug}/${await boundPlanSlug(ctx, slug, element.activityPlanRef, plans, target)}`,
    }));
  }
}

function elementsOf(list: unknown): Element[] {
  return Array.isArray(list) ? list.filter(isPlainObject) : [];
}

/** Templates may still declare the retired project-scoped `TODO`: it is today's `OPEN`. */
function storedStatusType(statusType: unknown): unknown {
  return statusType === 'TODO' ? 'OPEN' : statusType;
}

/**
 * The element's row: the live one with its slug in its scope (skipped), or a new one created from
 * `bodyOf` through its collection's create as the system, so that the collection's rules check it;
 * a refusal is 400 naming the template element.
 */
async function place(
  ctx: RequestContext,
  kind: ElementKind,
  element: Element,
  target: Target,
  application: TemplateApplication,
  bodyOf: (slug: string) => Promise<Element>,
): Promise<TemplateItem> {
  const slug = slugOf(kind, element);
  const existing = await liveRowWithSlug(ctx, kind, slug, target);
  if (existing) {
    application.skipped.push(existing);
    return existing;
  }
  const body = { ...(await bodyOf(slug)), ...scopeOf(kind, target), slug };
  try {
    const row = await ctx.services.forEntity(kind.entity)!.create(ctx.asSystem(), body);
    const created = { kind: kind.kind, id: row.id, slug: (row as unknown as { slug: string }).slug };
    application.created.push(created);
    return created;
  } catch (error) {
    throw error instanceof BadRequestError ? refusedElement(kind, slug, error.message) : error;
  }
}

function refusedElement(kind: ElementKind, slug: string, reason: string): BadRequestError {
  return BadRequestError.forField(FIELD, `template ${kind.label} "${slug}": ${reason}`);
}

/** The slug the element's row has or gets: its own, or derived from its name as the collection derives it. */
function slugOf(kind: ElementKind, element: Element): string {
  return typeof element.slug === 'string' && element.slug !== '' ? element.slug.toLowerCase() : slugFromName(element[kind.nameField], kind.fallback);
}

/** The column that places the element's row: its organization, or its project. */
function scopeOf(kind: ElementKind, target: Target): Record<string, string> {
  return kind.scope === 'organization' ? { organizationId: target.organization.id } : { projectId: target.projectId };
}

async function liveRowWithSlug(ctx: RequestContext, kind: ElementKind, slug: string, target: Target): Promise<TemplateItem | undefined> {
  const service = ctx.services.forEntity(kind.entity)!;
  const [row] = (await ctx.em
    .createQueryBuilder(kind.entity)
    .select(['id', 'slug'])
    .where(and(scopeOf(kind, target), { slug }, service.live(ctx)))
    .limit(1)
    .execute('all', true)) as { id: string; slug: string }[];
  return row && { kind: kind.kind, id: row.id, slug: row.slug };
}

/**
 * The slug of the plan a template trigger names (by slug, or `activity-plan://<orgSlug>/<slug>` of the
 * project's organization): one the template bound, or a live plan of the organization; 400 otherwise.
 */
async function boundPlanSlug(ctx: RequestContext, triggerSlug: string, ref: unknown, plans: Map<string, string>, target: Target): Promise<string> {
  const refuse = (reason: string) => refusedElement(TRIGGER, triggerSlug, `activityPlanRef ${reason}`);
  if (typeof ref !== 'string' || ref.trim() === '') throw refuse('is required: a plan slug or activity-plan://<orgSlug>/<slug>');
  let planSlug = ref.trim();
  if (planSlug.startsWith(PLAN_SCHEME)) {
    const parsed = parseActivityPlanRef(planSlug);
    if (!parsed) throw refuse(`"${ref}" is not activity-plan://<orgSlug>/<slug>`);
    if (parsed.orgSlug.toLowerCase() !== target.organization.slug) throw refuse(`"${ref}" names a plan of another organization`);
    planSlug = parsed.planSlug;
  }
  planSlug = planSlug.toLowerCase();
  const bound = plans.get(planSlug) ?? (await liveRowWithSlug(ctx, ACTIVITY_PLAN, planSlug, target))?.slug;
  if (!bound) throw refuse(`names plan "${planSlug}", which the template does not declare and the organization does not have`);
  return bound;
}
