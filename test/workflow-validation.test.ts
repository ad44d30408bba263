import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityPlan, Trigger } from '../src/entities';
import { PipelineStepType } from '../src/entities/enums';
import { compiledExpression, ExpressionSyntaxError } from '../src/modules/workflow/expressions';
import { parseActivityPlanRef, TRIGGER_EVENT_KINDS } from '../src/modules/workflow/triggers';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Activity plan steps and trigger fields checked on create and on every update (REST and GraphQL): each
 * refusal is 400 naming the field, and a refused update leaves the row as it was.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organization: { id: string; slug: string };
let projectId: string;
let plan: Record<string, any>;
let deletedPlan: Record<string, any>;
let foreignPlanRef: string;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ALLOWED_STEP_TYPES = `allowed values: ${PipelineStepType.values.join(', ')}`;
const ALLOWED_EVENT_KINDS = `allowed values: ${TRIGGER_EVENT_KINDS.join(', ')}`;

const refTo = (orgSlug: string, planSlug: string) => `activity-plan://${orgSlug}/${planSlug}`;

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Workflow');
  organization = await createOrganization(server, { name: unique('WorkflowOrg') }, member.key);
  projectId = (await createProject(server, organization.id, {}, member.key)).id;
  plan = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: unique('Flow') });
  deletedPlan = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: unique('Gone') });
  await rest(member, 'DELETE', `/api/activity-plans/${deletedPlan.id}`, 204);
  const other = await createOrganization(server, { name: unique('WorkflowOther') }, member.key);
  const foreign = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: other.id, name: unique('Foreign') });
  foreignPlanRef = refTo(other.slug, foreign.slug);
});
afterAll(() => server.close());

/** A 400 answer whose message and details name `field` (and say `says`, when given). */
function expectRefusal(body: any, field: string, says?: string | RegExp) {
  expect(body.status, JSON.stringify(body)).toBe(400);
  expect(body.message).toContain(`${field}: `);
  const issue = body.details?.find((d: any) => d.field === field);
  expect(issue, JSON.stringify(body)).toBeDefined();
  if (typeof says === 'string') expect(issue.message).toContain(says);
  else if (says) expect(issue.message).toMatch(says);
}

/** A GraphQL answer refused with BAD_REQUEST, its message naming `field`. */
function expectGraphqlRefusal(answer: { body: { errors?: any[] }; text: string }, field: string, says?: string) {
  const error = answer.body.errors?.[0];
  expect(error?.extensions, answer.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  expect(error.message).toContain(`${field}: `);
  if (says) expect(error.message).toContain(says);
}

const newPlan = (steps: unknown[] = []) => rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: unique('Plan'), steps });

const validTrigger = (body: Record<string, unknown> = {}) => ({
  projectId,
  name: unique('Trigger'),
  eventKind: 'task_created',
  activityPlanRef: refTo(organization.slug, plan.slug),
  ...body,
});

describe('the reusable pieces', () => {
  it('parses activity-plan references and nothing else', () => {
    expect(parseActivityPlanRef('activity-plan://acme/review-flow')).toEqual({ orgSlug: 'acme', planSlug: 'review-flow' });
    for (const bad of ['activity-plan://acme', 'activity-plan://acme/flow/extra', 'plan://acme/flow', 'activity-plan://Acme/flow', '', 42, null]) {
      expect(parseActivityPlanRef(bad), String(bad)).toBeUndefined();
    }
  });

  it('compiles an expression once per text and refuses one that does not parse', async () => {
    const first = compiledExpression('task.title & "!"');
    expect(compiledExpression('task.title & "!"')).toBe(first);
    expect(await first.evaluate({ task: { title: 'Hi' } })).toBe('Hi!');
    expect(() => compiledExpression('task.title &')).toThrow(ExpressionSyntaxError);
    expect(() => compiledExpression('task.title &')).toThrow(/does not parse as JSONata: .*S0207/);
  });
});

