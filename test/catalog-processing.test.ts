import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { callersOf, type Caller } from './support/callers';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const { newCaller, rest, resolvedLevels } = callersOf(() => server);

const SESSION_STATES = ['ACTIVE', 'COMPLETED', 'FAILED', 'CANCELLED'];

describe('agent runtimes, agents and agent sessions as a member of an organization', () => {
  let member: Caller;
  let organizationId: string;

  beforeAll(async () => {
    member = await newCaller('Agents');
    organizationId = (await createOrganization(server, {}, member.key)).id;
  });

  it('creates, reads, lists, updates and deletes a runtime, an agent and a session over REST', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const task = await createTask(server, project.id, { title: 'Review' }, member.key);

    const runtime = await rest(member, 'POST', '/api/agent-runtimes', 201, {
      organizationId,
      name: 'Python Runtime',
      image: 'registry.example/agents/python:3.12',
      options: { memoryMb: 512 },
    });
    expect(runtime).toMatchObject({
      organizationId,
      name: 'Python Runtime',
      slug: 'python-runtime',
      description: '',
      image: 'registry.example/agents/python:3.12',
      options: { memoryMb: 512 },
      deleted: false,
      changeSequence: 0,
    });

    const agent = await rest(member, 'POST', '/api/agents', 201, {
      organizationId,
      name: 'Reviewer',
      agentRuntimeId: runtime.id,
      projectId: project.id,
      options: { prompt: 'review' },
    });
    expect(agent).toMatchObject({
      organizationId,
      name: 'Reviewer',
      slug: 'reviewer',
      agentRuntimeId: runtime.id,
      projectId: project.id,
      options: { prompt: 'review' },
    });

    const startedAt = '2026-11-25T10:00:00.000Z';
    const session = await rest(member, 'POST', '/api/agent-sessions', 201, {
      agentId: agent.id,
      projectId: project.id,
      taskId: task.id,
      userId: member.id,
      startedAt,
    });
    expect(session).toMatchObject({
      agentId: agent.id,
      projectId: project.id,
      taskId: task.id,
      userId: member.id,
      state: 'ACTIVE',
      startedAt,
      endedAt: null,
      changeSequence: 0,
    });

    expect(await rest(member, 'GET', `/api/agent-runtimes/${runtime.id}`, 200)).toEqual(runtime);
    expect(await rest(member, 'GET', `/api/agents/${agent.id}`, 200)).toEqual(agent);
    expect(await rest(member, 'GET', `/api/agent-sessions/${session.id}`, 200)).toEqual(session);

    const sessions = await rest(
      member,
      'GET',
      `/api/agent-sessions?filter=${encodeURIComponent(`agent.organizationId=='${organizationId}';state=='ACTIVE'`)}`,
      200,
    );
    expect(sessions.content.map((row: any) => row.id)).toEqual([session.id]);

    const endedAt = '2026-11-25T10:05:00.000Z';
    const ended = await rest(member, 'PUT', `/api/agent-sessions/${session.id}`, 200, { state: 'COMPLETED', endedAt, changeSequence: 0 });
    expect(ended).toMatchObject({ state: 'COMPLETED', endedAt, changeSequence: 1 });
    expect(await rest(member, 'GET', `/api/agent-sessions/${session.id}/sequence`, 200)).toBe(1);
    const renamed = await rest(member, 'PUT', `/api/agents/${agent.id}`, 200, { name: 'Senior Reviewer', agentRuntimeId: null });
    expect(renamed).toMatchObject({ name: 'Senior Reviewer', slug: 'reviewer', agentRuntimeId: null, changeSequence: 1 });

    await rest(member, 'DELETE', `/api/agent-sessions/${session.id}`, 204);
    await rest(member, 'GET', `/api/agent-sessions/${session.id}`, 404);
    await rest(member, 'DELETE', `/api/agents/${agent.id}`, 204);
    await rest(member, 'GET', `/api/agents/${agent.id}`, 404);
    await rest(member, 'DELETE', `/api/agent-runtimes/${runtime.id}`, 204);
    await rest(member, 'GET', `/api/agent-runtimes/${runtime.id}`, 404);
    const admin = await server.request('GET', `/api/agents?filter=${encodeURIComponent(`id=='${agent.id}'`)}`);
    expect(admin.body.totalElements, admin.text).toBe(0); // soft-deleted: hidden
  });

  it('hides the sessions of a deleted agent', async () => {
    const agent = await rest(member, 'POST', '/api/agents', 201, { organizationId, name: unique('Agent') });
    const session = await rest(member, 'POST', '/api/agent-sessions', 201, { agentId: agent.id });
    await rest(member, 'DELETE', `/api/agents/${agent.id}`, 204);
    await rest(member, 'GET', `/api/agent-sessions/${session.id}`, 404);
    await rest(member, 'POST', '/api/agent-sessions', 400, { agentId: agent.id });
  });

  it('creates, reads, updates and deletes a runtime, an agent and a session over GraphQL', async () => {
    const gql = (query: string, variables?: Record<string, unknown>) => server.graphqlData(query, variables, member.key);
    const runtime = (
      await gql(
        `mutation($org: ID!) { createAgentRuntime(input: { organizationId: $org, name: "Node Runtime", image: "node:22" }) { id name slug image organizationId } }`,
        {
          org: organizationId,
        },
      )
    ).createAgentRuntime;
    expect(runtime).toMatchObject({ name: 'Node Runtime', slug: 'node-runtime', image: 'node:22', organizationId });
    const agent = (
      await gql(
        `mutation($org: ID!, $rt: ID!) { createAgent(input: { organizationId: $org, name: "Summarizer", agentRuntimeId: $rt }) { id slug agentRuntimeId } }`,
        {
          org: organizationId,
          rt: runtime.id,
        },
      )
    ).createAgent;
    expect(agent).toMatchObject({ slug: 'summarizer', agentRuntimeId: runtime.id });
    const session = (
      await gql(`mutation($agent: ID!) { createAgentSession(input: { agentId: $agent, state: FAILED }) { id state agentId startedAt } }`, { agent: agent.id })
    ).createAgentSession;
    expect(session).toMatchObject({ state: 'FAILED', agentId: agent.id, startedAt: null });

    const read = await gql(`query($id: ID!) { agentSession(id: $id) { id state agent { id slug agentRuntime { id name organization { id } } } } }`, {
      id: session.id,
    });
    expect(read.agentSession).toEqual({
      id: session.id,
      state: 'FAILED',
      agent: { id: agent.id, slug: 'summarizer', agentRuntime: { id: runtime.id, name: 'Node Runtime', organization: { id: organizationId } } },
    });
    const listed = await gql(`query($f: String!) { agentSessions(filter: $f) { totalElements content { id } } }`, { f: `agentId=='${agent.id}'` });
    expect(listed.agentSessions).toEqual({ totalElements: 1, content: [{ id: session.id }] });

    const updated = await gql(`mutation($id: ID!) { updateAgentSession(id: $id, input: { state: CANCELLED, changeSequence: 0 }) { state changeSequence } }`, {
      id: session.id,
    });
    expect(updated.updateAgentSession).toEqual({ state: 'CANCELLED', changeSequence: 1 });

    expect((await gql(`mutation($id: ID!) { deleteAgentSession(id: $id) }`, { id: session.id })).deleteAgentSession).toBe(true);
    expect((await gql(`query($id: ID!) { agentSession(id: $id) { id } }`, { id: session.id })).agentSession).toBeNull();
    expect((await gql(`mutation($id: ID!) { deleteAgent(id: $id) }`, { id: agent.id })).deleteAgent).toBe(true);
    expect((await gql(`mutation($id: ID!) { deleteAgentRuntime(id: $id) }`, { id: runtime.id })).deleteAgentRuntime).toBe(true);
    expect((await gql(`query($id: ID!) { agentRuntime(id: $id) { id } }`, { id: runtime.id })).agentRuntime).toBeNull();
  });

  it('refuses a state outside SessionState with 400 naming the field and the allowed values', async () => {
    const agent = await rest(member, 'POST', '/api/agents', 201, { organizationId, name: unique('Agent') });
    const refused = await rest(member, 'POST', '/api/agent-sessions', 400, { agentId: agent.id, state: 'PAUSED' });
    expect(refused).toMatchObject({ status: 400 });
    const detail = refused.details?.find((d: any) => d.field === 'state');
    expect(detail, JSON.stringify(refused)).toBeDefined();
    for (const value of SESSION_STATES) expect(detail.message).toContain(value);

    const session = await rest(member, 'POST', '/api/agent-sessions', 201, { agentId: agent.id });
    const before = await rest(member, 'GET', `/api/agent-sessions/${session.id}`, 200);
    const put = await rest(member, 'PUT', `/api/agent-sessions/${session.id}`, 400, { state: 'active' });
    expect(put.details?.[0]?.field).toBe('state');
    expect(await rest(member, 'GET', `/api/agent-sessions/${session.id}`, 200)).toEqual(before);

    const plain = await rest(member, 'POST', '/api/sessions', 400, { organizationId, name: 'x', state: 'PAUSED' });
    expect(plain.details?.[0]?.field).toBe('state');

    const literal = await server.graphql(`mutation($a: ID!) { createAgentSession(input: { agentId: $a, state: PAUSED }) { id } }`, { a: agent.id }, member.key);
    expect(literal.body?.errors?.[0]?.extensions, literal.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(literal.body.errors[0].message).toContain('SessionState');
    expect(literal.body.errors[0].message).toContain('state: PAUSED');
    for (const value of SESSION_STATES) expect(literal.body.errors[0].message).toContain(value);
    const variable = await server.graphql(
      `mutation($input: AgentSessionCreateRequest!) { createAgentSession(input: $input) { id } }`,
      { input: { agentId: agent.id, state: 'PAUSED' } },
      member.key,
    );
    expect(variable.body?.errors?.[0]?.extensions, variable.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(variable.body.errors[0].message).toContain('input.state');
    for (const value of SESSION_STATES) expect(variable.body.errors[0].message).toContain(value);
    const count = await rest(member, 'GET', `/api/agent-sessions?filter=${encodeURIComponent(`agentId=='${agent.id}'`)}`, 200);
    expect(count.totalElements).toBe(1);
  });

  it('reads organization -> agentRuntimes -> agents -> sessions with one SQL statement per level', async () => {
    const org = await createOrganization(server, { name: unique('AgentNest') }, member.key);
    const expected: any[] = [];
    for (const r of [0, 1]) {
      const runtime = await rest(member, 'POST', '/api/agent-runtimes', 201, { organizationId: org.id, name: `runtime-${r}` });
      const agents: any[] = [];
      for (const a of [0, 1]) {
        const agent = await rest(member, 'POST', '/api/agents', 201, { organizationId: org.id, name: `agent-${r}-${a}`, agentRuntimeId: runtime.id });
        const sessions: any[] = [];
        for (const s of [0, 1]) {
          const startedAt = new Date(Date.UTC(2026, 10, 25, 10, r * 10 + a * 2 + s)).toISOString();
          const session = await rest(member, 'POST', '/api/agent-sessions', 201, { agentId: agent.id, startedAt, state: SESSION_STATES[s] });
          sessions.push({ id: session.id, state: session.state, startedAt });
        }
        agents.push({ id: agent.id, name: agent.name, sessions: { content: sessions } });
      }
      expected.push({ id: runtime.id, name: runtime.name, agents: { content: agents } });
    }

    const levels = [
      `organization(id: $id) { id }`,
      `organization(id: $id) { id agentRuntimes(sort: "name:asc") { content { id name } } }`,
      `organization(id: $id) { id agentRuntimes(sort: "name:asc") { content { id name agents(sort: "name:asc") { content { id name } } } } }`,
      `organization(id: $id) { id agentRuntimes(sort: "name:asc") { content { id name agents(sort: "name:asc") { content { id name sessions(sort: "startedAt:asc") { content { id state startedAt } } } } } } }`,
    ];
    const counts: number[] = [];
    let deepest: any;
    for (const selection of levels) {
      const run = await resolvedLevels(selection, { id: org.id }, member.key);
      counts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.organization).toEqual({ id: org.id, agentRuntimes: { content: expected } });
    expect(counts[0]).toBeGreaterThan(0);
    expect(
      counts.slice(1).map((count, i) => count - counts[i]),
      `statements: ${counts}`,
    ).toEqual([1, 1, 1]);
  });

  it('answers 403 to a member of another organization reading an agent session', async () => {
    const agent = await rest(member, 'POST', '/api/agents', 201, { organizationId, name: unique('Private') });
    const session = await rest(member, 'POST', '/api/agent-sessions', 201, { agentId: agent.id });

    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    const answer = await rest(stranger, 'GET', `/api/agent-sessions/${session.id}`, 403);
    expect(answer).toMatchObject({ status: 403 });
    const listed = await rest(stranger, 'GET', `/api/agent-sessions?filter=${encodeURIComponent(`id=='${session.id}'`)}`, 200);
    expect(listed.totalElements).toBe(0);
    const viaGraphql = await server.graphql(`query($id: ID!) { agentSession(id: $id) { id } }`, { id: session.id }, stranger.key);
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    // Nor may they change it or start a session of that agent.
    await rest(stranger, 'PUT', `/api/agent-sessions/${session.id}`, 403, { state: 'CANCELLED' });
    await rest(stranger, 'POST', '/api/agent-sessions', 403, { agentId: agent.id });
    expect((await rest(member, 'GET', `/api/agent-sessions/${session.id}`, 200)).state).toBe('ACTIVE');
  });
});

describe('sessions, prompts, task templates and document statuses', () => {
  let member: Caller;
  let organizationId: string;

  beforeAll(async () => {
    member = await newCaller('Processing');
    organizationId = (await createOrganization(server, {}, member.key)).id;
  });

  it('keeps a session with its state, user, project and context', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const session = await rest(member, 'POST', '/api/sessions', 201, {
      organizationId,
      name: 'Morning triage',
      userId: member.id,
      projectId: project.id,
      context: { documents: ['a', 'b'] },
    });
    expect(session).toMatchObject({
      organizationId,
      name: 'Morning triage',
      state: 'ACTIVE',
      userId: member.id,
      projectId: project.id,
      context: { documents: ['a', 'b'] },
    });
    // A session stays in the project it was created in: an update's projectId is ignored.
    const done = await rest(member, 'PUT', `/api/sessions/${session.id}`, 200, { state: 'COMPLETED', projectId: null });
    expect(done).toMatchObject({ state: 'COMPLETED', projectId: project.id, changeSequence: 1 });
    const read = await server.graphqlData(`query($id: ID!) { session(id: $id) { state user { id } organization { id } } }`, { id: session.id }, member.key);
    expect(read.session).toEqual({ state: 'COMPLETED', user: { id: member.id }, organization: { id: organizationId } });
    await rest(member, 'DELETE', `/api/sessions/${session.id}`, 204);
    await rest(member, 'GET', `/api/sessions/${session.id}`, 404);
  });

  it('gives prompts slugs unique within the organization, with -1, -2 suffixes', async () => {
    const name = unique('Summarize Contract');
    const metadata = { context: 'task', category: 'legal', prompt: 'Summarize the contract in five bullet points.' };
    const first = await rest(member, 'POST', '/api/prompts', 201, { organizationId, name, metadata });
    const second = await rest(member, 'POST', '/api/prompts', 201, { organizationId, name });
    const third = await rest(member, 'POST', '/api/prompts', 201, { organizationId, name, slug: first.slug });
    expect(first).toMatchObject({ name, metadata, deleted: false });
    expect(second.slug).toBe(`${first.slug}-1`);
    expect(third.slug).toBe(`${first.slug}-2`);
    expect(second.metadata).toEqual({});

    // Renaming onto a taken slug suffixes the slug sent; re-saving under its own slug changes nothing.
    const renamed = await rest(member, 'PUT', `/api/prompts/${third.id}`, 200, { slug: second.slug });
    expect(renamed.slug).toBe(`${second.slug}-1`);
    const same = await rest(member, 'PUT', `/api/prompts/${first.id}`, 200, { slug: first.slug });
    expect(same).toMatchObject({ slug: first.slug, changeSequence: 0 });

    // Another organization has a slug space of its own.
    const other = await createOrganization(server, {}, member.key);
    const elsewhere = await rest(member, 'POST', '/api/prompts', 201, { organizationId: other.id, name });
    expect(elsewhere.slug).toBe(first.slug);

    // A deleted prompt keeps its slug (-2 is free again since the rename).
    await rest(member, 'DELETE', `/api/prompts/${second.id}`, 204);
    const fourth = await rest(member, 'POST', '/api/prompts', 201, { organizationId, name });
    expect(fourth.slug).toBe(`${first.slug}-2`);
    await rest(member, 'POST', '/api/prompts', 400, { organizationId, name, metadata: ['not', 'an', 'object'] });
  });

  it('gives task templates slugs unique within the project', async () => {
    const [p1, p2] = [await createProject(server, organizationId, {}, member.key), await createProject(server, organizationId, {}, member.key)];
    const first = await rest(member, 'POST', '/api/task-templates', 201, { projectId: p1.id, name: 'Invoice Check', metadata: { priority: 3 } });
    const second = await rest(member, 'POST', '/api/task-templates', 201, { projectId: p1.id, name: 'Invoice Check' });
    const elsewhere = await rest(member, 'POST', '/api/task-templates', 201, { projectId: p2.id, name: 'Invoice Check' });
    expect(first).toMatchObject({ slug: 'invoice-check', projectId: p1.id, metadata: { priority: 3 } });
    expect(second.slug).toBe('invoice-check-1');
    expect(elsewhere.slug).toBe('invoice-check');
    const templates = await server.graphqlData(
      `query($id: ID!) { project(id: $id) { taskTemplates(sort: "slug:asc") { content { slug } } } }`,
      { id: p1.id },
      member.key,
    );
    expect(templates.project.taskTemplates.content).toEqual([{ slug: 'invoice-check' }, { slug: 'invoice-check-1' }]);
  });

  it('serves Project.documentStatuses over GraphQL', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    const other = await createProject(server, organizationId, {}, member.key);
    const gql = (query: string, variables?: Record<string, unknown>) => server.graphqlData(query, variables, member.key);
    const created = (
      await gql(
        `mutation($p: ID!) { createDocumentStatus(input: { projectId: $p, status: "Unresolved", color: "#f00", icon: "alert", statusType: "UNRESOLVED" }) { id status slug color icon statusType projectId } }`,
        { p: project.id },
      )
    ).createDocumentStatus;
    expect(created).toMatchObject({ status: 'Unresolved', slug: 'unresolved', color: '#f00', icon: 'alert', statusType: 'UNRESOLVED', projectId: project.id });
    const resolved = await rest(member, 'POST', '/api/document-statuses', 201, { projectId: project.id, status: 'Resolved', statusType: 'RESOLVED' });
    const again = await rest(member, 'POST', '/api/document-statuses', 201, { projectId: project.id, status: 'Resolved' });
    expect(again.slug).toBe(`${resolved.slug}-1`);
    await rest(member, 'POST', '/api/document-statuses', 201, { projectId: other.id, status: 'Elsewhere' });

    const read = await gql(
      `query($id: ID!) { project(id: $id) { id documentStatuses(sort: "createdOn:asc") { totalElements content { id slug statusType project { id } } } } }`,
      { id: project.id },
    );
    expect(read.project.documentStatuses).toEqual({
      totalElements: 3,
      content: [
        { id: created.id, slug: 'unresolved', statusType: 'UNRESOLVED', project: { id: project.id } },
        { id: resolved.id, slug: 'resolved', statusType: 'RESOLVED', project: { id: project.id } },
        { id: again.id, slug: 'resolved-1', statusType: '', project: { id: project.id } },
      ],
    });
    const filtered = await gql(`query($id: ID!) { project(id: $id) { documentStatuses(filter: "statusType=='UNRESOLVED'") { content { id } } } }`, {
      id: project.id,
    });
    expect(filtered.project.documentStatuses.content).toEqual([{ id: created.id }]);

    await rest(member, 'DELETE', `/api/document-statuses/${again.id}`, 204);
    await rest(member, 'GET', `/api/document-statuses/${again.id}`, 404);
  });
});
