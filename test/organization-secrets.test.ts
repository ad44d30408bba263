import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSecretsKey, SECRETS_KEY_FILE } from '../src/config/secrets-key';
import { SecretBox } from '../src/modules/access/secret-box';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, TEST_SECRETS_KEY, unique, type TestServer } from './support/server';

/**
 * Organization secrets at /api/organizations/{orgId}/secrets: owners alone list, read and write them,
 * `value` is write-only (sealed with the secrets key, never answered), and a secret lives only under
 * its own organization's path.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let owner: Caller;
let member: Caller;
let outsider: Caller;
let organizationId: string;
let otherOrganizationId: string;

const secretsOf = (org: string) => `/api/organizations/${org}/secrets`;

beforeAll(async () => {
  server = await startServer();
  [owner, member, outsider] = await Promise.all([newCaller('SecretOwner'), newCaller('SecretMember'), newCaller('SecretOutsider')]);
  organizationId = (await createOrganization(server, { name: unique('SecretOrg') }, owner.key)).id;
  otherOrganizationId = (await createOrganization(server, { name: unique('OtherSecretOrg') }, outsider.key)).id;
  const team = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Readers'), organizationId });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: team.id, userId: member.id });
});
afterAll(() => server.close());

/** What the database holds for a secret: its sealed value. */
async function sealedValueOf(id: string): Promise<string> {
  const [row] = await server.orm.em.getConnection().execute<{ sealed_value: string }[]>('select sealed_value from organization_secret where id = ?', [id]);
  return row.sealed_value;
}

function expectNoValue(answer: unknown, plain: string): void {
  expect(answer).not.toHaveProperty('value');
  expect(answer).not.toHaveProperty('sealedValue');
  expect(JSON.stringify(answer)).not.toContain(plain);
}