describe('activity plan steps', () => {
  it('accepts every step type (AGENT among them) and gives each step an id and a ref', async () => {
    const given = randomUUID();
    const steps = [
      { name: 'Agent', stepType: 'AGENT', options: { agent: 'helper' } },
      { ref: 'make-task', stepType: 'CREATE_TASK', options: { taskData: { title: '${activity.title}' } } },
      { id: given, stepType: 'BRIDGE_CALL', options: { bridge: 'crm', endpointName: 'lookup' } },
      { stepType: 'SCRIPT', options: { expression: '$sum(inputs.amounts)' } },
      { stepType: 'MODULE' },
      { stepType: 'EXECUTION', options: {} },
      { stepType: 'LLM', options: null },
      { stepType: 'APPROVAL', executionPolicy: { retries: 1 } },
    ];
    const created = await newPlan(steps);
    expect(created.steps).toHaveLength(steps.length);
    expect(created.steps.map((s: any) => s.ref)).toEqual(['step-1', 'make-task', 'step-3', 'step-4', 'step-5', 'step-6', 'step-7', 'step-8']);
    created.steps.forEach((step: any, index: number) => {
      expect(step).toMatchObject(steps[index]);
      expect(step.id).toMatch(UUID);
    });
    expect(created.steps[2].id).toBe(given);
    expect(new Set(created.steps.map((s: any) => s.id)).size).toBe(steps.length);
    expect(await rest(member, 'GET', `/api/activity-plans/${created.id}`, 200)).toEqual(created);
  });

  it('keeps the ids of steps an update sends again without them (matched by ref)', async () => {
    const created = await newPlan([{ ref: 'a', stepType: 'MODULE' }, { stepType: 'LLM' }]);
    const [a, second] = created.steps;
    const updated = await rest(member, 'PUT', `/api/activity-plans/${created.id}`, 200, {
      steps: [{ stepType: 'AGENT' }, { ref: 'a', stepType: 'MODULE', name: 'renamed' }, { stepType: 'LLM', ref: 'new' }],
    });
    // step-1 is a new step at the first position; `a` keeps its id; the former step-2 is gone.
    expect(updated.steps.map((s: any) => s.ref)).toEqual(['step-1', 'a', 'new']);
    expect(updated.steps[1]).toMatchObject({ id: a.id, name: 'renamed' });
    expect(updated.steps.map((s: any) => s.id)).not.toContain(second.id);
    expect(updated.changeSequence).toBe(1);
    // Sending back what was read changes nothing.
    const again = await rest(member, 'PUT', `/api/activity-plans/${created.id}`, 200, { steps: updated.steps });
    expect(again).toEqual(updated);
  });

  const refusals: { title: string; steps: unknown[]; field: string; says?: string | RegExp }[] = [
    {
      title: 'a stepType outside PipelineStepType',
      steps: [{ stepType: 'MODULE' }, { stepType: 'FOO' }],
      field: 'steps[1].stepType',
      says: `FOO is not a PipelineStepType; ${ALLOWED_STEP_TYPES}`,
    },
    { title: 'a step without stepType', steps: [{ name: 'nothing' }], field: 'steps[0].stepType', says: ALLOWED_STEP_TYPES },
    { title: 'a lowercase stepType', steps: [{ stepType: 'agent' }], field: 'steps[0].stepType', says: 'agent is not a PipelineStepType' },
    { title: 'a step that is not an object', steps: ['MODULE'], field: 'steps[0]', says: 'must be a JSON object' },
    {
      title: 'CREATE_TASK without options',
      steps: [{ stepType: 'CREATE_TASK' }],
      field: 'steps[0].options.taskData',
      says: 'a CREATE_TASK step needs an object',
    },
    {
      title: 'CREATE_TASK whose taskData is not an object',
      steps: [{ stepType: 'CREATE_TASK', options: { taskData: 'x' } }],
      field: 'steps[0].options.taskData',
    },
    {
      title: 'BRIDGE_CALL without bridge',
      steps: [{ stepType: 'BRIDGE_CALL', options: { endpointName: 'lookup' } }],
      field: 'steps[0].options.bridge',
      says: 'BRIDGE_CALL',
    },
    {
      title: 'BRIDGE_CALL with an empty bridge',
      steps: [{ stepType: 'BRIDGE_CALL', options: { bridge: ' ', endpointName: 'lookup' } }],
      field: 'steps[0].options.bridge',
    },
    { title: 'BRIDGE_CALL without endpointName', steps: [{ stepType: 'BRIDGE_CALL', options: { bridge: 'crm' } }], field: 'steps[0].options.endpointName' },
    {
      title: 'SCRIPT whose expression does not parse',
      steps: [{ stepType: 'SCRIPT', options: { expression: 'inputs.a +' } }],
      field: 'steps[0].options.expression',
      says: /does not parse as JSONata: Unexpected end of expression/,
    },
    { title: 'SCRIPT without expression', steps: [{ stepType: 'SCRIPT', options: {} }], field: 'steps[0].options.expression' },
    { title: 'options that are not an object', steps: [{ stepType: 'MODULE', options: ['x'] }], field: 'steps[0].options', says: 'must be a JSON object' },
    { title: 'an id that is not a string', steps: [{ stepType: 'MODULE', id: 42 }], field: 'steps[0].id', says: 'non-empty string' },
    {
      title: 'two steps with one id',
      steps: [
        { stepType: 'MODULE', id: 'same' },
        { stepType: 'LLM', id: 'same' },
      ],
      field: 'steps[1].id',
      says: 'same is also the id of steps[0]',
    },
    {
      title: 'two steps with one ref',
      steps: [
        { stepType: 'MODULE', ref: 'x' },
        { stepType: 'LLM', ref: 'x' },
      ],
      field: 'steps[1].ref',
      says: 'x is also the ref of steps[0]',
    },
    { title: 'a given ref equal to a default one', steps: [{ stepType: 'MODULE', ref: 'step-2' }, { stepType: 'LLM' }], field: 'steps[1].ref' },
  ];

  it.each(refusals)('refuses $title on create (400 naming $field)', async ({ steps, field, says }) => {
    const body = await rest(member, 'POST', '/api/activity-plans', 400, { organizationId: organization.id, name: unique('Bad'), steps });
    expectRefusal(body, field, says);
  });

  it.each(refusals)('refuses $title on PUT and changes nothing', async ({ steps, field, says }) => {
    const stored = await newPlan([{ ref: 'keep', stepType: 'MODULE' }]);
    const body = await rest(member, 'PUT', `/api/activity-plans/${stored.id}`, 400, { name: unique('Renamed'), steps });
    expectRefusal(body, field, says);
    expect(await rest(member, 'GET', `/api/activity-plans/${stored.id}`, 200)).toEqual(stored);
  });

  it('reports every problem of a body at once', async () => {
    const body = await rest(member, 'POST', '/api/activity-plans', 400, {
      organizationId: organization.id,
      name: unique('Bad'),
      steps: [{ stepType: 'FOO' }, { stepType: 'CREATE_TASK' }],
    });
    expect(body.details.map((d: any) => d.field)).toEqual(['steps[0].stepType', 'steps[1].options.taskData']);
  });

  it('checks the stored steps on a PUT that does not send steps (the whole row it leaves)', async () => {
    const stored = await newPlan();
    const em = server.orm.em.fork();
    await em.nativeUpdate(ActivityPlan, { id: stored.id }, { steps: [{ ref: 'old', stepType: 'LEGACY' }] });
    const before = await rest(member, 'GET', `/api/activity-plans/${stored.id}`, 200);
    expectRefusal(
      await rest(member, 'PUT', `/api/activity-plans/${stored.id}`, 400, { name: unique('Renamed') }),
      'steps[0].stepType',
      'LEGACY is not a PipelineStepType',
    );
    expect(await rest(member, 'GET', `/api/activity-plans/${stored.id}`, 200)).toEqual(before);
    // Fixed steps make the same PUT pass.
    const fixed = await rest(member, 'PUT', `/api/activity-plans/${stored.id}`, 200, { steps: [{ ref: 'old', stepType: 'MODULE' }] });
    expect(fixed.steps).toEqual([{ id: expect.stringMatching(UUID), ref: 'old', stepType: 'MODULE' }]);
  });

  it('refuses the same steps through GraphQL createActivityPlan and updateActivityPlan', async () => {
    const create = await server.graphql(
      `mutation($input: ActivityPlanCreateRequest!) { createActivityPlan(input: $input) { id } }`,
      { input: { organizationId: organization.id, name: unique('Gql'), steps: [{ stepType: 'BRIDGE_CALL', options: { bridge: 'crm' } }] } },
      member.key,
    );
    expectGraphqlRefusal(create, 'steps[0].options.endpointName');

    const stored = await newPlan([{ stepType: 'AGENT' }]);
    const update = await server.graphql(
      `mutation($id: ID!, $input: ActivityPlanUpdateRequest!) { updateActivityPlan(id: $id, input: $input) { id } }`,
      { id: stored.id, input: { steps: [{ stepType: 'SCRIPT', options: { expression: '(' } }] } },
      member.key,
    );
    expectGraphqlRefusal(update, 'steps[0].options.expression', 'does not parse as JSONata');
    const wrongType = await server.graphql(
      `mutation($id: ID!, $input: ActivityPlanUpdateRequest!) { updateActivityPlan(id: $id, input: $input) { id } }`,
      { id: stored.id, input: { steps: [{ stepType: 'NOPE' }] } },
      member.key,
    );
    expectGraphqlRefusal(wrongType, 'steps[0].stepType', `NOPE is not a PipelineStepType; ${ALLOWED_STEP_TYPES}`);
    expect(await rest(member, 'GET', `/api/activity-plans/${stored.id}`, 200)).toEqual(stored);

    const accepted = await server.graphqlData(
      `mutation($id: ID!, $input: ActivityPlanUpdateRequest!) { updateActivityPlan(id: $id, input: $input) { steps } }`,
      { id: stored.id, input: { steps: [{ stepType: 'AGENT', ref: 'agent' }] } },
      member.key,
    );
    expect(accepted.updateActivityPlan.steps).toEqual([{ id: expect.stringMatching(UUID), ref: 'agent', stepType: 'AGENT' }]);
  });
});

