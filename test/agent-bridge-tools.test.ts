import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { Upstream } from './support/upstream';

/**
 * The agent session tools list_service_bridges and call_service_bridge: only agentCallable bridges of
 * the organization bound to the session's project, called through the same proxy and egress guard
 * (127.0.0.1 allowlisted for the real upstream), secrets filled in server-side and never answered.
 */

type Row = Record<string, any>;

let server: TestServer;
let upstream: Upstream;
const { newCaller, rest } = callersOf(() => server);
let outsider: Caller;
let org: Row;
let session: Row;
let projectless: Row;
const bridges: Record<string, Row> = {};
const secretValue = `agent-sk-${randomUUID()}`;
const secretName = `AGENT_KEY_${Date.now()}`;

const tools = (sessionId: string, tool: string) => `/api/agent-sessions/${sessionId}/tools/${tool}`;

async function createBridge(organizationId: string, body: Row): Promise<Row> {
  return rest(null, 'POST', '/api/service-bridges', 201, { organizationId, name: unique('AgentBridge'), ...body });
}

async function bind(projectId: string, bridge: Row): Promise<void> {
  await rest(null, 'POST', '/api/project-resources', 201, { projectId, resourceType: 'SERVICE_BRIDGE', resourceId: bridge.id });
}

/**
 * A binding the API refuses (a bridge of another organization, a bridge id under another kind), written
 * straight to the table: the tools must still ignore such a row.
 */
