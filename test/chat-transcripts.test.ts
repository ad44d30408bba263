import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { createUser } from './support/resource-bodies';
import { startServer, unique, type TestServer } from './support/server';

/**
 * GET /api/channels/{id}/transcript (docs/ai-gateway.md): the most recent
 * 50 messages, oldest first, `truncated` when older ones exist, `?format=text` as `ROLE: content`
 * lines, and the chat visibility rules: whoever may not see the channel gets what GET /api/channels/{id}
 * gives them.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
type Who = 'owner' | 'member' | 'admin' | 'outsider';
let callers: Record<Who, Caller>;
let projectId: string;
let taskId: string;
let workspaceId: string;

const ROLES = ['USER', 'ASSISTANT', 'SYSTEM', 'TOOL'];

/** A channel of the project with `count` messages, alternately written by its owner and by no user; created_on one second apart. */
async function channelWith(count: number, who: Who = 'owner', about: Record<string, string> = {}) {
  const channel = await rest(callers[who], 'POST', '/api/channels', 201, { projectId, name: unique('chat'), ...about });
  const messages: Record<string, any>[] = [];
  for (let n = 0; n < count; n++) {
    const body = { channelId: channel.id, role: ROLES[n % ROLES.length], content: `message ${n}`, userId: n % 2 === 0 ? callers[who].id : null };
    messages.push(await rest(callers[who], 'POST', '/api/messages', 201, body));
  }
  // One second apart, in the order written: the order of the transcript is certain.
  await server.orm.em.getConnection().execute(
    `update message m set created_on = timestamptz '2026-01-01T00:00:00Z' + (o.n * interval '1 second')
       from unnest(?::uuid[]) with ordinality as o(id, n) where m.id = o.id`,
    [`{${messages.map((m) => m.id).join(',')}}`],
  );
  const stored = await rest(callers[who], 'GET', `/api/messages?pageSize=100&filter=${encodeURIComponent(`channelId==${channel.id}`)}&sort=createdOn:asc`, 200);
  return { channel, messages: stored.content as Record<string, any>[] };
}

/** What the transcript lists of a stored message. */
const entry = (m: Record<string, any>) => ({ id: m.id, role: m.role, content: m.content, userId: m.userId, createdOn: m.createdOn });

beforeAll(async () => {
  server = await startServer();
  const [owner, member, outsider] = await Promise.all([newCaller('TranscriptOwner'), newCaller('TranscriptMember'), newCaller('TranscriptOutsider')]);
  const adminUser = await createUser(server, { firstName: 'TranscriptAdmin', security: { roles: ['PLATFORM_ADMIN'] } });
  const admin = { id: adminUser.id, key: (await rest(null, 'POST', '/api/access-tokens', 201, { name: unique('key'), userId: adminUser.id })).token };
  callers = { owner, member, admin, outsider };
  const organizationId = (await createOrganization(server, { name: unique('TranscriptOrg') }, owner.key)).id;
  await createOrganization(server, { name: unique('TranscriptElsewhere') }, outsider.key);
  const team = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Talkers'), organizationId });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: team.id, userId: member.id });
  projectId = (await createProject(server, organizationId, { name: unique('TranscriptProject') }, owner.key)).id;
  taskId = (await createTask(server, projectId, { title: unique('TranscriptTask') }, owner.key)).id;
  workspaceId = (await rest(owner, 'POST', '/api/workspaces', 201, { projectId, name: unique('TranscriptSpace') })).id;
});
afterAll(() => server.close());

