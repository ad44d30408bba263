import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { Upstream } from './support/upstream';

/**
 * A secret goes only where an owner sent it: creating a service bridge whose headers reference the
 * organization's secrets, or changing where such a bridge sends them (baseUrl, endpoints, headers, its
 * organization), is for the organization's owners and administrators. A member's attempt is 403 and
 * leaves the bridge as it was; the owner's host keeps receiving the calls, from the proxy and agent tools.
 */

type Row = Record<string, any>;

let server: TestServer;
/** The host the owner chose, and one the member controls. */
let ownersHost: Upstream;
let membersHost: Upstream;
let org: Row;
let project: Row;
let owner: Caller;
let member: Caller;
const secretValue = `sk-${randomUUID()}`;
const { newCaller, rest } = callersOf(() => server);

beforeAll(async () => {
  [ownersHost, membersHost] = await Promise.all([Upstream.start(), Upstream.start()]);
  server = await startServer({ egress: { privateHostAllowlist: ['127.0.0.1'] } });
  [owner, member] = await Promise.all([newCaller('RoutingOwner'), newCaller('RoutingMember')]);
  org = await createOrganization(server, { name: unique('RoutingOrg') }, owner.key);
  const team = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Staff'), organizationId: org.id });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: team.id, userId: member.id });
  project = await createProject(server, org.id, {}, owner.key);
  await rest(owner, 'POST', `/api/organizations/${org.id}/secrets`, 201, { name: 'CRM_TOKEN', value: secretValue });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([ownersHost?.close(), membersHost?.close()]);
});

const secretHeader = { name: 'Authorization', value: 'Bearer ${secrets.CRM_TOKEN}' };
const endpoints = (path = '/echo') => [{ name: 'call', method: 'GET', path }];

/** A bridge of the owner's to their host, its key the organization's secret. */
function ownersBridge(extra: Row = {}): Promise<Row> {
  return rest(owner, 'POST', '/api/service-bridges', 201, {
    organizationId: org.id,
    name: unique('CRM'),
    agentCallable: true,
    baseUrl: ownersHost.origin(),
    defaultHeaders: [secretHeader],
    endpoints: endpoints(),
    ...extra,
  });
}

async function bridgeNamed(name: string): Promise<Row[]> {
  const page = await rest(null, 'GET', `/api/service-bridges?filter=${encodeURIComponent(`name=="${name}"`)}`, 200);
  return page.content;
}

describe('creating a bridge that references secrets', () => {
  it('is 403 for a member, with the secret in a default header or an endpoint header, and nothing is stored', async () => {
    for (const headers of [
      { defaultHeaders: [secretHeader] },
      { endpoints: [{ ...endpoints()[0], headers: [{ name: 'X-Key', value: 'k=${secrets.CRM_TOKEN};' }] }] },
    ]) {
      const name = unique('Exfiltrate');
      const answer = await server.request('POST', '/api/service-bridges', {
        key: member.key,
        body: { organizationId: org.id, name, baseUrl: membersHost.origin(), endpoints: endpoints(), ...headers },
      });
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body.message).toBe(`only owners of organization ${org.id} may create a service bridge whose headers reference its secrets`);
      expect(await bridgeNamed(name)).toEqual([]);
    }
  });

  it('is 403 through GraphQL too, and nothing is stored', async () => {
    const name = unique('Exfiltrate');
    const answer = await server.graphql(
      'mutation($input: ServiceBridgeCreateRequest!) { createServiceBridge(input: $input) { id } }',
      { input: { organizationId: org.id, name, baseUrl: membersHost.origin(), defaultHeaders: [secretHeader], endpoints: endpoints() } },
      member.key,
    );
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await bridgeNamed(name)).toEqual([]);
  });

  it('is allowed to owners and administrators, and to members when no header references a secret', async () => {
    await ownersBridge();
    await rest(null, 'POST', '/api/service-bridges', 201, {
      organizationId: org.id,
      name: unique('ByAdmin'),
      baseUrl: ownersHost.origin(),
      defaultHeaders: [secretHeader],
    });
    const plain = await rest(member, 'POST', '/api/service-bridges', 201, {
      organizationId: org.id,
      name: unique('Plain'),
      baseUrl: membersHost.origin(),
      defaultHeaders: [{ name: 'X-Literal', value: 'secrets.CRM_TOKEN is not a placeholder' }],
    });
    expect(plain.baseUrl).toBe(membersHost.origin());
  });
});

