import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { tenantKeyViolations } from './support/tenant-keys';

/**
 * Project templates (docs/automation.md): applied by POST /api/projects with
 * `projectTemplateRef` in the create's transaction, and re-applied by POST /api/projects/{id}/apply-template
 * (and the GraphQL mutation applyProjectTemplate).
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organization: { id: string; slug: string };

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Templates');
  organization = await createOrganization(server, { name: unique('TemplatesOrg') }, member.key);
});
afterAll(() => server.close());

const q = (filter: string) => encodeURIComponent(filter);

/** Every row of a collection matching `filter`, as the member sees them. */
async function rowsOf(path: string, filter: string): Promise<any[]> {
  return (await rest(member, 'GET', `/api/${path}?filter=${q(filter)}&pageSize=100`, 200)).content;
}

const projectsNamed = (name: string) => rowsOf('projects', `name=="${name}"`);
const taskStatusesWithSlug = (slug: string) => rowsOf('task-statuses', `organizationId==${organization.id};slug==${slug}`);
const plansWithSlug = (slug: string) => rowsOf('activity-plans', `organizationId==${organization.id};slug==${slug}`);

/** A template of the member's organization; slugs of its rows made unique so that tests sharing the organization never meet. */
async function createTemplate(body: Record<string, unknown> = {}) {
  return rest(member, 'POST', '/api/project-templates', 201, { organizationId: organization.id, name: unique('Template'), ...body });
}

/** A template declaring one row of each kind (the plan declared, its trigger naming it by slug). */
async function fullTemplate() {
  const tag = unique('x');
  const template = await createTemplate({
    taskStatuses: [{ slug: `${tag}-todo`, label: 'To do', color: '#eee', statusType: 'TODO' }],
    documentStatuses: [{ slug: `${tag}-new`, status: 'New', statusType: 'UNRESOLVED' }],
    activityPlans: [
      {
        slug: `${tag}-plan`,
        name: 'Review',
        description: 'Reviews a task',
        steps: [{ ref: 'check', name: 'Check', stepType: 'SCRIPT', options: { expression: 'true' } }],
      },
    ],
    triggers: [{ slug: `${tag}-on-create`, name: 'On create', eventKind: 'task_created', activityPlanRef: `${tag}-plan`, enabled: true }],
  });
  return { template, tag };
}

