import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from './support/fixtures';
import { callersOf, type Caller } from './support/callers';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const { newCaller, rest, resolvedLevels } = callersOf(() => server);

const q = encodeURIComponent;
const EXECUTION_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

describe('assistants, data forms, executions and step executions', () => {
  let member: Caller;
  let organization: any;

  beforeAll(async () => {
    member = await newCaller('Assistants');
    organization = await createOrganization(server, {}, member.key);
  });

  it('keeps an assistant with its options, embeds its project and ignores a written validationErrors', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const options = {
      agentRuntimeId: 'runtime-1',
      complete_label: 'done',
      moduleRefs: ['acme/ocr'],
      prompt: 'Classify',
      taxonomies: ['acme/invoice'],
      pipeline: { steps: [{ name: 'OCR', ref: 'acme/ocr', stepType: 'MODULE', conditional: '', options: {}, executionPolicy: { maxAttempts: 3 } }] },
    };
    const assistant = await rest(member, 'POST', '/api/assistants', 201, {
      projectId: project.id,
      name: 'Invoice Reader',
      color: '#00f',
      priorityHint: 2,
      chatEnabled: true,
      options,
      validationErrors: { instances: [{ message: 'ignored' }] },
    });
    expect(assistant).toMatchObject({
      projectId: project.id,
      project: { id: project.id, name: project.name },
      name: 'Invoice Reader',
      slug: 'invoice-reader',
      color: '#00f',
      active: true,
      chatEnabled: true,
      runOnExistingContent: false,
      showInTraining: false,
      priorityHint: 2,
      options,
      testOptions: {},
      validationErrors: { instances: [] },
      deleted: false,
      changeSequence: 0,
    });
    expect(await rest(member, 'GET', `/api/assistants/${assistant.id}`, 200)).toEqual(assistant);
    const page = await rest(member, 'GET', `/api/assistants?filter=${q(`projectId=='${project.id}'`)}`, 200);
    expect(page.content).toEqual([assistant]);
    // Echoing the answer back changes nothing.
    expect(await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, assistant)).toEqual(assistant);
    await rest(member, 'DELETE', `/api/assistants/${assistant.id}`, 204);
    await rest(member, 'GET', `/api/assistants/${assistant.id}`, 404);
  });

  it('re-derives an assistant slug from a new name unless the body sends a slug (rule 9)', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const other = await createProject(server, organization.id, {}, member.key);
    const taken = await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name: 'Contract Checker' });
    const second = await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name: 'Contract Checker' });
    const elsewhere = await rest(member, 'POST', '/api/assistants', 201, { projectId: other.id, name: 'Contract Checker' });
    expect([taken.slug, second.slug, elsewhere.slug]).toEqual(['contract-checker', 'contract-checker-1', 'contract-checker']);

    const assistant = await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name: 'Draft' });
    expect(assistant.slug).toBe('draft');
    const renamed = await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, { name: 'Summary Writer' });
    expect(renamed).toMatchObject({ name: 'Summary Writer', slug: 'summary-writer', changeSequence: 1 });
    // The new name's slug is taken: suffixed.
    const onTaken = await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, { name: 'Contract Checker' });
    expect(onTaken).toMatchObject({ name: 'Contract Checker', slug: 'contract-checker-2' });
    // A slug sent with the new name wins, also the one it already has.
    const explicit = await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, { name: 'Renamed Again', slug: 'contract-checker-2' });
    expect(explicit).toMatchObject({ name: 'Renamed Again', slug: 'contract-checker-2' });
    const chosen = await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, { name: 'Final Name', slug: 'my-own' });
    expect(chosen).toMatchObject({ name: 'Final Name', slug: 'my-own' });
    // Other changes leave the slug alone.
    expect(await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, { color: '#0f0' })).toMatchObject({ slug: 'my-own', color: '#0f0' });
    // An explicit slug that collides is suffixed like any other.
    expect((await rest(member, 'PUT', `/api/assistants/${assistant.id}`, 200, { slug: 'contract-checker' })).slug).toBe('contract-checker-2');
  });

  it('pages assistants and data forms 1-indexed, with both sort forms', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const org = await createOrganization(server, { name: unique('Forms') }, member.key);
    const names = ['beta', 'alpha', 'beta', 'gamma', 'alpha'];
    for (const name of names) {
      await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name });
      await rest(member, 'POST', '/api/data-forms', 201, { organizationId: org.id, name });
    }
    for (const [path, owner] of [
      ['assistants', `projectId=='${project.id}'`],
      ['data-forms', `organizationId=='${org.id}'`],
    ]) {
      const base = `/api/${path}?filter=${q(owner)}`;
      const first = await rest(member, 'GET', base, 200);
      expect(first).toMatchObject({ number: 0, size: 20, totalElements: 5, totalPages: 1, first: true, last: true, numberOfElements: 5 });
      expect(first.pageable).toMatchObject({ pageNumber: 0, pageSize: 20 });
      const second = await rest(member, 'GET', `${base}&page=2&pageSize=2`, 200);
      expect(second).toMatchObject({ number: 1, size: 2, numberOfElements: 2, totalPages: 3, first: false, last: false });
      expect(second.content.map((r: any) => r.id)).toEqual(first.content.slice(2, 4).map((r: any) => r.id));
      expect((await rest(member, 'GET', `${base}&page=1&pageSize=1000`, 200)).size).toBe(1000);
      expect((await rest(member, 'GET', `${base}&page=0`, 400)).details?.[0]?.field).toBe('page');
      expect((await rest(member, 'GET', `${base}&pageSize=1001`, 400)).details?.[0]?.field).toBe('pageSize');
      await rest(member, 'GET', `${base}&pageSize=0`, 400);

      const colon = await rest(member, 'GET', `${base}&sort=${q('name:desc;createdOn:asc')}`, 200);
      const comma = await rest(member, 'GET', `${base}&sort=${q('name,desc')}&sort=${q('createdOn,asc')}`, 200);
      expect(colon.content.map((r: any) => r.name)).toEqual(['gamma', 'beta', 'beta', 'alpha', 'alpha']);
      expect(comma.content.map((r: any) => r.id)).toEqual(colon.content.map((r: any) => r.id));
      const ascending = colon.content.filter((r: any) => r.name === 'beta').map((r: any) => r.createdOn);
      expect([...ascending].sort()).toEqual(ascending);
    }
    // Zero-indexed listings keep their rules.
    expect((await rest(member, 'GET', '/api/projects?page=0', 200)).size).toBe(10);
  });

  it('keeps a data form with its metadata, embeds its organization and sets orgSlug', async () => {
    const metadata = {
      description: 'Invoice form',
      editable: true,
      entrypoints: ['main'],
      actions: [{ name: 'save', type: 'script', properties: {} }],
      tabOrder: [{ path: 'header.total' }],
      nodes: [{ component: 'Input', key: 'total', meta: { label: 'Total' } }],
    };
    const form = await rest(member, 'POST', '/api/data-forms', 201, {
      organizationId: organization.id,
      name: 'Invoice Form',
      type: 'form',
      ref: 'acme/invoice-form',
      template: true,
      orgSlug: 'someone-else',
      metadata,
    });
    expect(form).toMatchObject({
      organizationId: organization.id,
      organization: { id: organization.id },
      orgSlug: organization.slug,
      name: 'Invoice Form',
      slug: 'invoice-form',
      type: 'form',
      ref: 'acme/invoice-form',
      template: true,
      deprecated: false,
      publicAccess: false,
      metadata,
      deleted: false,
    });
    const again = await rest(member, 'POST', '/api/data-forms', 201, { organizationId: organization.id, name: 'Invoice Form' });
    expect(again.slug).toBe('invoice-form-1');
    expect(await rest(member, 'PUT', `/api/data-forms/${form.id}`, 200, { orgSlug: 'changed', deprecated: true })).toMatchObject({
      orgSlug: organization.slug,
      deprecated: true,
      changeSequence: 1,
    });
    await rest(member, 'DELETE', `/api/data-forms/${again.id}`, 204);
    await rest(member, 'GET', `/api/data-forms/${again.id}`, 404);
  });

  it('starts an execution PENDING, refuses an unknown status and ignores status in PUT bodies', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const assistant = await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name: unique('Runner') });
    const execution = await rest(member, 'POST', '/api/executions', 201, {
      organizationId: organization.id,
      assistantId: assistant.id,
      description: 'first run',
      statusDetails: { message: 'queued', progress: 0, progressMax: 3 },
    });
    expect(execution).toMatchObject({
      organizationId: organization.id,
      assistantId: assistant.id,
      status: 'PENDING',
      parentExecutionId: null,
      documentFamilyId: null,
      priority: 0,
      startDate: null,
      endDate: null,
      statusDetails: { message: 'queued', progress: 0, progressMax: 3 },
      targets: { instances: [] },
      changeSequence: 0,
    });

    const refused = await rest(member, 'POST', '/api/executions', 400, { organizationId: organization.id, status: 'DONE' });
    const detail = refused.details?.find((d: any) => d.field === 'status');
    expect(detail, JSON.stringify(refused)).toBeDefined();
    for (const value of EXECUTION_STATUSES) expect(detail.message).toContain(value);

    const running = await rest(member, 'POST', '/api/executions', 201, { organizationId: organization.id, status: 'RUNNING', parentExecutionId: execution.id });
    expect(running).toMatchObject({ status: 'RUNNING', parentExecutionId: execution.id });

    const startDate = '2026-11-25T10:00:00.000Z';
    const put = await rest(member, 'PUT', `/api/executions/${execution.id}`, 200, { status: 'SUCCEEDED', startDate, priority: 5 });
    expect(put).toMatchObject({ status: 'PENDING', startDate, priority: 5, changeSequence: 1 });
    const statusOnly = await rest(member, 'PUT', `/api/executions/${execution.id}`, 200, { status: 'FAILED' });
    expect(statusOnly).toMatchObject({ status: 'PENDING', changeSequence: 1 });
    expect((await rest(member, 'GET', `/api/executions/${execution.id}`, 200)).status).toBe('PENDING');

    const step = await rest(member, 'POST', '/api/step-executions', 201, {
      executionId: execution.id,
      name: 'OCR',
      ref: 'acme/ocr',
      stepType: 'MODULE',
      outputIds: ['a'],
    });
    expect(step).toMatchObject({ executionId: execution.id, name: 'OCR', stepType: 'MODULE', status: 'PENDING', outputIds: ['a'], start: null, end: null });
    const end = '2026-11-25T10:01:00.000Z';
    expect(await rest(member, 'PUT', `/api/step-executions/${step.id}`, 200, { status: 'SUCCEEDED', end })).toMatchObject({ status: 'SUCCEEDED', end });

    await rest(member, 'DELETE', `/api/executions/${running.id}`, 204);
    await rest(member, 'GET', `/api/executions/${running.id}`, 404);
  });

  it('reads project -> assistants and execution -> steps with one SQL statement per level', async () => {
    const project = await createProject(server, organization.id, { name: unique('Nest') }, member.key);
    const assistants: any[] = [];
    for (const name of ['a-one', 'a-two', 'a-three']) {
      const assistant = await rest(member, 'POST', '/api/assistants', 201, { projectId: project.id, name });
      assistants.push({ id: assistant.id, name });
    }
    assistants.sort((a, b) => a.name.localeCompare(b.name));
    const levels = [`project(id: $id) { id }`, `project(id: $id) { id assistants(sort: "name:asc") { content { id name } } }`];
    const counts: number[] = [];
    let deepest: any;
    for (const selection of levels) {
      const run = await resolvedLevels(selection, { id: project.id }, member.key);
      counts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.project).toEqual({ id: project.id, assistants: { content: assistants } });
    expect(counts[1] - counts[0], `statements: ${counts}`).toBe(1);

    const execution = await rest(member, 'POST', '/api/executions', 201, { organizationId: organization.id });
    const steps: any[] = [];
    for (const name of ['s1', 's2', 's3']) {
      const step = await rest(member, 'POST', '/api/step-executions', 201, { executionId: execution.id, name, stepType: 'MODULE' });
      steps.push({ id: step.id, name, status: 'PENDING' });
    }
    const executionLevels = [`execution(id: $id) { id status }`, `execution(id: $id) { id status steps(sort: "name:asc") { content { id name status } } }`];
    const executionCounts: number[] = [];
    for (const selection of executionLevels) {
      const run = await resolvedLevels(selection, { id: execution.id }, member.key);
      executionCounts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.execution).toEqual({ id: execution.id, status: 'PENDING', steps: { content: steps } });
    expect(executionCounts[1] - executionCounts[0], `statements: ${executionCounts}`).toBe(1);
  });

  it('answers 403 to a member of another organization reading an execution', async () => {
    const execution = await rest(member, 'POST', '/api/executions', 201, { organizationId: organization.id, description: 'secret' });
    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    expect(await rest(stranger, 'GET', `/api/executions/${execution.id}`, 403)).toMatchObject({ status: 403 });
    const listed = await rest(stranger, 'GET', `/api/executions?filter=${q(`id=='${execution.id}'`)}`, 200);
    expect(listed.totalElements).toBe(0);
    const viaGraphql = await server.graphql(`query($id: ID!) { execution(id: $id) { id } }`, { id: execution.id }, stranger.key);
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    await rest(stranger, 'PUT', `/api/executions/${execution.id}`, 403, { description: 'mine' });
    await rest(stranger, 'POST', '/api/step-executions', 403, { executionId: execution.id });
    expect((await rest(member, 'GET', `/api/executions/${execution.id}`, 200)).description).toBe('secret');
  });
});