describe('REST', () => {
  it('creates, reads, lists, updates and deletes a secret without ever answering its value', async () => {
    const plain = `sk-${randomUUID()}`;
    const name = `API_KEY_${Date.now()}`;
    const created = await server.request('POST', secretsOf(organizationId), { body: { name, description: 'Upstream key', value: plain }, key: owner.key });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`${secretsOf(organizationId)}/${created.body.id}`);
    expect(created.body).toMatchObject({ name, description: 'Upstream key', organizationId, changeSequence: 0 });
    expectNoValue(created.body, plain);

    const sealed = await sealedValueOf(created.body.id);
    expect(sealed).not.toContain(plain);
    expect(new SecretBox(TEST_SECRETS_KEY).open(sealed)).toBe(plain);

    const read = await rest(owner, 'GET', `${secretsOf(organizationId)}/${created.body.id}`, 200);
    expect(read).toEqual(created.body);
    const listed = await rest(owner, 'GET', secretsOf(organizationId), 200);
    expect(listed.content.map((s: { id: string }) => s.id)).toContain(created.body.id);
    for (const row of listed.content) expectNoValue(row, plain);

    const next = `sk-${randomUUID()}`;
    const updated = await rest(owner, 'PUT', `${secretsOf(organizationId)}/${created.body.id}`, 200, { value: next });
    expect(updated.changeSequence).toBe(1);
    expectNoValue(updated, next);
    expect(new SecretBox(TEST_SECRETS_KEY).open(await sealedValueOf(created.body.id))).toBe(next);
    expect(await rest(owner, 'GET', `${secretsOf(organizationId)}/${created.body.id}/sequence`, 200)).toBe(1);

    await rest(owner, 'DELETE', `${secretsOf(organizationId)}/${created.body.id}`, 204);
    await rest(owner, 'GET', `${secretsOf(organizationId)}/${created.body.id}`, 404);
    const [{ count }] = await server.orm.em
      .getConnection()
      .execute<{ count: string }[]>('select count(*) from organization_secret where id = ?', [created.body.id]);
    expect(Number(count)).toBe(0);
  });

  it('refuses a bad name, a missing value, a duplicate name and another organization in the body, naming the field', async () => {
    const lower = await rest(owner, 'POST', secretsOf(organizationId), 400, { name: 'lower_case', value: 'x' });
    expect(lower.details.map((d: { field: string }) => d.field)).toContain('name');
    const missing = await rest(owner, 'POST', secretsOf(organizationId), 400, { name: 'NO_VALUE' });
    expect(missing.details.map((d: { field: string }) => d.field)).toContain('value');
    const name = `DUP_${Date.now()}`;
    await rest(owner, 'POST', secretsOf(organizationId), 201, { name, value: 'a' });
    await rest(owner, 'POST', secretsOf(organizationId), 409, { name, value: 'b' });
    // The same name in another organization is another secret.
    await rest(outsider, 'POST', secretsOf(otherOrganizationId), 201, { name, value: 'c' });
    const elsewhere = await rest(owner, 'POST', secretsOf(organizationId), 400, { name: 'ELSEWHERE', value: 'x', organizationId: otherOrganizationId });
    expect(elsewhere.details[0].field).toBe('organizationId');
    const same = await rest(owner, 'POST', secretsOf(organizationId), 201, { name: `SAME_${Date.now()}`, value: 'x', organizationId });
    expect(same.organizationId).toBe(organizationId);
  });

  it('never filters, sorts or searches by the value', async () => {
    const plain = `findme${Date.now()}`;
    await rest(owner, 'POST', secretsOf(organizationId), 201, { name: `SEARCH_${Date.now()}`, value: plain });
    const filter = await rest(owner, 'GET', `${secretsOf(organizationId)}?filter=${encodeURIComponent(`value=='${plain}'`)}`, 400);
    expect(filter.message).toContain('value');
    await rest(owner, 'GET', `${secretsOf(organizationId)}?sort=value:asc`, 400);
    expect((await rest(owner, 'GET', `${secretsOf(organizationId)}?query=${plain}`, 200)).totalElements).toBe(0);
  });

  it('is for owners alone: a member gets 403 on list, read and every write, and nothing changes', async () => {
    const secret = await rest(owner, 'POST', secretsOf(organizationId), 201, { name: `OWNED_${Date.now()}`, value: 'v' });
    const item = `${secretsOf(organizationId)}/${secret.id}`;
    await rest(member, 'GET', secretsOf(organizationId), 403);
    await rest(member, 'GET', item, 403);
    await rest(member, 'GET', `${item}/sequence`, 403);
    await rest(member, 'POST', secretsOf(organizationId), 403, { name: 'BY_MEMBER', value: 'v' });
    await rest(member, 'PUT', item, 403, { description: 'changed' });
    await rest(member, 'DELETE', item, 403);
    expect(await rest(owner, 'GET', item, 200)).toEqual(secret);
    expect((await rest(owner, 'GET', `${secretsOf(organizationId)}?filter=name==BY_MEMBER`, 200)).totalElements).toBe(0);
  });

  it("is another tenant's business: an outsider gets 403 on every path of the organization, the administrator reaches them", async () => {
    const secret = await rest(owner, 'POST', secretsOf(organizationId), 201, { name: `TENANT_${Date.now()}`, value: 'v' });
    const item = `${secretsOf(organizationId)}/${secret.id}`;
    await rest(outsider, 'GET', secretsOf(organizationId), 403);
    await rest(outsider, 'GET', item, 403);
    await rest(outsider, 'POST', secretsOf(organizationId), 403, { name: 'BY_OUTSIDER', value: 'v' });
    await rest(outsider, 'PUT', item, 403, { description: 'changed' });
    await rest(outsider, 'DELETE', item, 403);
    // Through their own organization's path, the secret is not there.
    await rest(outsider, 'GET', `${secretsOf(otherOrganizationId)}/${secret.id}`, 404);
    await rest(outsider, 'PUT', `${secretsOf(otherOrganizationId)}/${secret.id}`, 404, { description: 'changed' });
    await rest(outsider, 'DELETE', `${secretsOf(otherOrganizationId)}/${secret.id}`, 404);
    const outsiders = await rest(outsider, 'GET', secretsOf(otherOrganizationId), 200);
    expect(outsiders.content.map((s: { id: string }) => s.id)).not.toContain(secret.id);
    expect(await rest(null, 'GET', item, 200)).toEqual(secret);
    await rest(null, 'GET', `${secretsOf(otherOrganizationId)}/${secret.id}`, 404);
  });

  it('answers 400 for a malformed organization id, 404 for an unknown one, 401 without credentials', async () => {
    const malformed = await rest(owner, 'GET', secretsOf('not-a-uuid'), 400);
    expect(malformed.details[0].field).toBe('organizationId');
    await rest(owner, 'GET', secretsOf(randomUUID()), 404);
    await rest(owner, 'POST', secretsOf(randomUUID()), 404, { name: 'NOWHERE', value: 'v' });
    await rest(owner, 'GET', `${secretsOf(organizationId)}/${randomUUID()}`, 404);
    expect((await server.request('GET', secretsOf(organizationId), { key: null })).status).toBe(401);
  });
});

