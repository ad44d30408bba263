import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Chats (docs/operations.md): a channel's owner always sees it; on a task channel platform
 * administrators see every user's channels; on a workspace channel each user, administrators
 * included, sees only their own; messages follow their channel. A channel of neither (a project's)
 * is seen as any row of its organization. The rule is the channels' `privacy` declaration, applied by
 * every read and write path alike.
 */

let server: TestServer;
const { newCaller, rest, resolvedLevels } = callersOf(() => server);
const q = encodeURIComponent;

type Who = 'owner' | 'member' | 'admin' | 'outsider';
let callers: Record<Who, Caller>;
let organizationId: string;
let projectId: string;
let taskId: string;
let workspaceId: string;

/** The channels of the project, each with one message of its owner. */
type Name = 'ownerTask' | 'ownerWorkspace' | 'ownerProject' | 'memberTask' | 'memberWorkspace' | 'adminTask' | 'adminWorkspace';
const channels = {} as Record<Name, { id: string; name: string; message: string }>;

/** Which channels each caller sees (and so which messages). */
const SEES: Record<Who, Name[]> = {
  owner: ['ownerTask', 'ownerWorkspace', 'ownerProject'],
  member: ['memberTask', 'memberWorkspace', 'ownerProject'],
  admin: ['ownerTask', 'memberTask', 'adminTask', 'adminWorkspace', 'ownerProject'],
  outsider: [],
};
const ALL = (): Name[] => Object.keys(channels) as Name[];
const sorted = (ids: string[]) => [...ids].sort();
const channelIds = (names: Name[]) => sorted(names.map((n) => channels[n].id));
const messageIds = (names: Name[]) => sorted(names.map((n) => channels[n].message));
const WHO: Who[] = ['owner', 'member', 'admin', 'outsider'];

beforeAll(async () => {
  server = await startServer();
  const [owner, member, outsider] = await Promise.all([newCaller('ChatOwner'), newCaller('ChatMember'), newCaller('ChatOutsider')]);
  const adminUser = await createUser(server, { firstName: 'ChatAdmin', security: { roles: ['PLATFORM_ADMIN'] } });
  const adminToken = await rest(null, 'POST', '/api/access-tokens', 201, { name: unique('key'), userId: adminUser.id });
  const admin = { id: adminUser.id, key: adminToken.token };
  callers = { owner, member, admin, outsider };

  organizationId = (await createOrganization(server, { name: unique('ChatOrg') }, owner.key)).id;
  await createOrganization(server, { name: unique('ChatOther') }, outsider.key);
  const team = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Chatters'), organizationId });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: team.id, userId: member.id });

  projectId = (await createProject(server, organizationId, { name: unique('ChatProject') }, owner.key)).id;
  taskId = (await createTask(server, projectId, { title: unique('ChatTask') }, owner.key)).id;
  workspaceId = (await rest(owner, 'POST', '/api/workspaces', 201, { projectId, name: unique('ChatSpace') })).id;

  const make = async (name: Name, who: Who, about: Record<string, string>) => {
    const channel = await rest(callers[who], 'POST', '/api/channels', 201, { projectId, name: unique(name), ...about });
    expect(channel.ownerId).toBe(callers[who].id);
    const message = await rest(callers[who], 'POST', '/api/messages', 201, { channelId: channel.id, role: 'USER', content: `${name} says hi` });
    channels[name] = { id: channel.id, name: channel.name, message: message.id };
  };
  await make('ownerTask', 'owner', { taskId });
  await make('ownerWorkspace', 'owner', { workspaceId });
  await make('ownerProject', 'owner', {});
  await make('memberTask', 'member', { taskId });
  await make('memberWorkspace', 'member', { workspaceId });
  await make('adminTask', 'admin', { taskId });
  await make('adminWorkspace', 'admin', { workspaceId });
});
afterAll(() => server.close());

describe('the owner of a channel', () => {
  it('is the user who creates it: a body naming another owner is not obeyed, on create or update', async () => {
    const created = await rest(callers.member, 'POST', '/api/channels', 201, { projectId, name: unique('mine'), taskId, ownerId: callers.owner.id });
    expect(created.ownerId).toBe(callers.member.id);
    const updated = await rest(callers.member, 'PUT', `/api/channels/${created.id}`, 200, { ownerId: callers.owner.id, name: 'renamed' });
    expect(updated).toMatchObject({ ownerId: callers.member.id, name: 'renamed' });
    const gql = await server.graphql(
      `mutation($p: ID!, $t: ID!) { createChannel(input: { projectId: $p, name: "g", taskId: $t }) { id ownerId owner { id } } }`,
      { p: projectId, t: taskId },
      callers.member.key,
    );
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data.createChannel).toMatchObject({ ownerId: callers.member.id, owner: { id: callers.member.id } });
    await rest(callers.member, 'DELETE', `/api/channels/${created.id}`, 204);
    await rest(callers.member, 'DELETE', `/api/channels/${gql.body.data.createChannel.id}`, 204);
  });
});