describe('triggers', () => {
  it('accepts every event kind, a filter, an input mapping and a null filter', async () => {
    for (const eventKind of TRIGGER_EVENT_KINDS) {
      expect(await rest(member, 'POST', '/api/triggers', 201, validTrigger({ eventKind }))).toMatchObject({ eventKind });
    }
    const inputMapping = { title: 'task.title & " (copy)"', count: '$count(task.labels)', project: 'project.name' };
    const trigger = await rest(
      member,
      'POST',
      '/api/triggers',
      201,
      validTrigger({ eventKind: 'task_status_changed', eventFilter: 'to.slug = "done"', inputMapping }),
    );
    expect(trigger).toMatchObject({ eventFilter: 'to.slug = "done"', inputMapping, activityPlanRef: refTo(organization.slug, plan.slug) });
    const cleared = await rest(member, 'PUT', `/api/triggers/${trigger.id}`, 200, { eventFilter: null, inputMapping: null });
    expect(cleared).toMatchObject({ eventFilter: null, inputMapping: null, changeSequence: 1 });
    expect(await rest(member, 'PUT', `/api/triggers/${trigger.id}`, 200, { enabled: false })).toMatchObject({ enabled: false, changeSequence: 2 });
  });

  const refusals: { title: string; body: () => Record<string, unknown>; field: string; says?: string | RegExp }[] = [
    {
      title: 'an unknown event kind',
      body: () => ({ eventKind: 'task_deleted' }),
      field: 'eventKind',
      says: `task_deleted is not a TriggerEventKind; ${ALLOWED_EVENT_KINDS}`,
    },
    { title: 'an empty event kind', body: () => ({ eventKind: '' }), field: 'eventKind', says: ALLOWED_EVENT_KINDS },
    { title: 'a platform event no trigger hears', body: () => ({ eventKind: 'task_locked' }), field: 'eventKind' },
    {
      title: 'a reference that is no activity-plan URI',
      body: () => ({ activityPlanRef: 'x' }),
      field: 'activityPlanRef',
      says: 'activity-plan://<orgSlug>/<planSlug>',
    },
    {
      title: 'a reference without plan slug',
      body: () => ({ activityPlanRef: `activity-plan://${organization.slug}` }),
      field: 'activityPlanRef',
      says: 'is not of the form',
    },
    {
      title: 'a reference with an extra segment',
      body: () => ({ activityPlanRef: `${refTo(organization.slug, plan.slug)}/more` }),
      field: 'activityPlanRef',
      says: 'is not of the form',
    },
    {
      title: 'a reference to a missing plan',
      body: () => ({ activityPlanRef: refTo(organization.slug, 'no-such-plan') }),
      field: 'activityPlanRef',
      says: 'no activity plan no-such-plan',
    },
    {
      title: 'a reference to a deleted plan',
      body: () => ({ activityPlanRef: refTo(organization.slug, deletedPlan.slug) }),
      field: 'activityPlanRef',
      says: 'missing or deleted',
    },
    {
      title: "a reference to another organization's plan",
      body: () => ({ activityPlanRef: foreignPlanRef }),
      field: 'activityPlanRef',
      says: "a trigger starts plans of its own project's organization",
    },
    {
      title: 'a filter that does not parse',
      body: () => ({ eventFilter: 'task.status = ' }),
      field: 'eventFilter',
      says: /does not parse as JSONata: Unexpected end of expression/,
    },
    { title: 'an empty filter', body: () => ({ eventFilter: '' }), field: 'eventFilter', says: 'null for no filter' },
    { title: 'an input mapping that is not an object', body: () => ({ inputMapping: ['task.title'] }), field: 'inputMapping', says: 'must be an object' },
    {
      title: 'an input mapping whose expression does not parse',
      body: () => ({ inputMapping: { ok: 'task.id', title: 'task.[' } }),
      field: 'inputMapping.title',
      says: 'does not parse as JSONata',
    },
    {
      title: 'an input mapping whose expression is not a string',
      body: () => ({ inputMapping: { count: 42 } }),
      field: 'inputMapping.count',
      says: 'must be a string',
    },
  ];

  it.each(refusals)('refuses $title on create (400 naming $field)', async ({ body, field, says }) => {
    expectRefusal(await rest(member, 'POST', '/api/triggers', 400, validTrigger(body())), field, says);
  });

  it.each(refusals)('refuses $title on PUT and changes nothing', async ({ body, field, says }) => {
    const stored = await rest(member, 'POST', '/api/triggers', 201, validTrigger({ eventFilter: 'true', inputMapping: { id: 'task.id' } }));
    expectRefusal(await rest(member, 'PUT', `/api/triggers/${stored.id}`, 400, { name: unique('Renamed'), enabled: false, ...body() }), field, says);
    expect(await rest(member, 'GET', `/api/triggers/${stored.id}`, 200)).toEqual(stored);
  });

  it('refuses a create without event kind or plan reference', async () => {
    const body = await rest(member, 'POST', '/api/triggers', 400, { projectId, name: unique('Bare') });
    expect(body.details.map((d: any) => d.field)).toEqual(['eventKind', 'activityPlanRef']);
  });

  it('refuses any PUT of a trigger whose plan was deleted since, until it names a live plan', async () => {
    const doomed = await rest(member, 'POST', '/api/activity-plans', 201, { organizationId: organization.id, name: unique('Doomed') });
    const stored = await rest(member, 'POST', '/api/triggers', 201, validTrigger({ activityPlanRef: refTo(organization.slug, doomed.slug) }));
    await rest(member, 'DELETE', `/api/activity-plans/${doomed.id}`, 204);
    expectRefusal(await rest(member, 'PUT', `/api/triggers/${stored.id}`, 400, { enabled: false }), 'activityPlanRef', 'missing or deleted');
    expect(await rest(member, 'GET', `/api/triggers/${stored.id}`, 200)).toEqual(stored);
    const moved = await rest(member, 'PUT', `/api/triggers/${stored.id}`, 200, { enabled: false, activityPlanRef: refTo(organization.slug, plan.slug) });
    expect(moved).toMatchObject({ enabled: false, activityPlanRef: refTo(organization.slug, plan.slug), changeSequence: 1 });
  });

  it('checks the stored fields on a PUT that does not send them', async () => {
    const stored = await rest(member, 'POST', '/api/triggers', 201, validTrigger());
    await server.orm.em.fork().nativeUpdate(Trigger, { id: stored.id }, { eventKind: 'legacy_kind' });
    const before = await rest(member, 'GET', `/api/triggers/${stored.id}`, 200);
    expectRefusal(
      await rest(member, 'PUT', `/api/triggers/${stored.id}`, 400, { name: unique('Renamed') }),
      'eventKind',
      'legacy_kind is not a TriggerEventKind',
    );
    expect(await rest(member, 'GET', `/api/triggers/${stored.id}`, 200)).toEqual(before);
  });

  it('answers 403, not a refusal naming its organization, to a caller outside the project', async () => {
    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    await rest(stranger, 'POST', '/api/triggers', 403, validTrigger({ activityPlanRef: foreignPlanRef }));
  });

  it('refuses the same fields through GraphQL createTrigger and updateTrigger', async () => {
    const createMutation = `mutation($input: TriggerCreateRequest!) { createTrigger(input: $input) { id eventKind } }`;
    expectGraphqlRefusal(
      await server.graphql(createMutation, { input: validTrigger({ eventKind: 'sometimes' }) }, member.key),
      'eventKind',
      ALLOWED_EVENT_KINDS,
    );
    expectGraphqlRefusal(await server.graphql(createMutation, { input: validTrigger({ activityPlanRef: foreignPlanRef }) }, member.key), 'activityPlanRef');
    const created = await server.graphqlData(createMutation, { input: validTrigger({ eventKind: 'manual' }) }, member.key);
    expect(created.createTrigger.eventKind).toBe('manual');

    const stored = await rest(member, 'GET', `/api/triggers/${created.createTrigger.id}`, 200);
    const updateMutation = `mutation($id: ID!, $input: TriggerUpdateRequest!) { updateTrigger(id: $id, input: $input) { id eventFilter } }`;
    const update = (input: Record<string, unknown>) => server.graphql(updateMutation, { id: stored.id, input }, member.key);
    expectGraphqlRefusal(await update({ activityPlanRef: refTo(organization.slug, deletedPlan.slug) }), 'activityPlanRef');
    expectGraphqlRefusal(await update({ eventFilter: 'a and' }), 'eventFilter', 'does not parse as JSONata');
    expectGraphqlRefusal(await update({ inputMapping: { x: '}' } }), 'inputMapping.x');
    expectGraphqlRefusal(await update({ eventKind: 'task_updated' }), 'eventKind');
    expect(await rest(member, 'GET', `/api/triggers/${stored.id}`, 200)).toEqual(stored);
    const accepted = await update({ eventFilter: 'task.priority > 2' });
    expect(accepted.body.data?.updateTrigger, accepted.text).toEqual({ id: stored.id, eventFilter: 'task.priority > 2' });
  });
});