describe('GraphQL', () => {
  it('serves organizationSecrets(organizationId), organizationSecret and the mutations, with no value field', async () => {
    const plain = `gql-${randomUUID()}`;
    const name = `GQL_${Date.now()}`;
    const { createOrganizationSecret: created } = await server.graphqlData(
      `mutation($input: OrganizationSecretCreateRequest!) { createOrganizationSecret(input: $input) { id name organizationId changeSequence } }`,
      { input: { organizationId, name, value: plain } },
      owner.key,
    );
    expect(created).toMatchObject({ name, organizationId, changeSequence: 0 });
    expect(new SecretBox(TEST_SECRETS_KEY).open(await sealedValueOf(created.id))).toBe(plain);

    const { organizationSecrets } = await server.graphqlData(
      `query($org: ID!, $filter: String) { organizationSecrets(organizationId: $org, filter: $filter) { totalElements content { id name } } }`,
      { org: organizationId, filter: `name==${name}` },
      owner.key,
    );
    expect(organizationSecrets).toEqual({ totalElements: 1, content: [{ id: created.id, name }] });
    const nested = await server.graphqlData(
      `query($id: ID!, $filter: String) { organization(id: $id) { secrets(filter: $filter) { content { id } } } }`,
      { id: organizationId, filter: `name==${name}` },
      owner.key,
    );
    expect(nested.organization.secrets.content).toEqual([{ id: created.id }]);

    const asked = await server.graphql(`query($id: ID!) { organizationSecret(id: $id) { id value } }`, { id: created.id }, owner.key);
    expect(asked.status).toBe(400);
    expect(asked.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });

    const { updateOrganizationSecret } = await server.graphqlData(
      `mutation($id: ID!) { updateOrganizationSecret(id: $id, input: { value: "rotated" }) { changeSequence } }`,
      { id: created.id },
      owner.key,
    );
    expect(updateOrganizationSecret.changeSequence).toBe(1);
    expect(new SecretBox(TEST_SECRETS_KEY).open(await sealedValueOf(created.id))).toBe('rotated');

    const forbidden = await server.graphql(
      `query($org: ID!) { organizationSecrets(organizationId: $org) { totalElements } }`,
      { org: organizationId },
      member.key,
    );
    expect(forbidden.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    const hidden = await server.graphql(`query($id: ID!) { organizationSecret(id: $id) { id } }`, { id: created.id }, outsider.key);
    expect(hidden.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    // Through the organization, a member sees an empty collection: the secrets are not theirs to read.
    const memberNested = await server.graphqlData(
      `query($id: ID!) { organization(id: $id) { secrets { totalElements } } }`,
      { id: organizationId },
      member.key,
    );
    expect(memberNested.organization.secrets.totalElements).toBe(0);

    const { deleteOrganizationSecret } = await server.graphqlData(`mutation($id: ID!) { deleteOrganizationSecret(id: $id) }`, { id: created.id }, owner.key);
    expect(deleteOrganizationSecret).toBe(true);
  });
});

describe('OpenAPI', () => {
  it('documents value as write-only in the requests and leaves it out of the answer', async () => {
    const doc = (await server.request('GET', '/v3/api-docs')).body;
    const schemas = doc.components.schemas;
    expect(schemas.OrganizationSecretCreateRequest.properties.value).toMatchObject({ type: 'string', writeOnly: true });
    expect(schemas.OrganizationSecretCreateRequest.required).toEqual(expect.arrayContaining(['name', 'value']));
    expect(schemas.OrganizationSecretUpdateRequest.properties.value).toMatchObject({ writeOnly: true });
    expect(schemas.OrganizationSecret.properties).not.toHaveProperty('value');
    const list = doc.paths['/api/organizations/{orgId}/secrets'].get;
    expect(list.operationId).toBe('listOrganizationSecrets');
    expect(list.parameters[0]).toMatchObject({ name: 'orgId', in: 'path', required: true });
    expect(doc.paths['/api/organizations/{orgId}/secrets/{id}'].put.operationId).toBe('updateOrganizationSecret');
  });
});

describe('the secrets key', () => {
  it('is generated once into the data folder (readable by its owner alone) and read back on the next start', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'secrets-key-')), 'data');
    const generated: string[] = [];
    const first = loadSecretsKey(undefined, dataDir, (file) => generated.push(file));
    expect(first).toHaveLength(32);
    expect(statSync(join(dataDir, SECRETS_KEY_FILE)).mode & 0o777).toBe(0o600);
    // The operator is warned of a generated key once, not on the starts that read it back.
    expect(generated).toEqual([join(dataDir, SECRETS_KEY_FILE)]);
    expect(loadSecretsKey(undefined, dataDir, (file) => generated.push(file)).equals(first)).toBe(true);
    expect(generated).toHaveLength(1);
    expect(readFileSync(join(dataDir, SECRETS_KEY_FILE), 'utf8').trim()).toBe(first.toString('base64'));
  });

  it('takes SECRETS_KEY when set, and refuses one that is not 32 bytes of base64', () => {
    const key = Buffer.alloc(32, 3);
    expect(loadSecretsKey(key.toString('base64'), '/nonexistent').equals(key)).toBe(true);
    expect(() => loadSecretsKey(Buffer.alloc(16).toString('base64'), '/nonexistent')).toThrow(/SECRETS_KEY must hold 32 bytes/);
  });

  it('opens only what it sealed: another key or an altered text is refused', () => {
    const box = new SecretBox(TEST_SECRETS_KEY);
    const sealed = box.seal('hello');
    expect(sealed).not.toBe(box.seal('hello'));
    expect(() => new SecretBox(Buffer.alloc(32, 9)).open(sealed)).toThrow();
    const [format, nonce, tag, body] = sealed.split(':');
    const altered = [format, nonce, tag, Buffer.from('x' + Buffer.from(body, 'base64').toString('latin1'), 'latin1').toString('base64')].join(':');
    expect(() => box.open(altered)).toThrow();
  });
});