async function createWith(body: Record<string, unknown>, status = 201) {
  const answer = await server.request('POST', '/api/projects', {
    body: { organizationId: organization.id, name: unique('Project'), ...body },
    key: member.key,
  });
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

async function applyTemplate(projectId: string, projectTemplateRef: string, status = 200, caller: Caller = member) {
  return rest(caller, 'POST', `/api/projects/${projectId}/apply-template`, status, { projectTemplateRef });
}

const kindsOf = (items: { kind: string; slug: string }[]) => items.map((i) => `${i.kind}:${i.slug}`).sort();

describe('a project created from a template', () => {
  it('applies the template named by id, by slug or by project-template://<orgSlug>/<slug>, and stores the reference as sent', async () => {
    const { template, tag } = await fullTemplate();
    const refs = [template.id, template.slug, `project-template://${organization.slug}/${template.slug}`];
    for (const [index, projectTemplateRef] of refs.entries()) {
      const project = await createWith({ projectTemplateRef });
      expect(project.projectTemplateRef).toBe(projectTemplateRef);
      const statuses = await rowsOf('document-statuses', `projectId==${project.id}`);
      expect(statuses.map((s) => s.slug)).toEqual([`${tag}-new`]);
      const triggers = await rowsOf('triggers', `projectId==${project.id}`);
      expect(triggers).toHaveLength(1);
      // The organization's rows are made once, then found by the next projects.
      expect(await taskStatusesWithSlug(`${tag}-todo`), `project ${index}`).toHaveLength(1);
      expect(await plansWithSlug(`${tag}-plan`)).toHaveLength(1);
    }
    // What the template created carries its organization and its parents' liveness.
    expect(await tenantKeyViolations(server.orm)).toEqual([]);
  });

  it('creates task statuses in the organization, a declared TODO stored as OPEN', async () => {
    const { template, tag } = await fullTemplate();
    await createWith({ projectTemplateRef: template.slug });
    const [status] = await taskStatusesWithSlug(`${tag}-todo`);
    expect(status).toMatchObject({ label: 'To do', color: '#eee', statusType: 'OPEN', organizationId: organization.id });
  });

  it('leaves an existing live task status of the organization as it is', async () => {
    const slug = unique('open');
    const existing = await rest(member, 'POST', '/api/task-statuses', 201, {
      organizationId: organization.id,
      slug,
      label: 'Already here',
      statusType: 'IN_PROGRESS',
    });
    const template = await createTemplate({ taskStatuses: [{ slug, label: 'Open', statusType: 'OPEN' }] });
    await createWith({ projectTemplateRef: template.id });
    expect(await taskStatusesWithSlug(slug)).toMatchObject([{ id: existing.id, label: 'Already here', statusType: 'IN_PROGRESS' }]);
  });

  it('creates document statuses in the project', async () => {
    const template = await createTemplate({
      documentStatuses: [
        { slug: 'new', status: 'New', statusType: 'UNRESOLVED', color: '#f00' },
        { status: 'Signed Off', statusType: 'RESOLVED' },
      ],
    });
    const project = await createWith({ projectTemplateRef: template.slug });
    const statuses = await rowsOf('document-statuses', `projectId==${project.id}`);
    expect(statuses.map((s) => [s.slug, s.status, s.statusType, s.projectId])).toEqual([
      ['new', 'New', 'UNRESOLVED', project.id],
      ['signed-off', 'Signed Off', 'RESOLVED', project.id],
    ]);
  });

  it('creates an activity plan the organization lacks and binds one it has (unchanged), the triggers pointing at them by full reference', async () => {
    const existingSlug = unique('existing-plan');
    const existing = await rest(member, 'POST', '/api/activity-plans', 201, {
      organizationId: organization.id,
      slug: existingSlug,
      name: 'Kept',
      steps: [{ ref: 'keep', name: 'Keep', stepType: 'SCRIPT', options: { expression: 'true' } }],
    });
    const newSlug = unique('new-plan');
    const template = await createTemplate({
      activityPlans: [
        { slug: existingSlug, name: 'Replaced?', steps: [] },
        { slug: newSlug, name: 'Fresh', description: 'New here', steps: [{ ref: 'a', name: 'A', stepType: 'SCRIPT', options: { expression: 'true' } }] },
      ],
      triggers: [
        { slug: 'by-slug', name: 'By slug', eventKind: 'task_created', activityPlanRef: newSlug, enabled: true },
        {
          slug: 'by-ref',
          name: 'By ref',
          eventKind: 'manual',
          activityPlanRef: `activity-plan://${organization.slug}/${existingSlug}`,
          enabled: false,
          eventFilter: 'true',
          inputMapping: { a: 'task.id' },
        },
      ],
    });
    const project = await createWith({ projectTemplateRef: template.slug });

    expect(await plansWithSlug(existingSlug)).toMatchObject([{ id: existing.id, name: 'Kept', steps: [{ ref: 'keep' }] }]);
    expect(await plansWithSlug(newSlug)).toMatchObject([
      { name: 'Fresh', description: 'New here', steps: [{ ref: 'a', stepType: 'SCRIPT', options: { expression: 'true' } }] },
    ]);
    const triggers = await rowsOf('triggers', `projectId==${project.id}`);
    expect(triggers.map((t) => [t.slug, t.eventKind, t.activityPlanRef, t.enabled])).toEqual([
      ['by-slug', 'task_created', `activity-plan://${organization.slug}/${newSlug}`, true],
      ['by-ref', 'manual', `activity-plan://${organization.slug}/${existingSlug}`, false],
    ]);
    expect(triggers[1]).toMatchObject({ eventFilter: 'true', inputMapping: { a: 'task.id' } });
  });

  it('answers 400 naming projectTemplateRef for an unknown, deleted or foreign template, and creates no project', async () => {
    const deleted = await createTemplate();
    await rest(member, 'DELETE', `/api/project-templates/${deleted.id}`, 204);
    const other = await createOrganization(server, { name: unique('OtherTemplatesOrg') }, member.key);
    const foreign = await rest(member, 'POST', '/api/project-templates', 201, { organizationId: other.id, name: unique('Foreign') });
    const refs = [
      'no-such-template',
      '00000000-0000-4000-8000-000000000000',
      deleted.id,
      deleted.slug,
      foreign.id,
      foreign.slug,
      `project-template://${other.slug}/${foreign.slug}`,
      `project-template://${organization.slug}/${foreign.slug}`,
    ];
    for (const projectTemplateRef of refs) {
      const name = unique('Refused');
      const refusal = await createWith({ name, projectTemplateRef }, 400);
      expect(refusal.details, projectTemplateRef).toEqual([{ field: 'projectTemplateRef', message: expect.stringContaining(projectTemplateRef) }]);
      expect(await projectsNamed(name)).toEqual([]);
    }
  });

  it('answers 403 to a caller outside the organization, whatever the reference (its templates are not theirs to probe)', async () => {
    const { template } = await fullTemplate();
    const stranger = await newCaller('TemplateProbe');
    for (const projectTemplateRef of [template.slug, 'no-such-template']) {
      const answer = await server.request('POST', '/api/projects', {
        body: { organizationId: organization.id, name: unique('Probe'), projectTemplateRef },
        key: stranger.key,
      });
      expect(answer.status, answer.text).toBe(403);
    }
  });

  it('leaves nothing written when an element of the template is refused midway', async () => {
    const tag = unique('mid');
    const template = await createTemplate({
      taskStatuses: [{ slug: `${tag}-status`, label: 'Status', statusType: 'OPEN' }],
      documentStatuses: [{ slug: 'doc', status: 'Doc' }],
      activityPlans: [{ slug: `${tag}-plan`, name: 'Plan', steps: [] }],
      triggers: [{ slug: 'dangling', name: 'Dangling', eventKind: 'task_created', activityPlanRef: `${tag}-missing`, enabled: true }],
    });
    const name = unique('Midway');
    const refusal = await createWith({ name, projectTemplateRef: template.slug }, 400);
    expect(refusal.details).toEqual([
      { field: 'projectTemplateRef', message: expect.stringMatching(/^template trigger "dangling": activityPlanRef .*"[^"]*-missing"/) },
    ]);
    expect(await projectsNamed(name)).toEqual([]);
    expect(await taskStatusesWithSlug(`${tag}-status`)).toEqual([]);
    expect(await plansWithSlug(`${tag}-plan`)).toEqual([]);
  });

  it("answers 400 for a template trigger naming another organization's plan or a malformed reference", async () => {
    const cases: [string, RegExp][] = [
      ['activity-plan://someone-else/plan', /names a plan of another organization/],
      ['activity-plan://only-org-slug', /is not activity-plan:\/\/<orgSlug>\/<slug>/],
    ];
    for (const [activityPlanRef, reason] of cases) {
      const template = await createTemplate({ triggers: [{ slug: 't', name: 'T', eventKind: 'manual', activityPlanRef, enabled: true }] });
      const refusal = await createWith({ projectTemplateRef: template.id }, 400);
      expect(refusal.details).toEqual([{ field: 'projectTemplateRef', message: expect.stringMatching(reason) }]);
    }
  });

  it("answers 400 naming the template element its collection refuses (a task status's statusType)", async () => {
    const template = await createTemplate({ taskStatuses: [{ slug: 'odd', label: 'Odd', statusType: 'WHATEVER' }] });
    const name = unique('OddStatus');
    const refusal = await createWith({ name, projectTemplateRef: template.slug }, 400);
    expect(refusal.message).toMatch(/^projectTemplateRef: template task status "odd": statusType: /);
    expect(await projectsNamed(name)).toEqual([]);
  });

  it('applies the template through the GraphQL createProject mutation too', async () => {
    const { template, tag } = await fullTemplate();
    const data = await server.graphqlData(
      `mutation($input: ProjectCreateRequest!) { createProject(input: $input) { id projectTemplateRef triggers { content { slug activityPlanRef } } } }`,
      { input: { organizationId: organization.id, name: unique('Gql'), projectTemplateRef: template.slug } },
      member.key,
    );
    expect(data.createProject.projectTemplateRef).toBe(template.slug);
    expect(data.createProject.triggers.content).toEqual([{ slug: `${tag}-on-create`, activityPlanRef: `activity-plan://${organization.slug}/${tag}-plan` }]);
  });
});

describe('template options at project creation', () => {
  let template: { id: string; slug: string; options: unknown[] };
  beforeAll(async () => {
    template = await createTemplate({
      options: [
        { name: 'code', label: 'Code', required: true, properties: { pattern: '^[A-Z]{3}$', patternMessage: 'three capital letters, e.g. ABC' } },
        { name: 'region', required: true, default: 'eu' },
        { name: 'ticket', properties: { pattern: '^T-\\d+$' } },
      ],
    });
  });

  const dataProperties = (values: Record<string, unknown>) => ({ options: { dataProperties: values } });

  it('answers 400 naming a required option without default that is missing', async () => {
    const name = unique('NoCode');
    const refusal = await createWith({ name, projectTemplateRef: template.slug }, 400);
    expect(refusal.details).toEqual([{ field: 'options.dataProperties.code', message: expect.stringContaining('required') }]);
    expect(await projectsNamed(name)).toEqual([]);
  });

  it("answers 400 with the option's patternMessage when the value does not match its pattern", async () => {
    const refusal = await createWith({ projectTemplateRef: template.slug, ...dataProperties({ code: 'abc' }) }, 400);
    expect(refusal.details).toEqual([{ field: 'options.dataProperties.code', message: 'three capital letters, e.g. ABC' }]);
  });

  it('answers 400 with a generic message when the option has no patternMessage', async () => {
    const refusal = await createWith({ projectTemplateRef: template.slug, ...dataProperties({ code: 'ABC', ticket: 'nope' }) }, 400);
    expect(refusal.details).toEqual([{ field: 'options.dataProperties.ticket', message: 'does not match the pattern ^T-\\d+$' }]);
  });

  it('stores the default of a missing option and copies the option definitions into a project that has none', async () => {
    const project = await createWith({ projectTemplateRef: template.slug, ...dataProperties({ code: 'ABC', ticket: 'T-12', extra: 1 }) });
    expect(project.options.dataProperties).toEqual({ code: 'ABC', region: 'eu', ticket: 'T-12', extra: 1 });
    expect(project.options.options).toEqual(template.options);
    const stored = await rest(member, 'GET', `/api/projects/${project.id}`, 200);
    expect(stored.options.dataProperties.region).toBe('eu');
  });

  it("keeps the project's own option definitions and a value sent for an option with a default", async () => {
    const own = [{ name: 'mine', label: 'Mine' }];
    const project = await createWith({ projectTemplateRef: template.slug, options: { options: own, dataProperties: { code: 'XYZ', region: 'us' } } });
    expect(project.options).toMatchObject({ options: own, dataProperties: { code: 'XYZ', region: 'us' } });
  });

  it("answers 400 naming the option's pattern when the template is written with one that is not an RE2 regular expression", async () => {
    const refusal = await rest(member, 'POST', '/api/project-templates', 400, {
      organizationId: organization.id,
      name: unique('Template'),
      options: [{ name: 'bad', properties: { pattern: '([a-z' } }],
    });
    expect(refusal.details).toEqual([{ field: 'options[0].properties.pattern', message: expect.stringContaining('not a valid RE2 regular expression') }]);
  });
});

describe('POST /api/projects/{id}/apply-template', () => {
  it('skips everything a second time, then creates only what the template gained', async () => {
    const { template, tag } = await fullTemplate();
    const project = await createProject(server, organization.id, {}, member.key);

    const first = await applyTemplate(project.id, template.slug);
    expect(kindsOf(first.created)).toEqual([`activityPlan:${tag}-plan`, `documentStatus:${tag}-new`, `taskStatus:${tag}-todo`, `trigger:${tag}-on-create`]);
    expect(first.skipped).toEqual([]);
    const triggers = await rowsOf('triggers', `projectId==${project.id}`);
    expect(triggers.map((t) => t.activityPlanRef)).toEqual([`activity-plan://${organization.slug}/${tag}-plan`]);

    const second = await applyTemplate(project.id, template.id);
    expect(second.created).toEqual([]);
    expect(second.skipped).toEqual(first.created);

    await rest(member, 'PUT', `/api/project-templates/${template.id}`, 200, {
      taskStatuses: [...template.taskStatuses, { slug: `${tag}-done`, label: 'Done', statusType: 'DONE' }],
    });
    const third = await applyTemplate(project.id, `project-template://${organization.slug}/${template.slug}`);
    expect(kindsOf(third.created)).toEqual([`taskStatus:${tag}-done`]);
    expect(third.created[0].id).toBe((await taskStatusesWithSlug(`${tag}-done`))[0].id);
    expect(kindsOf(third.skipped)).toEqual(kindsOf(first.created));
    expect(await rowsOf('triggers', `projectId==${project.id}`)).toHaveLength(1);
  });

  it("checks the template's options against the project's stored values and fills defaults", async () => {
    const template = await createTemplate({
      options: [
        { name: 'code', required: true },
        { name: 'region', default: 'eu' },
      ],
    });
    const project = await createProject(server, organization.id, {}, member.key);
    const refusal = await applyTemplate(project.id, template.slug, 400);
    expect(refusal.details).toEqual([{ field: 'options.dataProperties.code', message: expect.stringContaining('required') }]);

    await rest(member, 'PUT', `/api/projects/${project.id}`, 200, { options: { dataProperties: { code: 'A1' } } });
    expect(await applyTemplate(project.id, template.slug)).toEqual({ created: [], skipped: [] });
    const stored = await rest(member, 'GET', `/api/projects/${project.id}`, 200);
    expect(stored.options.dataProperties).toEqual({ code: 'A1', region: 'eu' });
  });

  it('answers the same through the GraphQL mutation applyProjectTemplate', async () => {
    const { template, tag } = await fullTemplate();
    const project = await createWith({ projectTemplateRef: template.slug });
    const data = await server.graphqlData(
      `mutation($id: ID!, $ref: String!) { applyProjectTemplate(id: $id, projectTemplateRef: $ref) { created { kind id slug } skipped { kind id slug } } }`,
      { id: project.id, ref: template.slug },
      member.key,
    );
    expect(data.applyProjectTemplate.created).toEqual([]);
    expect(kindsOf(data.applyProjectTemplate.skipped)).toEqual([
      `activityPlan:${tag}-plan`,
      `documentStatus:${tag}-new`,
      `taskStatus:${tag}-todo`,
      `trigger:${tag}-on-create`,
    ]);
  });

  it('answers 400 naming projectTemplateRef for an unknown or missing reference', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const unknown = await applyTemplate(project.id, 'no-such-template', 400);
    expect(unknown.details).toEqual([{ field: 'projectTemplateRef', message: expect.stringContaining('no-such-template') }]);
    const missing = await rest(member, 'POST', `/api/projects/${project.id}/apply-template`, 400, {});
    expect(missing.details).toEqual([{ field: 'projectTemplateRef', message: 'is required' }]);
  });

  it('answers 404 for an unknown project and 403 to a member of another organization', async () => {
    const { template } = await fullTemplate();
    await applyTemplate('00000000-0000-4000-8000-000000000000', template.slug, 404);
    const project = await createProject(server, organization.id, {}, member.key);
    const stranger = await newCaller('TemplateStranger');
    await createOrganization(server, {}, stranger.key);
    await applyTemplate(project.id, template.slug, 403, stranger);
    expect(await rowsOf('triggers', `projectId==${project.id}`)).toEqual([]);
    const viaGraphql = await server.graphql(
      `mutation($id: ID!, $ref: String!) { applyProjectTemplate(id: $id, projectTemplateRef: $ref) { created { id } } }`,
      { id: project.id, ref: template.slug },
      stranger.key,
    );
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });
});