describe('REST', () => {
  for (const who of WHO) {
    it(`lists to the ${who} only the channels and messages they may see`, async () => {
      const listed = await rest(callers[who], 'GET', `/api/channels?pageSize=100&filter=${q(`projectId==${projectId}`)}`, 200);
      expect(sorted(listed.content.map((c: { id: string }) => c.id))).toEqual(channelIds(SEES[who]));
      expect(listed.totalElements).toBe(SEES[who].length);
      // A filter through the relation to the channel: only channels the caller sees match.
      const messages = await rest(callers[who], 'GET', `/api/messages?pageSize=100&filter=${q(`channel.projectId==${projectId}`)}&sort=channel.name:asc`, 200);
      expect(sorted(messages.content.map((m: { id: string }) => m.id))).toEqual(messageIds(SEES[who]));
      expect(messages.totalElements).toBe(SEES[who].length);
    });

    it(`gets to the ${who} a channel, its sequence and its message when they may see it, 403 otherwise`, async () => {
      for (const name of ALL()) {
        const status = SEES[who].includes(name) ? 200 : 403;
        const { id, message } = channels[name];
        expect((await server.request('GET', `/api/channels/${id}`, { key: callers[who].key })).status, `${who} GET ${name}`).toBe(status);
        expect((await server.request('GET', `/api/channels/${id}/sequence`, { key: callers[who].key })).status, `${who} sequence ${name}`).toBe(status);
        expect((await server.request('GET', `/api/messages/${message}`, { key: callers[who].key })).status, `${who} GET message of ${name}`).toBe(status);
        expect((await server.request('GET', `/api/messages/${message}/sequence`, { key: callers[who].key })).status).toBe(status);
      }
    });
  }

  it('filters channels through their task and workspace as the caller sees them', async () => {
    const byTask = await rest(callers.admin, 'GET', `/api/channels?pageSize=100&filter=${q(`taskId==${taskId}`)}`, 200);
    expect(sorted(byTask.content.map((c: { id: string }) => c.id))).toEqual(channelIds(['ownerTask', 'memberTask', 'adminTask']));
    const byWorkspace = await rest(callers.admin, 'GET', `/api/channels?pageSize=100&filter=${q(`workspace.id==${workspaceId}`)}`, 200);
    expect(sorted(byWorkspace.content.map((c: { id: string }) => c.id))).toEqual(channelIds(['adminWorkspace']));
    const named = await rest(callers.member, 'GET', `/api/messages?filter=${q(`channel.name==${channels.ownerTask.name}`)}`, 200);
    expect(named.totalElements).toBe(0);
    const own = await rest(callers.owner, 'GET', `/api/messages?filter=${q(`channel.name==${channels.ownerTask.name}`)}`, 200);
    expect(own.content.map((m: { id: string }) => m.id)).toEqual([channels.ownerTask.message]);
  });
});

