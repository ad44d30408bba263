import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePlaceholders } from '../src/modules/workflow/step-runners';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { tenantKeyViolations } from './support/tenant-keys';

/**
 * Triggers and activities on the real job queue (graphile-worker on the run's PostgreSQL), with this
 * server's own worker running the jobs.
 */
let server: TestServer;
let org: { id: string; slug: string };

beforeAll(async () => {
  server = await startServer({ workerConcurrency: 4 });
  org = await createOrganization(server);
});

afterAll(async () => {
  await server?.close();
});

type Row = Record<string, any>;

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until the queue holds no job but webhook deliveries: every event evaluated, every activity run.
 * (Endpoints other suites create in the shared database have deliveries retried for hours.)
 */
async function queueIdle(): Promise<void> {
  const pending = `select count(*) as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier not in ('dispatch-webhooks', 'deliver-webhook', 'purge-webhook-deliveries')`;
  await waitFor(
    'an idle job queue',
    async () => Number((await server.orm.em.fork().getConnection().execute(pending))[0].n),
    (n) => n === 0,
  );
}

async function plan(steps: Row[], name = unique('Plan')): Promise<Row> {
  const answer = await server.request('POST', '/api/activity-plans', { body: { name, organizationId: org.id, steps } });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

async function trigger(projectId: string, planRow: Row, body: Row): Promise<Row> {
  const answer = await server.request('POST', '/api/triggers', {
    body: { name: unique('Trigger'), projectId, activityPlanRef: `activity-plan://${org.slug}/${planRow.slug}`, ...body },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

async function activitiesOf(projectId: string): Promise<Row[]> {
  const answer = await server.request('GET', `/api/activities?pageSize=100&filter=${encodeURIComponent(`projectId==${projectId}`)}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.content;
}

async function tasksOf(projectId: string): Promise<Row[]> {
  const answer = await server.request('GET', `/api/tasks?pageSize=100&filter=${encodeURIComponent(`projectId==${projectId}`)}`);
  return answer.body.content;
}

async function eventsOf(projectId: string, eventType: string): Promise<Row[]> {
  const filter = `projectId==${projectId};eventType==${eventType}`;
  return (await server.request('GET', `/api/events?pageSize=100&filter=${encodeURIComponent(filter)}`)).body.content;
}

async function finished(activityId: string): Promise<Row> {
  return waitFor(
    `activity ${activityId} to finish`,
    async () => (await server.request('GET', `/api/activities/${activityId}`)).body,
    (a) => a.status === 'COMPLETED' || a.status === 'FAILED',
  );
}

describe('a task_created trigger', () => {
  it('starts exactly one activity whose CREATE_TASK step creates one task, placeholders resolved', async () => {
    const project = await createProject(server, org.id, {
      name: 'Harbour',
      options: { dataProperties: { region: 'EU', size: 3, flag: false, nested: { a: 1 } } },
    });
    const steps = [
      {
        ref: 'make',
        name: 'Make the review task',
        stepType: 'CREATE_TASK',
        options: {
          taskData: {
            title: 'Review ${project.name} for ${activity.title}',
            description:
              '${project.options.dataProperties.region}|${project.options.dataProperties.size}|${project.options.dataProperties.flag}|${project.options.dataProperties.nested}|${project.options.dataProperties.missing}|${unknown.x}',
            priority: 3,
            properties: { code: '${project.id}', region: '${project.options.dataProperties.region}', count: 5, deep: { text: '${project.name}' } },
          },
        },
      },
    ];
    const createTaskPlan = await plan(steps, 'Intake review');
    const started = await trigger(project.id, createTaskPlan, { eventKind: 'task_created', eventFilter: 'task.title = "incoming"' });

    const source = await createTask(server, project.id, { title: 'incoming' });
    await queueIdle();

    const activities = await activitiesOf(project.id);
    expect(activities).toHaveLength(1);
    const activity = await finished(activities[0].id);
    expect(activity).toMatchObject({ status: 'COMPLETED', title: 'Intake review', startedByTriggerId: started.id, activityPlanId: createTaskPlan.id });
    expect(activity.startedOn).toEqual(expect.any(String));
    expect(activity.completedOn).toEqual(expect.any(String));
    expect(activity.steps).toHaveLength(1);
    expect(activity.steps[0]).toMatchObject({ ref: 'make', name: 'Make the review task', stepType: 'CREATE_TASK', status: 'COMPLETED' });

    const generated = (await tasksOf(project.id)).filter((t) => t.id !== source.id);
    expect(generated).toHaveLength(1);
    expect(activity.steps[0].output).toEqual({ taskId: generated[0].id });
    expect(generated[0]).toMatchObject({
      title: 'Review Harbour for Intake review',
      description: 'EU|3|false|||${unknown.x}',
      priority: 3,
      createdByActivityId: activity.id,
      properties: { code: project.id, region: 'EU', count: 5, deep: { text: '${project.name}' } },
    });
    // The generated task is a task_created event too, caused by the activity: it never fires the trigger that started it.
    expect(await eventsOf(project.id, 'task_created')).toHaveLength(2);
    const completed = await eventsOf(project.id, 'activity_completed');
    expect(completed.map((e) => e.eventDetail)).toEqual([{ activityId: activity.id }]);
    // The step's task (and the activity's rows) carry their organization, as every row written by a job.
    expect(await tenantKeyViolations(server.orm)).toEqual([]);
  });

  it('starts nothing when its filter is false or it is disabled, or for another event kind', async () => {
    const project = await createProject(server, org.id);
    const createTaskPlan = await plan([{ stepType: 'CREATE_TASK', options: { taskData: { title: 'never' } } }]);
    await trigger(project.id, createTaskPlan, { eventKind: 'task_created', eventFilter: 'task.priority > 100' });
    await trigger(project.id, createTaskPlan, { eventKind: 'task_created', enabled: false });
    await trigger(project.id, createTaskPlan, { eventKind: 'task_status_changed' });
    await createTask(server, project.id, { title: 'quiet', priority: 1 });
    await queueIdle();
    expect(await activitiesOf(project.id)).toEqual([]);
    expect(await tasksOf(project.id)).toHaveLength(1);
  });

  it('sees the project, the task and the status change (from, to) in its filter and input mapping', async () => {
    const project = await createProject(server, org.id, { name: 'Mapped' });
    for (const slug of ['draft', 'ready']) {
      const status = await server.request('POST', '/api/task-statuses', {
        body: { label: `${slug}-${unique()}`, slug: `${slug}-${project.id.slice(0, 8)}`, organizationId: org.id },
      });
      expect(status.status, status.text).toBe(201);
    }
    const slugs = { draft: `draft-${project.id.slice(0, 8)}`, ready: `ready-${project.id.slice(0, 8)}` };
    const scriptPlan = await plan([{ ref: 'echo', stepType: 'SCRIPT', options: { expression: 'inputs' } }]);
    await trigger(project.id, scriptPlan, {
      eventKind: 'task_status_changed',
      eventFilter: `to = "${slugs.ready}"`,
      inputMapping: { taskTitle: 'task.title', projectName: 'project.name', change: 'from & ">" & to' },
    });
    const task = await createTask(server, project.id, { title: 'moving', statusSlug: slugs.draft });
    expect((await server.request('PUT', `/api/tasks/${task.id}/status`, { body: { statusSlug: slugs.ready } })).status).toBe(200);
    await queueIdle();
    const [activity] = await activitiesOf(project.id);
    const done = await finished(activity.id);
    const inputs = { taskTitle: 'moving', projectName: 'Mapped', change: `${slugs.draft}>${slugs.ready}` };
    expect(done.inputs).toEqual(inputs);
    expect(done.steps[0]).toMatchObject({ status: 'COMPLETED', output: inputs });
  });
});

describe('activity steps', () => {
  it('fail the activity at a step type without a runner, after the steps before it completed', async () => {
    const project = await createProject(server, org.id);
    const mixed = await plan([
      { ref: 'first', stepType: 'CREATE_TASK', options: { taskData: { title: 'made first' } } },
      { ref: 'second', stepType: 'MODULE', options: {} },
      { ref: 'third', stepType: 'CREATE_TASK', options: { taskData: { title: 'never made' } } },
    ]);
    const manual = await trigger(project.id, mixed, { eventKind: 'manual' });
    const fired = await server.request('POST', `/api/triggers/${manual.id}/fire`, { body: {} });
    expect(fired.status, fired.text).toBe(202);
    const activity = await finished(fired.body.id);
    expect(activity.status).toBe('FAILED');
    expect(activity.steps.map((s: Row) => s.status)).toEqual(['COMPLETED', 'FAILED', 'PENDING']);
    expect(activity.steps[1].error).toEqual({ message: 'step type MODULE has no runner configured' });
    expect(activity.errorDetails).toMatchObject({ ref: 'second', stepType: 'MODULE', message: 'step type MODULE has no runner configured' });
    expect((await tasksOf(project.id)).map((t) => t.title)).toEqual(['made first']);
    await queueIdle();
    expect(await eventsOf(project.id, 'activity_completed')).toEqual([]);
  });

  it('fail a BRIDGE_CALL naming no bridge of the organization, and a CREATE_TASK whose task is refused, writing nothing', async () => {
    const project = await createProject(server, org.id);
    const bridge = await trigger(project.id, await plan([{ stepType: 'BRIDGE_CALL', options: { bridge: 'b', endpointName: 'e' } }]), { eventKind: 'manual' });
    const bad = await trigger(project.id, await plan([{ stepType: 'CREATE_TASK', options: { taskData: { title: 't', priority: 'urgent' } } }]), {
      eventKind: 'manual',
    });
    const first = await finished((await server.request('POST', `/api/triggers/${bridge.id}/fire`)).body.id);
    expect(first.status).toBe('FAILED');
    expect(first.errorDetails.message).toBe("no service bridge b in the activity's organization");
    const second = await finished((await server.request('POST', `/api/triggers/${bad.id}/fire`)).body.id);
    expect(second.status).toBe('FAILED');
    expect(second.errorDetails.message).toContain('priority');
    expect(await tasksOf(project.id)).toEqual([]);
  });

  it('run a SCRIPT over the activity inputs and keep its result', async () => {
    const project = await createProject(server, org.id);
    const manual = await trigger(project.id, await plan([{ ref: 'double', stepType: 'SCRIPT', options: { expression: 'inputs.n * 2' } }]), {
      eventKind: 'manual',
    });
    const fired = await server.request('POST', `/api/triggers/${manual.id}/fire`, { body: { input: { n: 21 } } });
    expect(fired.status, fired.text).toBe(202);
    expect(fired.body).toMatchObject({ status: 'PENDING', inputs: { n: 21 }, startedByTriggerId: manual.id });
    const activity = await finished(fired.body.id);
    expect(activity.steps[0]).toMatchObject({ ref: 'double', status: 'COMPLETED', output: 42 });
  });

  it("fail a SCRIPT whose expression fails to evaluate, with JSONata's message", async () => {
    const project = await createProject(server, org.id);
    const manual = await trigger(project.id, await plan([{ ref: 'add', stepType: 'SCRIPT', options: { expression: '"a" + 1' } }]), { eventKind: 'manual' });
    const activity = await finished((await server.request('POST', `/api/triggers/${manual.id}/fire`)).body.id);
    expect(activity.status).toBe('FAILED');
    expect(activity.errorDetails).toMatchObject({ ref: 'add', stepType: 'SCRIPT' });
    expect(activity.errorDetails.message).toBe('The left side of the "+" operator must evaluate to a number (JSONata T2001 at position 5)');
    expect(activity.steps[0]).toMatchObject({ status: 'FAILED', error: { message: activity.errorDetails.message } });
  });

  it('leave an unresolvable activity title or project name as written', () => {
    const project = { id: 'p-1', name: '', options: { dataProperties: { k: 'v' } } };
    expect(resolvePlaceholders('${activity.title}/${project.name}/${project.id}/${project.options.dataProperties.k}', { title: '' }, project)).toBe(
      '${activity.title}/${project.name}/p-1/v',
    );
  });
});

describe('POST /api/triggers/{id}/fire', () => {
  it('answers 202 with the PENDING activity; 409 when disabled or not manual; 404 unknown; refused to outsiders as their PUT is', async () => {
    const project = await createProject(server, org.id);
    const scriptPlan = await plan([{ stepType: 'SCRIPT', options: { expression: '1' } }]);
    const disabled = await trigger(project.id, scriptPlan, { eventKind: 'manual', enabled: false });
    const automatic = await trigger(project.id, scriptPlan, { eventKind: 'task_created' });
    const answerDisabled = await server.request('POST', `/api/triggers/${disabled.id}/fire`, { body: {} });
    expect(answerDisabled.status).toBe(409);
    expect(answerDisabled.body.message).toContain('disabled');
    expect((await server.request('POST', `/api/triggers/${automatic.id}/fire`, { body: {} })).status).toBe(409);
    expect((await server.request('POST', `/api/triggers/00000000-0000-4000-8000-000000000000/fire`, { body: {} })).status).toBe(404);
    expect((await server.request('POST', `/api/triggers/${disabled.id}/fire`, { body: { input: 'text' } })).status).toBe(400);

    const outsider = await server.request('POST', '/api/users', { body: { email: `${unique('out')}@example.com`, firstName: 'O', lastName: 'S' } });
    const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('out'), userId: outsider.body.id } });
    const manual = await trigger(project.id, scriptPlan, { eventKind: 'manual' });
    const put = await server.request('PUT', `/api/triggers/${manual.id}`, { body: { name: 'x' }, key: token.body.token });
    expect(put.status).toBe(403);
    expect((await server.request('POST', `/api/triggers/${manual.id}/fire`, { body: {}, key: token.body.token })).status).toBe(403);
    await queueIdle();
    expect(await activitiesOf(project.id)).toEqual([]);
  });

  it('is the GraphQL mutation fireTrigger, with the activity and the trigger that started it', async () => {
    const project = await createProject(server, org.id);
    const manual = await trigger(project.id, await plan([{ stepType: 'SCRIPT', options: { expression: 'inputs.word' } }]), { eventKind: 'manual' });
    const data = await server.graphqlData(`mutation($id: ID!, $input: JSON) { fireTrigger(id: $id, input: $input) { id status inputs } }`, {
      id: manual.id,
      input: { word: 'hello' },
    });
    expect(data.fireTrigger).toMatchObject({ status: 'PENDING', inputs: { word: 'hello' } });
    await finished(data.fireTrigger.id);
    const read = await server.graphqlData(`query($id: ID!) { activity(id: $id) { status steps startedByTriggerId startedByTrigger { id slug eventKind } } }`, {
      id: data.fireTrigger.id,
    });
    expect(read.activity).toMatchObject({
      status: 'COMPLETED',
      startedByTriggerId: manual.id,
      startedByTrigger: { id: manual.id, slug: manual.slug, eventKind: 'manual' },
    });
    expect(read.activity.steps[0].output).toBe('hello');
  });
});

describe('chains of activities', () => {
  it('stop at depth 5, the refusal recorded in the last activity', async () => {
    const project = await createProject(server, org.id);
    const scriptPlan = await plan([{ stepType: 'SCRIPT', options: { expression: '"ok"' } }]);
    const start = await trigger(project.id, scriptPlan, { eventKind: 'manual' });
    // Two triggers on activity_completed: each completion starts the other one (never the one that started it).
    await trigger(project.id, scriptPlan, { eventKind: 'activity_completed' });
    await trigger(project.id, scriptPlan, { eventKind: 'activity_completed' });
    const fired = await server.request('POST', `/api/triggers/${start.id}/fire`, { body: {} });
    expect(fired.status).toBe(202);
    await waitFor(
      'the chain to stop',
      async () => {
        await queueIdle();
        return activitiesOf(project.id);
      },
      (all) => all.every((a) => a.status === 'COMPLETED') && all.filter((a) => a.errorDetails?.chainDepthExceeded).length === 2,
      60_000,
    );
    const all = await activitiesOf(project.id);
    // Depth 1 (manual), then two branches of depths 2 to 5: nine activities, each branch refused once at depth 6.
    expect(all).toHaveLength(9);
    const refused = all.filter((a) => a.errorDetails?.chainDepthExceeded);
    expect(refused).toHaveLength(2);
    expect(refused[0].errorDetails.message).toMatch(/^activity chain stopped at depth 5/);
  }, 90_000);
});

describe('POST /api/orchestrator/activities/{id}/steps/{stepId}/error', () => {
  it('marks the step and its activity FAILED with the body (administrators only)', async () => {
    const project = await createProject(server, org.id);
    const manual = await trigger(project.id, await plan([{ stepType: 'SCRIPT', options: { expression: '1' } }]), { eventKind: 'manual' });
    const activity = await finished((await server.request('POST', `/api/triggers/${manual.id}/fire`)).body.id);
    const stepId = activity.steps[0].id;
    const path = `/api/orchestrator/activities/${activity.id}/steps/${stepId}/error`;

    const member = await server.request('POST', '/api/users', { body: { email: `${unique('m')}@example.com`, firstName: 'M', lastName: 'M' } });
    const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('m'), userId: member.body.id } });
    expect((await server.request('POST', path, { body: { reason: 'x' }, key: token.body.token })).status).toBe(403);
    expect((await server.request('POST', path, { body: '[1]' })).status).toBe(400);
    expect((await server.request('POST', `/api/orchestrator/activities/${activity.id}/steps/not-a-uuid/error`, { body: {} })).status).toBe(400);
    expect(
      (await server.request('POST', `/api/orchestrator/activities/${activity.id}/steps/00000000-0000-4000-8000-000000000000/error`, { body: {} })).status,
    ).toBe(404);

    const answer = await server.request('POST', path, { body: { reason: 'worker lost', code: 17 } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toMatchObject({ id: activity.id, status: 'FAILED', errorDetails: { reason: 'worker lost', code: 17 } });
    expect(answer.body.steps[0]).toMatchObject({ id: stepId, status: 'FAILED', error: { reason: 'worker lost', code: 17 } });
  });
});