describe('GET /api/channels/{id}/transcript', () => {
  it('answers the most recent 50 messages, oldest first, truncated when older ones exist', async () => {
    const { channel, messages } = await channelWith(53);
    const transcript = await rest(callers.owner, 'GET', `/api/channels/${channel.id}/transcript`, 200);
    expect(transcript).toEqual({ channelId: channel.id, messages: messages.slice(3).map(entry), truncated: true });
    expect(transcript.messages[0]).toEqual({ id: messages[3].id, role: 'TOOL', content: 'message 3', userId: null, createdOn: '2026-01-01T00:00:04.000Z' });
    expect(transcript.messages[1]).toMatchObject({ role: 'USER', content: 'message 4', userId: callers.owner.id, createdOn: '2026-01-01T00:00:05.000Z' });
    expect(transcript.messages.at(-1)).toMatchObject({ content: 'message 52', createdOn: '2026-01-01T00:00:53.000Z' });
  });

  it('is not truncated with exactly 50 messages, nor with none', async () => {
    const full = await channelWith(50);
    expect(await rest(callers.owner, 'GET', `/api/channels/${full.channel.id}/transcript`, 200)).toEqual({
      channelId: full.channel.id,
      messages: full.messages.map(entry),
      truncated: false,
    });
    const empty = await channelWith(0);
    expect(await rest(callers.owner, 'GET', `/api/channels/${empty.channel.id}/transcript`, 200)).toEqual({
      channelId: empty.channel.id,
      messages: [],
      truncated: false,
    });
    const text = await server.request('GET', `/api/channels/${empty.channel.id}/transcript?format=text`, { key: callers.owner.key });
    expect(text.status).toBe(200);
    expect(text.text).toBe('');
  });

  it('answers text/plain for ?format=text: one ROLE: content line per message', async () => {
    const { channel, messages } = await channelWith(3);
    const extra = await rest(callers.owner, 'POST', '/api/messages', 201, { channelId: channel.id, role: 'ASSISTANT', content: 'two\nlines' });
    expect(extra.id).toBeTruthy();
    const answer = await server.request('GET', `/api/channels/${channel.id}/transcript?format=text`, { key: callers.owner.key });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(answer.text).toBe(`${messages.map((m) => `${m.role}: ${m.content}\n`).join('')}ASSISTANT: two\\nlines\n`);
    expect((await server.request('GET', `/api/channels/${channel.id}/transcript?format=json`, { key: callers.owner.key })).body.messages).toHaveLength(4);
    const other = await server.request('GET', `/api/channels/${channel.id}/transcript?format=xml`, { key: callers.owner.key });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ message: 'format: must be json or text', details: [{ field: 'format', message: 'must be json or text' }] });
  });

  it('follows the chat visibility rules: whoever may not see the channel gets what GET /api/channels/{id} gives them', async () => {
    const channels = {
      project: (await channelWith(2, 'owner')).channel,
      ownerTask: (await channelWith(2, 'owner', { taskId })).channel,
      memberTask: (await channelWith(2, 'member', { taskId })).channel,
      memberWorkspace: (await channelWith(2, 'member', { workspaceId })).channel,
    };
    const sees: Record<Who, (keyof typeof channels)[]> = {
      owner: ['project', 'ownerTask'],
      member: ['project', 'memberTask', 'memberWorkspace'],
      admin: ['project', 'ownerTask', 'memberTask'],
      outsider: [],
    };
    for (const who of Object.keys(callers) as Who[]) {
      for (const [name, channel] of Object.entries(channels) as [keyof typeof channels, { id: string }][]) {
        const get = await server.request('GET', `/api/channels/${channel.id}`, { key: callers[who].key });
        for (const format of ['', '?format=text']) {
          const transcript = await server.request('GET', `/api/channels/${channel.id}/transcript${format}`, { key: callers[who].key });
          expect(transcript.status, `${who} ${name}`).toBe(get.status);
          if (sees[who].includes(name)) {
            expect(get.status).toBe(200);
            if (!format) expect(transcript.body.messages).toHaveLength(2);
          } else {
            expect(get.status, `${who} ${name}`).toBe(403);
            expect(transcript.body).toEqual(get.body);
          }
        }
      }
    }
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const get = await server.request('GET', `/api/channels/${id}`, { key: callers.owner.key });
      const transcript = await server.request('GET', `/api/channels/${id}/transcript`, { key: callers.owner.key });
      expect([transcript.status, transcript.body]).toEqual([get.status, get.body]);
    }
  });

  it('is in the OpenAPI document, with its format parameter and its JSON and text/plain answers', async () => {
    const doc = (await server.request('GET', '/v3/api-docs')).body;
    const operation = doc.paths['/api/channels/{id}/transcript'].get;
    expect(operation.operationId).toBe('getChannelTranscript');
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'format']);
    expect(operation.responses['200'].content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/ChannelTranscript' } },
      'text/plain': { schema: { type: 'string' } },
    });
    expect(doc.components.schemas.ChannelTranscript.required).toEqual(['channelId', 'messages', 'truncated']);
    expect(doc.components.schemas.ChannelTranscriptMessage.properties.role).toEqual({
      allOf: [{ $ref: '#/components/schemas/ChatMessageRole' }],
      description: expect.any(String),
    });
  });

  it('is the GraphQL query getChannelTranscript(id) too', async () => {
    const { channel } = await channelWith(4);
    const query = 'query($id: ID!) { getChannelTranscript(id: $id) { channelId truncated messages { id role content userId createdOn } } }';
    const data = await server.graphqlData(query, { id: channel.id }, callers.owner.key);
    expect(data.getChannelTranscript).toEqual(await rest(callers.owner, 'GET', `/api/channels/${channel.id}/transcript`, 200));
    const refused = await server.graphql(query, { id: channel.id }, callers.outsider.key);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });
});