describe('GraphQL', () => {
  const gqlList = async (who: Who, list: 'channels' | 'messages', filter: string) => {
    const data = await server.graphqlData(
      `query($f: String) { ${list}(filter: $f, pageSize: 100) { totalElements content { id } } }`,
      { f: filter },
      callers[who].key,
    );
    return { ids: sorted(data[list].content.map((r: { id: string }) => r.id)), total: data[list].totalElements };
  };

  for (const who of WHO) {
    it(`lists and gets to the ${who} only the channels and messages they may see`, async () => {
      expect(await gqlList(who, 'channels', `projectId==${projectId}`)).toEqual({ ids: channelIds(SEES[who]), total: SEES[who].length });
      expect(await gqlList(who, 'messages', `channel.projectId==${projectId}`)).toEqual({ ids: messageIds(SEES[who]), total: SEES[who].length });
      for (const name of ALL()) {
        const answer = await server.graphql(`query($c: ID!) { channel(id: $c) { id } }`, { c: channels[name].id }, callers[who].key);
        const message = await server.graphql(
          `query($m: ID!) { message(id: $m) { id channel { id ownerId } } }`,
          { m: channels[name].message },
          callers[who].key,
        );
        if (SEES[who].includes(name)) {
          expect(answer.body.data?.channel, answer.text).toEqual({ id: channels[name].id });
          expect(message.body.data?.message?.channel?.id, message.text).toBe(channels[name].id);
        } else {
          expect(answer.body.errors?.[0]?.extensions?.code, answer.text).toBe('FORBIDDEN');
          expect(message.body.errors?.[0]?.extensions?.code, message.text).toBe('FORBIDDEN');
        }
      }
    });
  }

  const NESTED = `query($t: ID!, $w: ID!, $p: ID!) {
    task(id: $t) { channels(pageSize: 100) { totalElements content { id messages { totalElements content { id } } } } }
    workspace(id: $w) { channels(pageSize: 100) { totalElements content { id messages { totalElements content { id } } } } }
    project(id: $p) { channels(pageSize: 100) { totalElements content { id messages { totalElements content { id } } } } }
  }`;

  it('nests task -> channels -> messages, workspace -> channels and project -> channels as each caller sees them', async () => {
    const expected: Record<Exclude<Who, 'outsider'>, { task: Name[]; workspace: Name[] }> = {
      owner: { task: ['ownerTask'], workspace: ['ownerWorkspace'] },
      member: { task: ['memberTask'], workspace: ['memberWorkspace'] },
      admin: { task: ['ownerTask', 'memberTask', 'adminTask'], workspace: ['adminWorkspace'] },
    };
    for (const who of ['owner', 'member', 'admin'] as const) {
      const data = await server.graphqlData(NESTED, { t: taskId, w: workspaceId, p: projectId }, callers[who].key);
      for (const [parent, names] of [
        ['task', expected[who].task],
        ['workspace', expected[who].workspace],
        ['project', SEES[who]],
      ] as const) {
        const page = data[parent].channels;
        expect(sorted(page.content.map((c: { id: string }) => c.id)), `${who} ${parent}.channels`).toEqual(channelIds([...names]));
        expect(page.totalElements).toBe(names.length);
        const messages = page.content.flatMap((c: { messages: { content: { id: string }[] } }) => c.messages.content.map((m) => m.id));
        expect(sorted(messages), `${who} ${parent}.channels.messages`).toEqual(messageIds([...names]));
      }
    }
  });

  it("never shows another user's channel under a channel the caller sees", async () => {
    // Channel.messages of the owner's channel, read by the administrator (task) or refused (workspace).
    const data = await server.graphqlData(
      `query($c: ID!) { channel(id: $c) { messages { totalElements content { id channelId } } } }`,
      { c: channels.ownerTask.id },
      callers.admin.key,
    );
    expect(data.channel.messages.content.map((m: { id: string }) => m.id)).toEqual([channels.ownerTask.message]);
    const refused = await server.graphql(
      `query($c: ID!) { channel(id: $c) { messages { content { id } } } }`,
      { c: channels.ownerWorkspace.id },
      callers.admin.key,
    );
    expect(refused.body.errors?.[0]?.extensions?.code, refused.text).toBe('FORBIDDEN');
    expect(refused.text).not.toContain(channels.ownerWorkspace.message);
  });
});