describe('changing where a secret-referencing bridge sends its headers', () => {
  const changes: [string, () => Row][] = [
    ['baseUrl', () => ({ baseUrl: membersHost.origin() })],
    ['endpoints', () => ({ endpoints: [{ name: 'call', method: 'GET', path: '/echo/elsewhere' }] })],
    ['defaultHeaders', () => ({ defaultHeaders: [secretHeader, { name: 'X-Extra', value: '1' }] })],
  ];

  it.each(changes)('is 403 for a member changing its %s, and the bridge stays as it was', async (field, change) => {
    const bridge = await ownersBridge();
    const answer = await server.request('PUT', `/api/service-bridges/${bridge.id}`, { key: member.key, body: { ...bridge, ...change() } });
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.message).toBe(`only owners of organization ${org.id} may change the ${field} of a service bridge whose headers reference its secrets`);
    expect(await rest(owner, 'GET', `/api/service-bridges/${bridge.id}`, 200)).toEqual(bridge);
  });

  it('is 403 through GraphQL too', async () => {
    const bridge = await ownersBridge();
    const answer = await server.graphql(
      'mutation($id: ID!, $input: ServiceBridgeUpdateRequest!) { updateServiceBridge(id: $id, input: $input) { baseUrl } }',
      { id: bridge.id, input: { baseUrl: membersHost.origin() } },
      member.key,
    );
    expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await rest(owner, 'GET', `/api/service-bridges/${bridge.id}`, 200)).baseUrl).toBe(ownersHost.origin());
  });

  it("is 403 for a member who puts a secret into a plain bridge's headers", async () => {
    const plain = await rest(member, 'POST', '/api/service-bridges', 201, {
      organizationId: org.id,
      name: unique('Plain'),
      baseUrl: membersHost.origin(),
      endpoints: endpoints(),
    });
    const answer = await server.request('PUT', `/api/service-bridges/${plain.id}`, { key: member.key, body: { defaultHeaders: [secretHeader] } });
    expect(answer.status, answer.text).toBe(403);
    expect((await rest(member, 'GET', `/api/service-bridges/${plain.id}`, 200)).defaultHeaders).toEqual([]);
  });

  it('lets a member change what does not route the secret (name, description, agentCallable), and their own plain bridge entirely', async () => {
    const bridge = await ownersBridge();
    const renamed = await rest(member, 'PUT', `/api/service-bridges/${bridge.id}`, 200, {
      name: unique('Renamed'),
      description: 'by a member',
      agentCallable: false,
    });
    expect(renamed).toMatchObject({ description: 'by a member', agentCallable: false, baseUrl: ownersHost.origin() });
    const plain = await rest(member, 'POST', '/api/service-bridges', 201, {
      organizationId: org.id,
      name: unique('Plain'),
      baseUrl: ownersHost.origin(),
      endpoints: endpoints(),
    });
    expect(
      (await rest(member, 'PUT', `/api/service-bridges/${plain.id}`, 200, { baseUrl: membersHost.origin(), endpoints: endpoints('/echo/moved') })).baseUrl,
    ).toBe(membersHost.origin());
  });

  it('lets owners and administrators change all of it', async () => {
    const bridge = await ownersBridge();
    await rest(owner, 'PUT', `/api/service-bridges/${bridge.id}`, 200, { endpoints: endpoints('/echo/v2') });
    expect((await rest(null, 'PUT', `/api/service-bridges/${bridge.id}`, 200, { baseUrl: `${ownersHost.origin()}/v2` })).baseUrl).toBe(
      `${ownersHost.origin()}/v2`,
    );
  });
});

describe("after a member's refused attempts", () => {
  it("the proxy and the agent tool still send the secret to the owner's host alone", async () => {
    const bridge = await ownersBridge();
    await server.request('PUT', `/api/service-bridges/${bridge.id}`, { key: member.key, body: { baseUrl: membersHost.origin() } });
    await rest(owner, 'POST', '/api/project-resources', 201, { projectId: project.id, resourceType: 'SERVICE_BRIDGE', resourceId: bridge.id });
    const agent = await rest(member, 'POST', '/api/agents', 201, { organizationId: org.id, name: unique('Agent') });
    const session = await rest(member, 'POST', '/api/agent-sessions', 201, { agentId: agent.id, projectId: project.id });

    const membersBefore = membersHost.received.length;
    const received = await ownersHost.during(async () => {
      expect((await server.request('GET', `/api/service-bridges/${bridge.id}/proxy/call`, { key: member.key })).status).toBe(200);
      const tool = await rest(member, 'POST', `/api/agent-sessions/${session.id}/tools/call_service_bridge`, 200, { bridge: bridge.id, endpoint_name: 'call' });
      expect(tool.ok).toBe(true);
    });
    expect(received.map((r) => r.headers.authorization)).toEqual([`Bearer ${secretValue}`, `Bearer ${secretValue}`]);
    expect(membersHost.received.length).toBe(membersBefore);
  });
});