async function bindInDatabase(projectId: string, bridge: Row, resourceType: string): Promise<void> {
  await server.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into project_resource (id, uuid, created_on, updated_on, change_sequence, project_id, resource_type, resource_id, resource_uri) values (?, ?, now(), now(), 0, ?, ?, ?, '')`,
      [randomUUID(), randomUUID(), projectId, resourceType, bridge.id],
    );
}

beforeAll(async () => {
  upstream = await Upstream.start();
  server = await startServer({ egress: { privateHostAllowlist: ['127.0.0.1'] } });
  outsider = await newCaller('ToolOutsider');
  org = await createOrganization(server);
  const otherOrg = await createOrganization(server);
  const [project, elsewhere] = [await createProject(server, org.id), await createProject(server, org.id)];
  await rest(null, 'POST', `/api/organizations/${org.id}/secrets`, 201, { name: secretName, value: secretValue });

  const endpoints = [
    { name: 'echo', method: 'POST', path: '/echo' },
    { name: 'teapot', path: '/status/418' },
    { name: 'big', path: `/json-bytes/${300 * 1024}` },
    { name: 'find', path: '/echo', requestSchema: { required: ['customerId'] } },
  ];
  bridges.callable = await createBridge(org.id, {
    agentCallable: true,
    baseUrl: upstream.origin(),
    defaultHeaders: [{ name: 'X-Key', value: `\${secrets.${secretName}}` }],
    endpoints,
  });
  bridges.private = await createBridge(org.id, { agentCallable: true, baseUrl: 'http://10.0.0.1', endpoints });
  bridges.notCallable = await createBridge(org.id, { agentCallable: false, baseUrl: upstream.origin(), endpoints });
  bridges.unbound = await createBridge(org.id, { agentCallable: true, baseUrl: upstream.origin(), endpoints });
  bridges.elsewhere = await createBridge(org.id, { agentCallable: true, baseUrl: upstream.origin(), endpoints });
  bridges.otherOrg = await createBridge(otherOrg.id, { agentCallable: true, baseUrl: upstream.origin(), endpoints });
  for (const name of ['callable', 'private', 'notCallable']) await bind(project.id, bridges[name]);
  await bindInDatabase(project.id, bridges.otherOrg, 'SERVICE_BRIDGE');
  await bindInDatabase(project.id, bridges.unbound, 'DATA_STORE');
  await bind(elsewhere.id, bridges.elsewhere);

  const agent = await rest(null, 'POST', '/api/agents', 201, { organizationId: org.id, name: unique('Agent') });
  session = await rest(null, 'POST', '/api/agent-sessions', 201, { agentId: agent.id, projectId: project.id });
  projectless = await rest(null, 'POST', '/api/agent-sessions', 201, { agentId: agent.id });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

function call(body: Row, sessionId = session.id, key?: string) {
  return server.request('POST', tools(sessionId, 'call_service_bridge'), { body, key });
}

describe('list_service_bridges', () => {
  it("lists only the agentCallable bridges of the organization bound to the session's project, with their endpoint names", async () => {
    const answer = await server.request('GET', tools(session.id, 'list_service_bridges'));
    expect(answer.status, answer.text).toBe(200);
    const expected = [bridges.callable, bridges.private].map((b) => ({ id: b.id, slug: b.slug, name: b.name, endpoints: ['echo', 'teapot', 'big', 'find'] }));
    expect(answer.body.bridges).toEqual(expect.arrayContaining(expected));
    expect(answer.body.bridges).toHaveLength(2);
  });

  it('is 403 for a session without a project and for a caller who may not read the session, 404 for no session', async () => {
    const noProject = await server.request('GET', tools(projectless.id, 'list_service_bridges'));
    expect(noProject.status, noProject.text).toBe(403);
    expect(noProject.body.message).toContain('has no project');
    expect((await server.request('GET', tools(session.id, 'list_service_bridges'), { key: outsider.key })).status).toBe(403);
    expect((await server.request('GET', tools(randomUUID(), 'list_service_bridges'))).status).toBe(404);
  });
});

describe('call_service_bridge', () => {
  it("answers the upstream's status, ok and parsed JSON body, with the secret filled in upstream and never answered", async () => {
    const [seen] = await upstream.during(async () => {
      const answer = await call({ bridge: bridges.callable.slug.toUpperCase(), endpoint_name: 'echo', query: { x: 1, tag: ['a', 'b'] }, body: { ask: 'hi' } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({
        status: 200,
        ok: true,
        truncated: false,
        body: { method: 'POST', url: '/echo?x=1&tag=a&tag=b', body: '{"ask":"hi"}' },
      });
      expect(answer.body.body.headers['x-key']).toBe('[REDACTED]');
      expect(answer.text).not.toContain(secretValue);
    });
    expect(seen.headers['x-key']).toBe(secretValue);
  });

  it('answers a failed upstream status as a value (ok false) and a text body as text; by id too', async () => {
    const answer = await call({ bridge: bridges.callable.id, endpoint_name: 'teapot' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ status: 418, ok: false, body: 'short and stout', truncated: false });
  });

  it('cuts a body over 256 KB and says so', async () => {
    const answer = await call({ bridge: bridges.callable.slug, endpoint_name: 'big' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ status: 200, ok: true, truncated: true });
    expect(answer.body.body).toBe(`"${'b'.repeat(256 * 1024 - 1)}`);
  });

  it('applies the proxy rules: [] without a call for a missing required field, 404 naming the endpoints, the egress guard', async () => {
    const calls = await upstream.during(async () => {
      expect((await call({ bridge: bridges.callable.slug, endpoint_name: 'find' })).body).toEqual({ status: 200, ok: true, body: [], truncated: false });
      const unknown = await call({ bridge: bridges.callable.slug, endpoint_name: 'nope' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toContain('(its endpoints: echo, teapot, big, find)');
      const refused = await call({ bridge: bridges.private.slug, endpoint_name: 'echo' });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.message).toBe('service bridge egress denied: 10.0.0.1 is a private address');
    });
    expect(calls).toEqual([]);
  });

  it('is 403 for a bridge that is not agentCallable, not bound to the project, of another organization or unknown, and for a session without a project', async () => {
    const calls = await upstream.during(async () => {
      for (const bridge of [bridges.notCallable.slug, bridges.unbound.id, bridges.elsewhere.slug, bridges.otherOrg.id, 'no-such-bridge']) {
        const answer = await call({ bridge, endpoint_name: 'echo' });
        expect(answer.status, `${bridge}: ${answer.text}`).toBe(403);
      }
      expect((await call({ bridge: bridges.callable.slug, endpoint_name: 'echo' }, projectless.id)).status).toBe(403);
      expect((await call({ bridge: bridges.callable.slug, endpoint_name: 'echo' }, session.id, outsider.key)).status).toBe(403);
    });
    expect(calls).toEqual([]);
  });

  it('requires bridge and endpoint_name', async () => {
    const answer = await call({ query: {} });
    expect(answer.status).toBe(400);
    expect(answer.body.details.map((d: Row) => d.field).sort()).toEqual(['bridge', 'endpoint_name']);
  });
});

describe('GraphQL', () => {
  it('serves listServiceBridges(id) as a query and callServiceBridge(id, bridge, endpoint_name, query, body) as a mutation', async () => {
    const listed = await server.graphqlData('query($id: ID!) { listServiceBridges(id: $id) { bridges { slug endpoints } } }', { id: session.id });
    expect(listed.listServiceBridges.bridges.map((b: Row) => b.slug).sort()).toEqual([bridges.callable.slug, bridges.private.slug].sort());
    const called = await server.graphqlData(
      'mutation($id: ID!, $bridge: String!, $query: JSON, $body: JSON) { callServiceBridge(id: $id, bridge: $bridge, endpoint_name: "echo", query: $query, body: $body) { status ok body truncated } }',
      { id: session.id, bridge: bridges.callable.slug, query: { q: 'x' }, body: ['list', 'body'] },
    );
    expect(called.callServiceBridge).toMatchObject({ status: 200, ok: true, truncated: false, body: { url: '/echo?q=x', body: '["list","body"]' } });
  });
});
