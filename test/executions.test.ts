import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/** Cancelling an execution with its unfinished steps (REST and GraphQL), and creates made idempotent by a key. */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organizationId: string;

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Executions');
  organizationId = (await createOrganization(server, { name: unique('ExecOrg') }, member.key)).id;
});
afterAll(() => server.close());

const newExecution = (body: Record<string, unknown> = {}) =>
  rest(member, 'POST', '/api/executions', 201, { organizationId, description: unique('run'), ...body });

/** One step execution of `executionId` per status given, by status. */
async function stepsIn(executionId: string, statuses: string[]): Promise<Record<string, any>> {
  const steps: Record<string, any> = {};
  for (const status of statuses) {
    steps[status] = await rest(member, 'POST', '/api/step-executions', 201, {
      executionId,
      ref: status.toLowerCase(),
      name: status,
      stepType: 'MODULE',
      status,
    });
  }
  return steps;
}

async function executionsWithKey(key: string): Promise<any[]> {
  const answer = await rest(null, 'GET', `/api/executions?filter=${encodeURIComponent(`idempotencyKey=='${key}'`)}&pageSize=100`, 200);
  return answer.content;
}

describe('cancel', () => {
  it.each(['PENDING', 'RUNNING'])('cancels a %s execution with its PENDING and RUNNING steps; finished steps stay as they were', async (status) => {
    const execution = await newExecution({ status });
    const steps = await stepsIn(execution.id, ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED']);
    const cancelled = await rest(member, 'PUT', `/api/executions/${execution.id}/cancel`, 200);
    expect(cancelled).toMatchObject({ id: execution.id, status: 'CANCELLED', changeSequence: execution.changeSequence + 1 });
    expect(Date.parse(cancelled.endDate)).toBeGreaterThan(Date.now() - 60_000);
    expect(await rest(member, 'GET', `/api/executions/${execution.id}`, 200)).toEqual(cancelled);

    for (const was of ['PENDING', 'RUNNING']) {
      const step = await rest(member, 'GET', `/api/step-executions/${steps[was].id}`, 200);
      expect(step).toMatchObject({ status: 'CANCELLED', changeSequence: steps[was].changeSequence + 1 });
      expect(step.end).toBe(cancelled.endDate);
    }
    for (const final of ['SUCCEEDED', 'FAILED']) {
      expect(await rest(member, 'GET', `/api/step-executions/${steps[final].id}`, 200)).toEqual(steps[final]);
    }
  });

  it.each(['SUCCEEDED', 'FAILED', 'CANCELLED'])('refuses a %s execution with 409 naming its status, changing nothing', async (status) => {
    const execution = await newExecution({ status });
    const steps = await stepsIn(execution.id, ['PENDING']);
    const refused = await rest(member, 'PUT', `/api/executions/${execution.id}/cancel`, 409);
    expect(refused.message).toContain(status);
    expect(await rest(member, 'GET', `/api/executions/${execution.id}`, 200)).toEqual(execution);
    expect((await rest(member, 'GET', `/api/step-executions/${steps.PENDING.id}`, 200)).status).toBe('PENDING');
  });

  it('answers a second cancel with 409 CANCELLED', async () => {
    const execution = await newExecution();
    await rest(member, 'PUT', `/api/executions/${execution.id}/cancel`, 200);
    expect((await rest(member, 'PUT', `/api/executions/${execution.id}/cancel`, 409)).message).toContain('CANCELLED');
  });

  it('refuses a malformed id (400), a missing execution (404) and another tenant (403)', async () => {
    const execution = await newExecution();
    await rest(member, 'PUT', '/api/executions/not-a-uuid/cancel', 400);
    await rest(member, 'PUT', `/api/executions/${randomUUID()}/cancel`, 404);
    const outsider = await newCaller('CancelOutsider');
    await rest(outsider, 'PUT', `/api/executions/${execution.id}/cancel`, 403);
    expect((await rest(member, 'GET', `/api/executions/${execution.id}`, 200)).status).toBe('PENDING');
  });

  it('leaves the steps as they were when the execution cannot be written (one transaction)', async () => {
    const execution = await newExecution({ status: 'RUNNING' });
    const steps = await stepsIn(execution.id, ['RUNNING']);
    const connection = server.orm.em.getConnection();
    // The steps are cancelled first; then the execution's UPDATE fails.
    await connection.execute(`create or replace function refuse_execution_update() returns trigger language plpgsql as $$
      begin if new.id = '${execution.id}' then raise exception 'refused' using errcode = '23505'; end if; return new; end $$`);
    await connection.execute('create trigger refuse_execution_update before update on execution for each row execute function refuse_execution_update()');
    try {
      await rest(member, 'PUT', `/api/executions/${execution.id}/cancel`, 409);
    } finally {
      await connection.execute('drop trigger refuse_execution_update on execution');
      await connection.execute('drop function refuse_execution_update()');
    }
    expect((await rest(member, 'GET', `/api/executions/${execution.id}`, 200)).status).toBe('RUNNING');
    expect(await rest(member, 'GET', `/api/step-executions/${steps.RUNNING.id}`, 200)).toEqual(steps.RUNNING);
  });

  it('keeps status out of PUT bodies: only cancel changes it', async () => {
    const execution = await newExecution();
    expect((await rest(member, 'PUT', `/api/executions/${execution.id}`, 200, { status: 'SUCCEEDED', description: 'renamed' })).status).toBe('PENDING');
  });
});

describe('idempotencyKey', () => {
  it('answers a second create with the same key in the organization with 200 and the first execution, writing nothing', async () => {
    const key = unique('key');
    const first = await newExecution({ idempotencyKey: key, description: 'first' });
    const again = await server.request('POST', '/api/executions', {
      key: member.key,
      body: { organizationId, idempotencyKey: key, description: 'second', priority: 9 },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first);
    expect(await executionsWithKey(key)).toHaveLength(1);
    expect((await rest(member, 'GET', `/api/executions/${first.id}`, 200)).description).toBe('first');
  });

  it('creates apart without a key, and with the same key in another organization', async () => {
    const a = await newExecution();
    const b = await newExecution();
    expect(a.id).not.toBe(b.id);
    const key = unique('key');
    const here = await newExecution({ idempotencyKey: key });
    const otherOrganizationId = (await createOrganization(server, { name: unique('ExecOther') }, member.key)).id;
    const there = await rest(member, 'POST', '/api/executions', 201, { organizationId: otherOrganizationId, idempotencyKey: key });
    expect(there.id).not.toBe(here.id);
    expect(await executionsWithKey(key)).toHaveLength(2);
  });

  it("never hands another tenant's execution to a caller who may not create in its organization", async () => {
    const key = unique('key');
    await newExecution({ idempotencyKey: key });
    const outsider = await newCaller('KeyOutsider');
    const refused = await server.request('POST', '/api/executions', { key: outsider.key, body: { organizationId, idempotencyKey: key } });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.text).not.toContain('"id"');
  });

  it('refuses a key that is not text with 400 naming the field', async () => {
    const refused = await rest(member, 'POST', '/api/executions', 400, { organizationId, idempotencyKey: 42 });
    expect(refused.details[0].field).toBe('idempotencyKey');
  });

  it('creates one execution of many concurrent creates with one key: one 201, the others 200 with it', async () => {
    const key = unique('key');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        server.request('POST', '/api/executions', { key: member.key, body: { organizationId, idempotencyKey: key, description: `try ${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await executionsWithKey(key)).toHaveLength(1);
  });

  it('is backed by a unique index: a second row with the key cannot be written even around the service', async () => {
    const key = unique('key');
    const first = await newExecution({ idempotencyKey: key });
    const connection = server.orm.em.getConnection();
    await expect(
      connection.execute(
        `insert into execution (id, uuid, created_on, updated_on, change_sequence, organization_id, status, description, idempotency_key, priority, processing_time, context, exception_details, status_details, targets, pipeline)
         select gen_random_uuid(), gen_random_uuid(), now(), now(), 0, organization_id, status, description, idempotency_key, priority, processing_time, context, exception_details, status_details, targets, pipeline
           from execution where id = ?`,
        [first.id],
      ),
    ).rejects.toThrow(/execution_organization_id_idempotency_key_unique/);
  });
});

describe('GraphQL', () => {
  it('serves cancelExecution with the REST rules', async () => {
    const execution = await newExecution({ status: 'RUNNING' });
    const steps = await stepsIn(execution.id, ['PENDING']);
    const cancelled = await server.graphqlData(`mutation($id: ID!) { cancelExecution(id: $id) { id status endDate } }`, { id: execution.id }, member.key);
    expect(cancelled.cancelExecution).toMatchObject({ id: execution.id, status: 'CANCELLED' });
    expect(cancelled.cancelExecution.endDate).not.toBeNull();
    expect((await rest(member, 'GET', `/api/step-executions/${steps.PENDING.id}`, 200)).status).toBe('CANCELLED');
    const again = await server.graphql(`mutation($id: ID!) { cancelExecution(id: $id) { id } }`, { id: execution.id }, member.key);
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(again.body.errors[0].message).toContain('CANCELLED');
  });

  it('answers createExecution with a known key with the first execution', async () => {
    const key = unique('key');
    const first = await newExecution({ idempotencyKey: key });
    const created = await server.graphqlData(
      `mutation($input: ExecutionCreateRequest!) { createExecution(input: $input) { id description } }`,
      { input: { organizationId, idempotencyKey: key, description: 'again' } },
      member.key,
    );
    expect(created.createExecution).toEqual({ id: first.id, description: first.description });
    expect(await executionsWithKey(key)).toHaveLength(1);
  });
});

describe('OpenAPI', () => {
  it('lists cancelExecution at /api/executions/{executionId}/cancel', async () => {
    const { paths } = await rest(null, 'GET', '/v3/api-docs', 200);
    const cancel = paths['/api/executions/{executionId}/cancel'].put;
    expect(cancel.operationId).toBe('cancelExecution');
    expect(cancel.parameters).toEqual([expect.objectContaining({ name: 'executionId', in: 'path', required: true })]);
    expect(Object.keys(cancel.responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
  });
});