describe('writes', () => {
  it("refuses a member's update and delete of the owner's task and workspace channels and their messages (403), changing nothing", async () => {
    for (const name of ['ownerTask', 'ownerWorkspace'] as const) {
      const { id, message } = channels[name];
      const before = await rest(callers.owner, 'GET', `/api/channels/${id}`, 200);
      await rest(callers.member, 'PUT', `/api/channels/${id}`, 403, { name: 'taken' });
      await rest(callers.member, 'DELETE', `/api/channels/${id}`, 403);
      await rest(callers.member, 'PUT', `/api/messages/${message}`, 403, { content: 'taken' });
      await rest(callers.member, 'DELETE', `/api/messages/${message}`, 403);
      await rest(callers.member, 'POST', '/api/messages', 403, { channelId: id, role: 'USER', content: 'let me in' });
      const update = await server.graphql(`mutation($id: ID!) { updateChannel(id: $id, input: { name: "taken" }) { id } }`, { id }, callers.member.key);
      expect(update.body.errors?.[0]?.extensions?.code, update.text).toBe('FORBIDDEN');
      const remove = await server.graphql(`mutation($id: ID!) { deleteMessage(id: $id) }`, { id: message }, callers.member.key);
      expect(remove.body.errors?.[0]?.extensions?.code, remove.text).toBe('FORBIDDEN');
      expect(await rest(callers.owner, 'GET', `/api/channels/${id}`, 200)).toEqual(before);
      expect((await rest(callers.owner, 'GET', `/api/messages/${message}`, 200)).content).toBe(`${name} says hi`);
    }
  });

  it("refuses an administrator's writes to another user's workspace channel, and lets them write a task channel they see", async () => {
    const { id, message } = channels.ownerWorkspace;
    await rest(callers.admin, 'PUT', `/api/channels/${id}`, 403, { name: 'taken' });
    await rest(callers.admin, 'DELETE', `/api/channels/${id}`, 403);
    await rest(callers.admin, 'PUT', `/api/messages/${message}`, 403, { content: 'taken' });
    await rest(callers.admin, 'DELETE', `/api/messages/${message}`, 403);
    await rest(callers.admin, 'POST', '/api/messages', 403, { channelId: id, role: 'SYSTEM', content: 'let me in' });
    expect((await rest(callers.owner, 'GET', `/api/channels/${id}`, 200)).changeSequence).toBe(0);

    const note = await rest(callers.admin, 'POST', '/api/messages', 201, { channelId: channels.memberTask.id, role: 'SYSTEM', content: 'reviewed' });
    expect((await rest(callers.member, 'GET', `/api/messages/${note.id}`, 200)).content).toBe('reviewed');
    await rest(callers.admin, 'DELETE', `/api/messages/${note.id}`, 204);
  });

  it('refuses a write that moves a channel out of the writer’s sight, and lets its owner make it private', async () => {
    const shared = await rest(callers.owner, 'POST', '/api/channels', 201, { projectId, name: unique('shared') });
    expect((await rest(callers.member, 'GET', `/api/channels/${shared.id}`, 200)).id).toBe(shared.id);
    await rest(callers.member, 'PUT', `/api/channels/${shared.id}`, 403, { workspaceId });
    expect((await rest(callers.owner, 'GET', `/api/channels/${shared.id}`, 200)).workspaceId).toBeNull();
    await rest(callers.owner, 'PUT', `/api/channels/${shared.id}`, 200, { workspaceId });
    await rest(callers.member, 'GET', `/api/channels/${shared.id}`, 403);
    await rest(callers.owner, 'DELETE', `/api/channels/${shared.id}`, 204);
  });

  it('answers 404 to everyone for a channel that does not exist', async () => {
    for (const who of WHO) await rest(callers[who], 'PUT', '/api/channels/00000000-0000-4000-8000-000000000000', 404, { name: 'x' });
  });
});

describe('statements', () => {
  it('reads a channel or a message by id in one statement, for a member and for an administrator', async () => {
    for (const [who, path] of [
      ['member', `/api/channels/${channels.memberWorkspace.id}`],
      ['member', `/api/messages/${channels.memberWorkspace.message}`],
      ['member', `/api/channels/${channels.ownerWorkspace.id}`],
      ['admin', `/api/channels/${channels.ownerTask.id}`],
      ['admin', `/api/messages/${channels.ownerWorkspace.message}`],
    ] as const) {
      await server.request('GET', path, { key: callers[who].key });
      const recorded = await server.fewestQueries(() => server.request('GET', path, { key: callers[who].key }));
      expect(recorded, `${who} ${path}`).toHaveLength(1);
    }
  });

  it('reads task -> channels -> messages with one statement per level, for a member and for an administrator', async () => {
    const levels = [
      `task(id: $id) { id }`,
      `task(id: $id) { id channels { content { id } } }`,
      `task(id: $id) { id channels { content { id messages { content { id } } } } }`,
    ];
    for (const who of ['member', 'admin'] as const) {
      const counts: number[] = [];
      for (const selection of levels) counts.push((await resolvedLevels(selection, { id: taskId }, callers[who].key)).statements);
      expect(counts[1] - counts[0], `${who}: ${counts}`).toBe(1);
      expect(counts[2] - counts[1], `${who}: ${counts}`).toBe(1);
    }
  });
});
