import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Organization } from '../src/entities';
import type { FieldMeta } from '../src/model/fields';
import type { Resource } from '../src/model/resource';
import { resources } from '../src/catalog/registry';
import { createOrganization, createProject, createTask } from './support/fixtures';
import {
  buildCreateBody,
  buildUpdateBody,
  createRecord,
  createUser,
  filterFor,
  isCreateWritable,
  isUpdateWritable,
  resourceByPath,
  resourceOf,
} from './support/resource-bodies';
import { startServer, unique, type Answer, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

interface Caller {
  id: string;
  email: string;
  key: string;
}

/** A new user (created by the administrator) and an API key of theirs. */
async function newCaller(label: string): Promise<Caller> {
  const user = await createUser(server, { firstName: label });
  const token = await server.request('POST', '/api/access-tokens', { body: { name: unique('key'), userId: user.id } });
  expect(token.status, token.text).toBe(201);
  expect(typeof token.body.token).toBe('string');
  return { id: user.id, email: user.email, key: token.body.token };
}

/**
 * Makes `user` a plain member of `organizationId` through a new team created by the owner (`ownerKey`).
 * The membership itself is written by the administrator: this is set-up, and owners adding members is
 * what the 'owners and members' tests check, so a fault there does not hide the behaviour under test here.
 */
async function addMember(organizationId: string, userId: string, ownerKey: string): Promise<{ teamId: string; memberId: string }> {
  const team = await server.request('POST', '/api/teams', { body: { name: unique('Team'), organizationId }, key: ownerKey });
  expect(team.status, team.text).toBe(201);
  const member = await server.request('POST', '/api/team-members', { body: { teamId: team.body.id, userId } });
  expect(member.status, member.text).toBe(201);
  return { teamId: team.body.id, memberId: member.body.id };
}

function expectStatus(answer: Answer, ...statuses: number[]) {
  expect(statuses, `${answer.status}: ${answer.text}`).toContain(answer.status);
}

/** The ids of a REST listing (the administrator's when `key` is undefined). */
async function listIds(path: string, params: Record<string, string>, key?: string | null): Promise<string[]> {
  const query = new URLSearchParams({ pageSize: '100', ...params }).toString();
  const answer = await server.request('GET', `/api/${path}?${query}`, { key });
  expect(answer.status, answer.text).toBe(200);
  expect(Array.isArray(answer.body.content), answer.text).toBe(true);
  return answer.body.content.map((row: { id: string }) => row.id);
}

/** Rows of a REST listing matching a filter, counted as the administrator. */
async function adminCount(path: string, filter: string): Promise<number> {
  expect(filter, 'a filter identifying the rows').not.toBe('');
  const answer = await server.request('GET', `/api/${path}?${new URLSearchParams({ filter, pageSize: '1' })}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.totalElements;
}

/** The ids of a GraphQL listing. */
async function gqlListIds(resource: Resource, key: string | undefined, filter?: string): Promise<string[]> {
  const answer = await server.graphql(`query($filter: String) { ${resource.listName}(filter: $filter, pageSize: 100) { content { id } } }`, { filter }, key);
  expect(answer.body.errors, answer.text).toBeUndefined();
  return answer.body.data[resource.listName].content.map((row: { id: string }) => row.id);
}

function gqlCode(answer: Answer<{ data?: any; errors?: any[] }>): string | undefined {
  return answer.body?.errors?.[0]?.extensions?.code;
}

async function adminGet(path: string, id: string): Promise<Answer> {
  return server.request('GET', `/api/${path}/${id}`);
}

/** The same row, read back as the administrator, is exactly what it was. */
async function expectUnchanged(path: string, before: Record<string, unknown>) {
  const after = await adminGet(path, before.id as string);
  expect(after.status, after.text).toBe(200);
  expect(after.body).toEqual(before);
}

/**
 * Organization-scoped resources: their rows belong to one organization (directly or through a parent).
 * A collection served below its organization's path (`/api/organizations/{orgId}/secrets`) has no
 * flat list to compare: test/organization-secrets.test.ts proves the same rules for it through its paths.
 */
const orgScoped = resources.filter((r) => r.scope.kind === 'organization' && !r.parent);

/** The reference field that decides the row's organization (`projectId` for tasks); none for organizations. */
function tenantField(resource: Resource): string | undefined {
  if (resource.scope.kind !== 'organization' || resource.entity === Organization) return undefined;
  return resource.scope.path.split('.')[0];
}

/** Reference fields pointing at organization-scoped resources. */
function tenantReferences(resource: Resource): FieldMeta[] {
  return resource.fields.filter((f) => {
    if (!f.reference) return false;
    const target = resourceOf(f.reference.target());
    return target?.scope.kind === 'organization';
  });
}

describe('the registry', () => {
  it('has organization-scoped resources to prove isolation for, including the core ones', () => {
    const paths = orgScoped.map((r) => r.path);
    for (const path of ['organizations', 'teams', 'team-members', 'projects', 'tasks', 'labels']) expect(paths).toContain(path);
  });
});

describe('no credentials', () => {
  for (const resource of resources) {
    it(`refuses GET/POST /api/${resource.path}, GET /api/${resource.path}/{id} and the GraphQL ${resource.listName} list with 401`, async () => {
      const list = await server.request('GET', `/api/${resource.path}`, { key: null });
      expect(list.status, list.text).toBe(401);
      const item = await server.request('GET', `/api/${resource.path}/${randomUUID()}`, { key: null });
      expect(item.status, item.text).toBe(401);
      const create = await server.request('POST', `/api/${resource.path}`, { key: null, body: {} });
      expect(create.status, create.text).toBe(401);
      const bad = await server.request('GET', `/api/${resource.path}`, { key: 'pk_not-a-key' });
      expect(bad.status, bad.text).toBe(401);
      const graphql = await server.graphql(`{ ${resource.listName} { content { id } } }`, undefined, null);
      expect(graphql.status, graphql.text).toBe(401);
      expect(gqlCode(graphql)).toBe('UNAUTHENTICATED');
      expect(graphql.body.data ?? null).toBeNull();
    });
  }
});

describe('isolation between tenants', () => {
  let a: Caller;
  let b: Caller;
  let orgA: string;
  let orgB: string;
  /** One row per organization-scoped resource in each tenant, as created. */
  const rowsA = new Map<string, Record<string, any>>();
  const rowsB = new Map<string, Record<string, any>>();
  const setupErrors = new Map<string, Error>();

  beforeAll(async () => {
    [a, b] = await Promise.all([newCaller('TenantA'), newCaller('TenantB')]);
    orgA = (await createOrganization(server, {}, a.key)).id;
    orgB = (await createOrganization(server, {}, b.key)).id;
    for (const resource of orgScoped) {
      // A resource whose rows cannot be created fails its own tests (with the reason), not everyone's.
      for (const [rows, org, key] of [
        [rowsA, orgA, a.key],
        [rowsB, orgB, b.key],
      ] as const) {
        try {
          rows.set(resource.path, await createRecord(server, resource, { organizationId: org, key }));
        } catch (error) {
          setupErrors.set(resource.path, error as Error);
        }
      }
    }
  });

  /** The row of `path` made for a tenant; throws why it could not be made. */
  function rowOf(rows: Map<string, Record<string, any>>, path: string): Record<string, any> {
    const row = rows.get(path);
    if (!row) throw setupErrors.get(path) ?? new Error(`no row of ${path}`);
    return row;
  }

  it('gave each tenant its own rows, in its own organization', async () => {
    for (const resource of orgScoped) {
      const rowA = rowOf(rowsA, resource.path);
      const rowB = rowOf(rowsB, resource.path);
      expect(rowA.id).not.toBe(rowB.id);
      const field = tenantField(resource);
      if (field) {
        expect(rowA[field], resource.path).toBeTruthy();
        expect(rowA[field]).not.toBe(rowB[field]);
      }
    }
  });

  for (const resource of orgScoped) {
    describe(resource.path, () => {
      const rowA = () => rowOf(rowsA, resource.path);
      const rowB = () => rowOf(rowsB, resource.path);

      it("B's REST list excludes A's row and includes B's own", async () => {
        expect(await listIds(resource.path, { filter: `id==${rowA().id}` }, b.key)).toEqual([]);
        const all = await listIds(resource.path, {}, b.key);
        expect(all).not.toContain(rowA().id);
        expect(await listIds(resource.path, { filter: `id==${rowB().id}` }, b.key)).toEqual([rowB().id]);
        // and the other way round
        expect(await listIds(resource.path, { filter: `id==${rowB().id}` }, a.key)).toEqual([]);
      });

      it("B's GraphQL list excludes A's row and includes B's own", async () => {
        expect(await gqlListIds(resource, b.key, `id==${rowA().id}`)).toEqual([]);
        expect(await gqlListIds(resource, b.key)).not.toContain(rowA().id);
        expect(await gqlListIds(resource, b.key, `id==${rowB().id}`)).toEqual([rowB().id]);
      });

      it("B's GET of A's row is 403 (GraphQL: FORBIDDEN); the admin sees both rows", async () => {
        const get = await server.request('GET', `/api/${resource.path}/${rowA().id}`, { key: b.key });
        expect(get.status, get.text).toBe(403);
        const sequence = await server.request('GET', `/api/${resource.path}/${rowA().id}/sequence`, { key: b.key });
        expect(sequence.status, sequence.text).toBe(403);
        const item = await server.graphql(`query($id: ID!) { ${resource.itemName}(id: $id) { id } }`, { id: rowA().id }, b.key);
        expect(gqlCode(item), item.text).toBe('FORBIDDEN');
        expect(item.body.data?.[resource.itemName] ?? null).toBeNull();

        const own = await server.request('GET', `/api/${resource.path}/${rowB().id}`, { key: b.key });
        expect(own.status, own.text).toBe(200);
        for (const row of [rowA(), rowB()]) expect((await adminGet(resource.path, row.id)).status).toBe(200);
        const both = await listIds(resource.path, { filter: `id=in=(${rowA().id},${rowB().id})` });
        expect(both.sort()).toEqual([rowA().id, rowB().id].sort());
        expect((await gqlListIds(resource, undefined, `id=in=(${rowA().id},${rowB().id})`)).sort()).toEqual([rowA().id, rowB().id].sort());
      });

      if (!resource.operations.update) {
        it("B's PUT of A's row is 405 (the collection has no update) and no GraphQL mutation exists", async () => {
          const before = (await adminGet(resource.path, rowA().id)).body;
          const put = await server.request('PUT', `/api/${resource.path}/${rowA().id}`, { body: {}, key: b.key });
          expect(put.status, put.text).toBe(405);
          expect(put.headers.get('allow')).not.toContain('PUT');
          const mutation = await server.graphql(`mutation($id: ID!) { update${resource.name}(id: $id, input: {}) { id } }`, { id: rowA().id }, b.key);
          expect(gqlCode(mutation), mutation.text).toBe('BAD_REQUEST');
          await expectUnchanged(resource.path, before);
        });
      } else
        it("B's PUT of A's row is 403 and leaves it unchanged (GraphQL too)", async () => {
          const before = (await adminGet(resource.path, rowA().id)).body;
          const { body } = await buildUpdateBody(server, resource, before);
          const put = await server.request('PUT', `/api/${resource.path}/${rowA().id}`, { body, key: b.key });
          expect(put.status, put.text).toBe(403);
          await expectUnchanged(resource.path, before);
          const mutation = await server.graphql(
            `mutation($id: ID!, $input: ${resource.name}UpdateRequest!) { update${resource.name}(id: $id, input: $input) { id } }`,
            { id: rowA().id, input: body },
            b.key,
          );
          expect(gqlCode(mutation), mutation.text).toBe('FORBIDDEN');
          await expectUnchanged(resource.path, before);
        });

      if (!resource.operations.delete) {
        it("B's DELETE of A's row is 405 (the collection has no delete) and no GraphQL mutation exists", async () => {
          const before = (await adminGet(resource.path, rowA().id)).body;
          const del = await server.request('DELETE', `/api/${resource.path}/${rowA().id}`, { key: b.key });
          expect(del.status, del.text).toBe(405);
          expect(del.headers.get('allow')).not.toContain('DELETE');
          const mutation = await server.graphql(`mutation($id: ID!) { delete${resource.name}(id: $id) }`, { id: rowA().id }, b.key);
          expect(gqlCode(mutation), mutation.text).toBe('BAD_REQUEST');
          await expectUnchanged(resource.path, before);
        });
      } else
        it("B's DELETE of A's row is 403 and the row is still there (GraphQL too)", async () => {
          const before = (await adminGet(resource.path, rowA().id)).body;
          const del = await server.request('DELETE', `/api/${resource.path}/${rowA().id}`, { key: b.key });
          expect(del.status, del.text).toBe(403);
          await expectUnchanged(resource.path, before);
          const mutation = await server.graphql(`mutation($id: ID!) { delete${resource.name}(id: $id) }`, { id: rowA().id }, b.key);
          expect(gqlCode(mutation), mutation.text).toBe('FORBIDDEN');
          await expectUnchanged(resource.path, before);
          expect(await listIds(resource.path, { filter: `id==${rowA().id}` }, a.key)).toEqual([rowA().id]);
        });

      if (resource.entity !== Organization && !resource.operations.create) {
        it("B creating a row into A's organization is 405 (the collection has no create) and writes nothing", async () => {
          const body = await buildCreateBody(server, resource, { organizationId: orgA, key: a.key });
          const filter = filterFor(resource, body);
          const existing = await adminCount(resource.path, filter);
          const post = await server.request('POST', `/api/${resource.path}`, { body, key: b.key });
          expect(post.status, post.text).toBe(405);
          expect(post.headers.get('allow')).not.toContain('POST');
          expect(await adminCount(resource.path, filter)).toBe(existing);
        });
      }
      if (resource.entity !== Organization && resource.operations.create) {
        it("B creating a row into A's organization is refused (403 or 400) and writes nothing", async () => {
          const body = await buildCreateBody(server, resource, { organizationId: orgA, key: a.key });
          // A body may match rows already there (an execution's is only its organizationId): nothing is added to them.
          const filter = filterFor(resource, body);
          const existing = await adminCount(resource.path, filter);
          const post = await server.request('POST', `/api/${resource.path}`, { body, key: b.key });
          expectStatus(post, 403, 400);
          expect(await adminCount(resource.path, filter)).toBe(existing);
          const mutation = await server.graphql(
            `mutation($input: ${resource.name}CreateRequest!) { create${resource.name}(input: $input) { id } }`,
            { input: body },
            b.key,
          );
          expect(['FORBIDDEN', 'BAD_REQUEST'], mutation.text).toContain(gqlCode(mutation));
          expect(await adminCount(resource.path, filter)).toBe(existing);
        });
      }

      for (const field of tenantReferences(resource)
        .filter(isCreateWritable)
        .filter(() => resource.operations.create)) {
        it(`B creating a row in B's organization whose ${field.name} is A's row is refused and writes nothing`, async () => {
          const target = resourceOf(field.reference!.target())!;
          const foreign = rowOf(rowsA, target.path).id;
          const body = await buildCreateBody(server, resource, { organizationId: orgB, key: b.key, overrides: { [field.name]: foreign } });
          const filter = filterFor(resource, body);
          const existing = await adminCount(resource.path, filter);
          const post = await server.request('POST', `/api/${resource.path}`, { body, key: b.key });
          expectStatus(post, 400, 403);
          expect(await adminCount(resource.path, filter)).toBe(existing);
        });
      }

      for (const field of tenantReferences(resource)
        .filter(isUpdateWritable)
        .filter(() => resource.operations.update)) {
        it(`B pointing ${field.name} of B's own row at A's row is refused and changes nothing`, async () => {
          const target = resourceOf(field.reference!.target())!;
          const before = (await adminGet(resource.path, rowB().id)).body;
          const put = await server.request('PUT', `/api/${resource.path}/${rowB().id}`, {
            body: { [field.name]: rowOf(rowsA, target.path).id },
            key: b.key,
          });
          expectStatus(put, 400, 403);
          await expectUnchanged(resource.path, before);
        });
      }

      it('answers 404 for an id that does not exist, to the admin and to B', async () => {
        const missing = randomUUID();
        for (const key of [undefined, b.key]) {
          const get = await server.request('GET', `/api/${resource.path}/${missing}`, { key });
          expect(get.status, get.text).toBe(404);
          // A write the collection does not have is 405 whatever the id.
          const put = await server.request('PUT', `/api/${resource.path}/${missing}`, { body: {}, key });
          expect(put.status, put.text).toBe(resource.operations.update ? 404 : 405);
          const del = await server.request('DELETE', `/api/${resource.path}/${missing}`, { key });
          expect(del.status, del.text).toBe(resource.operations.delete ? 404 : 405);
          const item = await server.graphql(`query($id: ID!) { ${resource.itemName}(id: $id) { id } }`, { id: missing }, key);
          expect(item.body.errors, item.text).toBeUndefined();
          expect(item.body.data[resource.itemName]).toBeNull();
        }
      });
    });
  }

  describe('nested reads', () => {
    /**
     * Rows of B pointing at A's rows (written by the administrator, who may) and rows of A pointing at
     * B's: B must see neither A's referenced objects nor A's rows in its own rows' collections.
     */
    // Read-only collections (written by the server alone) take no body that could name another tenant's row.
    const crossReferences = orgScoped
      .filter((resource) => resource.operations.create)
      .flatMap((resource) =>
        resource.fields
          .filter((f) => f.reference && isCreateWritable(f) && f.name !== tenantField(resource))
          .filter((f) => {
            const target = resourceOf(f.reference!.target());
            // A membership row legitimately makes its user a colleague: it is not a reference to test here.
            if (resource.path === 'team-members') return false;
            return target !== undefined && (target.scope.kind === 'organization' || target.path === 'users');
          })
          .map((field) => ({ resource, field })),
      );

    it('has cross-tenant references to try', () => {
      expect(crossReferences.map(({ resource, field }) => `${resource.path}.${field.name}`)).toEqual(
        expect.arrayContaining(['projects.statusId', 'projects.ownerId', 'tasks.parentTaskId', 'tasks.assigneeId']),
      );
    });

    for (const { resource, field } of crossReferences) {
      const target = resourceOf(field.reference!.target())!;
      const relation = field.reference!.relation;

      if (target.scope.kind === 'organization') {
        it(`refuses ${resource.path}.${field.name} naming A's ${target.name} from B's organization, even for the administrator`, async () => {
          const foreign = rowOf(rowsA, target.path).id;
          const referring = async () => (await server.request('GET', `/api/${resource.path}?filter=${field.name}==${foreign}`)).body.totalElements;
          const before = await referring();
          const body = await buildCreateBody(server, resource, { organizationId: orgB, key: b.key, userId: b.id, overrides: { [field.name]: foreign } });
          const created = await server.request('POST', `/api/${resource.path}`, { body }); // as the administrator
          expect(created.status, created.text).toBe(400);
          expect(created.body.details?.[0]?.field).toBe(field.name);
          expect(await referring(), 'nothing was written').toBe(before);
        });
        continue;
      }

      it(`B never sees A's ${target.name} through ${resource.path}.${relation} (REST embed, GraphQL field)`, async () => {
        const foreign = a.id;
        const body = await buildCreateBody(server, resource, { organizationId: orgB, key: b.key, userId: b.id, overrides: { [field.name]: foreign } });
        const created = await server.request('POST', `/api/${resource.path}`, { body }); // as the administrator
        expect(created.status, created.text).toBe(201);
        const shown = field.reference!.embed ? created.body[relation]?.id : created.body[field.name];
        expect(shown, 'the administrator sees the referenced row').toBe(foreign);

        const rest = await server.request('GET', `/api/${resource.path}/${created.body.id}`, { key: b.key });
        expect(rest.status, rest.text).toBe(200);
        expect(rest.body[relation] ?? null, rest.text).toBeNull();
        const listed = await server.request('GET', `/api/${resource.path}?filter=id==${created.body.id}`, { key: b.key });
        expect(listed.body.content?.[0]?.[relation] ?? null, listed.text).toBeNull();

        const gql = await server.graphql(
          `query($id: ID!, $filter: String) {
             item: ${resource.itemName}(id: $id) { id ${relation} { id } }
             list: ${resource.listName}(filter: $filter) { content { id ${relation} { id } } }
           }`,
          { id: created.body.id, filter: `id==${created.body.id}` },
          b.key,
        );
        expect(gql.body.errors, gql.text).toBeUndefined();
        expect(gql.body.data.item[relation], gql.text).toBeNull();
        expect(gql.body.data.list.content[0][relation], gql.text).toBeNull();
        expect(gql.text).not.toContain(foreign);
      });

      const inverse = field.reference!.inverse;
      // Organization-scoped references across tenants are refused above, so only others can be listed.
      if (inverse && target.scope.kind !== 'organization') {
        it(`B's ${target.name}.${inverse} never lists A's ${resource.name} rows`, async () => {
          const own = rowOf(rowsB, target.path).id;
          const body = await buildCreateBody(server, resource, { organizationId: orgA, key: a.key, userId: a.id, overrides: { [field.name]: own } });
          const created = await server.request('POST', `/api/${resource.path}`, { body }); // as the administrator
          expect(created.status, created.text).toBe(201);

          const adminView = await server.graphql(`query($id: ID!) { ${target.itemName}(id: $id) { ${inverse}(pageSize: 100) { content { id } } } }`, {
            id: own,
          });
          expect(adminView.body.errors, adminView.text).toBeUndefined();
          expect(adminView.body.data[target.itemName][inverse].content.map((r: { id: string }) => r.id)).toContain(created.body.id);

          const answer = await server.graphql(
            `query($id: ID!) { ${target.itemName}(id: $id) { id ${inverse}(pageSize: 100) { content { id } totalElements } } }`,
            { id: own },
            b.key,
          );
          expect(answer.body.errors, answer.text).toBeUndefined();
          const ids = answer.body.data[target.itemName][inverse].content.map((r: { id: string }) => r.id);
          expect(ids).not.toContain(created.body.id);
          expect(answer.text).not.toContain(created.body.id);
        });
      }
    }

    it("as B, B's organization's projects and tasks never contain A's rows", async () => {
      const projectA = await createProject(server, orgA, {}, a.key);
      const taskA = await createTask(server, projectA.id, {}, a.key);
      const projectB = await createProject(server, orgB, {}, b.key);
      const taskB = await createTask(server, projectB.id, {}, b.key);

      const nested = await server.graphql(
        `query($id: ID!) {
           organization(id: $id) { id projects(pageSize: 50) { content { id organizationId tasks(pageSize: 50) { content { id projectId project { organizationId } } } } } }
         }`,
        { id: orgB },
        b.key,
      );
      expect(nested.body.errors, nested.text).toBeUndefined();
      const projects = nested.body.data.organization.projects.content;
      expect(projects.map((p: any) => p.id)).toContain(projectB.id);
      for (const project of projects) {
        expect(project.organizationId).toBe(orgB);
        for (const task of project.tasks.content) expect(task.project.organizationId).toBe(orgB);
      }
      expect(projects.flatMap((p: any) => p.tasks.content.map((t: any) => t.id))).toContain(taskB.id);

      const everything = await server.graphql(
        `{ organizations(pageSize: 20) { content { id projects(pageSize: 20) { content { id organizationId tasks(pageSize: 20) { content { id } } } } } } }`,
        undefined,
        b.key,
      );
      expect(everything.body.errors, everything.text).toBeUndefined();
      const orgIds = everything.body.data.organizations.content.map((o: any) => o.id);
      expect(orgIds).toContain(orgB);
      expect(orgIds).not.toContain(orgA);
      for (const org of everything.body.data.organizations.content) {
        for (const project of org.projects.content) expect(project.organizationId).toBe(org.id);
      }

      const tasks = await server.graphql(`{ tasks(pageSize: 100) { content { id project { id organizationId } } } }`, undefined, b.key);
      expect(tasks.body.errors, tasks.text).toBeUndefined();
      const visibleOrgs = new Set(orgIds);
      for (const task of tasks.body.data.tasks.content) expect(visibleOrgs.has(task.project.organizationId), JSON.stringify(task)).toBe(true);
      expect(tasks.body.data.tasks.content.map((t: any) => t.id)).toContain(taskB.id);

      for (const text of [nested.text, everything.text, tasks.text]) {
        for (const id of [orgA, projectA.id, taskA.id]) expect(text).not.toContain(id);
      }
    });
  });
});

describe('owners and members', () => {
  let owner: Caller;
  let member: Caller;
  let org: string;
  let ownersTeam: string;
  let team: { teamId: string; memberId: string };

  beforeAll(async () => {
    [owner, member] = await Promise.all([newCaller('Owner'), newCaller('Member')]);
    org = (await createOrganization(server, {}, owner.key)).id;
    team = await addMember(org, member.id, owner.key);
    const owners = await server.request('GET', `/api/teams?${new URLSearchParams({ filter: `organizationId==${org};slug==owners` })}`);
    expect(owners.body.content, owners.text).toHaveLength(1);
    ownersTeam = owners.body.content[0].id;
  });

  it("makes the creator a member of the organization's owners team, and the member a member of the other team", async () => {
    const members = await server.request('GET', `/api/team-members?${new URLSearchParams({ filter: `teamId==${ownersTeam}` })}`);
    expect(members.body.content.map((m: any) => m.userId)).toEqual([owner.id]);
    const visible = await server.request('GET', `/api/organizations/${org}`, { key: member.key });
    expect(visible.status, visible.text).toBe(200);
    expect(await listIds('teams', { filter: `organizationId==${org}` }, member.key)).toEqual(expect.arrayContaining([team.teamId, ownersTeam]));
  });

  it('refuses a member creating a team (403) and writes nothing; the owner may', async () => {
    const name = unique('MemberTeam');
    const refused = await server.request('POST', '/api/teams', { body: { name, organizationId: org }, key: member.key });
    expect(refused.status, refused.text).toBe(403);
    expect(await adminCount('teams', `name=='${name}'`)).toBe(0);
    const allowed = await server.request('POST', '/api/teams', { body: { name, organizationId: org }, key: owner.key });
    expect(allowed.status, allowed.text).toBe(201);
    expect(await adminCount('teams', `name=='${name}'`)).toBe(1);
  });

  it('refuses a member updating or deleting a team (403); the owner may', async () => {
    const extra = await addMember(org, (await createUser(server)).id, owner.key);
    const before = (await adminGet('teams', extra.teamId)).body;
    const put = await server.request('PUT', `/api/teams/${extra.teamId}`, { body: { description: 'member was here' }, key: member.key });
    expect(put.status, put.text).toBe(403);
    await expectUnchanged('teams', before);
    const del = await server.request('DELETE', `/api/teams/${extra.teamId}`, { key: member.key });
    expect(del.status, del.text).toBe(403);
    await expectUnchanged('teams', before);

    const ownerPut = await server.request('PUT', `/api/teams/${extra.teamId}`, { body: { description: 'owner edit' }, key: owner.key });
    expect(ownerPut.status, ownerPut.text).toBe(200);
    expect(ownerPut.body.description).toBe('owner edit');
    const ownerDelete = await server.request('DELETE', `/api/teams/${extra.teamId}`, { key: owner.key });
    expect(ownerDelete.status, ownerDelete.text).toBe(204);
    expect((await adminGet('teams', extra.teamId)).status).toBe(404);
  });

  it('refuses a member adding, changing or removing team members (403); the owner may', async () => {
    const newcomer = await createUser(server);
    const add = await server.request('POST', '/api/team-members', { body: { teamId: team.teamId, userId: newcomer.id }, key: member.key });
    expect(add.status, add.text).toBe(403);
    expect(await adminCount('team-members', `teamId==${team.teamId};userId==${newcomer.id}`)).toBe(0);

    const before = (await adminGet('team-members', team.memberId)).body;
    const put = await server.request('PUT', `/api/team-members/${team.memberId}`, { body: { userId: newcomer.id }, key: member.key });
    expect(put.status, put.text).toBe(403);
    await expectUnchanged('team-members', before);
    const del = await server.request('DELETE', `/api/team-members/${team.memberId}`, { key: member.key });
    expect(del.status, del.text).toBe(403);
    await expectUnchanged('team-members', before);

    const ownerAdd = await server.request('POST', '/api/team-members', { body: { teamId: team.teamId, userId: newcomer.id }, key: owner.key });
    expect(ownerAdd.status, ownerAdd.text).toBe(201);
    const other = await createUser(server);
    const ownerPut = await server.request('PUT', `/api/team-members/${ownerAdd.body.id}`, { body: { userId: other.id }, key: owner.key });
    expect(ownerPut.status, ownerPut.text).toBe(200);
    expect(ownerPut.body.userId).toBe(other.id);
    const ownerDelete = await server.request('DELETE', `/api/team-members/${ownerAdd.body.id}`, { key: owner.key });
    expect(ownerDelete.status, ownerDelete.text).toBe(204);
    expect((await adminGet('team-members', ownerAdd.body.id)).status).toBe(404);
  });

  it('refuses a member joining the owners team (403) and writes nothing, so a member cannot make themselves an owner', async () => {
    // Its own organization and member: a member who got in would be an owner for every later test.
    const [founder, climber] = await Promise.all([newCaller('Founder'), newCaller('Climber')]);
    const own = (await createOrganization(server, {}, founder.key)).id;
    const joined = await addMember(own, climber.id, founder.key);
    const owners = await server.request('GET', `/api/teams?${new URLSearchParams({ filter: `organizationId==${own};slug==owners` })}`);
    const ownersId = owners.body.content[0].id;

    const join = await server.request('POST', '/api/team-members', { body: { teamId: ownersId, userId: climber.id }, key: climber.key });
    expect(join.status, join.text).toBe(403);
    expect(await adminCount('team-members', `teamId==${ownersId};userId==${climber.id}`)).toBe(0);
    const gqlJoin = await server.graphql(
      'mutation($input: TeamMemberCreateRequest!) { createTeamMember(input: $input) { id } }',
      { input: { teamId: ownersId, userId: climber.id } },
      climber.key,
    );
    expect(gqlCode(gqlJoin), gqlJoin.text).toBe('FORBIDDEN');
    expect(await adminCount('team-members', `teamId==${ownersId};userId==${climber.id}`)).toBe(0);

    const move = await server.request('PUT', `/api/team-members/${joined.memberId}`, { body: { teamId: ownersId }, key: climber.key });
    expect(move.status, move.text).toBe(403);
    expect((await adminGet('team-members', joined.memberId)).body.teamId).toBe(joined.teamId);
    const put = await server.request('PUT', `/api/organizations/${own}`, { body: { description: 'still not an owner' }, key: climber.key });
    expect(put.status, put.text).toBe(403);
    const team = await server.request('POST', '/api/teams', { body: { name: unique('Climb'), organizationId: own }, key: climber.key });
    expect(team.status, team.text).toBe(403);
  });

  it('refuses a member updating or deleting the organization (403); the owner may', async () => {
    const before = (await adminGet('organizations', org)).body;
    const put = await server.request('PUT', `/api/organizations/${org}`, { body: { description: 'member edit' }, key: member.key });
    expect(put.status, put.text).toBe(403);
    const del = await server.request('DELETE', `/api/organizations/${org}`, { key: member.key });
    expect(del.status, del.text).toBe(403);
    await expectUnchanged('organizations', before);
    const gqlDelete = await server.graphql('mutation($id: ID!) { deleteOrganization(id: $id) }', { id: org }, member.key);
    expect(gqlCode(gqlDelete), gqlDelete.text).toBe('FORBIDDEN');
    await expectUnchanged('organizations', before);

    const ownerPut = await server.request('PUT', `/api/organizations/${org}`, { body: { description: 'owner edit' }, key: owner.key });
    expect(ownerPut.status, ownerPut.text).toBe(200);
    expect(ownerPut.body.description).toBe('owner edit');

    const disposable = await createOrganization(server, {}, owner.key);
    await addMember(disposable.id, member.id, owner.key);
    const memberDelete = await server.request('DELETE', `/api/organizations/${disposable.id}`, { key: member.key });
    expect(memberDelete.status, memberDelete.text).toBe(403);
    const ownerDelete = await server.request('DELETE', `/api/organizations/${disposable.id}`, { key: owner.key });
    expect(ownerDelete.status, ownerDelete.text).toBe(204);
    expect((await adminGet('organizations', disposable.id)).status).toBe(404);
  });

  it('lets a member create, update and delete projects, tasks and labels', async () => {
    const project = await createProject(server, org, {}, member.key);
    const task = await createTask(server, project.id, { title: 'by a member' }, member.key);
    const label = await server.request('POST', '/api/labels', { body: { name: unique('label'), organizationId: org }, key: member.key });
    expect(label.status, label.text).toBe(201);
    for (const [path, id] of [
      ['projects', project.id],
      ['tasks', task.id],
      ['labels', label.body.id],
    ] as const) {
      const field = path === 'tasks' ? 'title' : 'name';
      const put = await server.request('PUT', `/api/${path}/${id}`, { body: { [field]: unique('renamed') }, key: member.key });
      expect(put.status, `${path}: ${put.text}`).toBe(200);
    }
    for (const [path, id] of [
      ['tasks', task.id],
      ['labels', label.body.id],
      ['projects', project.id],
    ] as const) {
      const del = await server.request('DELETE', `/api/${path}/${id}`, { key: member.key });
      expect(del.status, `${path}: ${del.text}`).toBe(204);
    }
  });

  describe('every organization-scoped resource, by its declared writers', () => {
    /** A row of `resource` created by the owner where the member belongs (for organizations: a new one the member joins). */
    async function ownerRow(resource: Resource): Promise<Record<string, any>> {
      if (resource.entity === Organization) {
        const created = await createOrganization(server, {}, owner.key);
        await addMember(created.id, member.id, owner.key);
        return created;
      }
      return createRecord(server, resource, { organizationId: org, key: owner.key });
    }

    const allowed = (resource: Resource, action: 'create' | 'update' | 'delete', who: 'member' | 'owner') => {
      const writer = resource.access[action];
      return writer === 'anyone' || writer === 'member' || (writer === 'owner' && who === 'owner');
    };

    for (const resource of orgScoped) {
      it(`${resource.path}: create ${resource.access.create}, update ${resource.access.update}, delete ${resource.access.delete}`, async () => {
        // create
        if (resource.entity !== Organization) {
          const body = await buildCreateBody(server, resource, { organizationId: org, key: owner.key });
          const filter = filterFor(resource, body);
          const existing = await adminCount(resource.path, filter);
          const byMember = await server.request('POST', `/api/${resource.path}`, { body, key: member.key });
          if (!resource.operations.create) {
            // The collection has no create: 405 to everyone, and nothing written.
            expect(byMember.status, byMember.text).toBe(405);
            expect(await adminCount(resource.path, filter)).toBe(existing);
            const byOwner = await server.request('POST', `/api/${resource.path}`, { body, key: owner.key });
            expect(byOwner.status, byOwner.text).toBe(405);
          } else if (allowed(resource, 'create', 'member')) {
            expect(byMember.status, byMember.text).toBe(201);
          } else {
            expect(byMember.status, byMember.text).toBe(403);
            expect(await adminCount(resource.path, filter)).toBe(existing);
            const byOwner = await server.request('POST', `/api/${resource.path}`, { body, key: owner.key });
            expect(byOwner.status, byOwner.text).toBe(allowed(resource, 'create', 'owner') ? 201 : 403);
          }
        }
        // update
        const row = await ownerRow(resource);
        const before = (await adminGet(resource.path, row.id)).body;
        const { field, body } = resource.operations.update ? await buildUpdateBody(server, resource, before) : { field: '', body: {} };
        const memberPut = await server.request('PUT', `/api/${resource.path}/${row.id}`, { body, key: member.key });
        if (!resource.operations.update) {
          // The collection has no update: 405 to everyone, and the row unchanged.
          expect(memberPut.status, memberPut.text).toBe(405);
          const ownerPut = await server.request('PUT', `/api/${resource.path}/${row.id}`, { body, key: owner.key });
          expect(ownerPut.status, ownerPut.text).toBe(405);
          await expectUnchanged(resource.path, before);
        } else if (allowed(resource, 'update', 'member')) {
          expect(memberPut.status, memberPut.text).toBe(200);
          expect(memberPut.body[field]).toBe(body[field]);
        } else {
          expect(memberPut.status, memberPut.text).toBe(403);
          await expectUnchanged(resource.path, before);
          const ownerPut = await server.request('PUT', `/api/${resource.path}/${row.id}`, { body, key: owner.key });
          expect(ownerPut.status, ownerPut.text).toBe(allowed(resource, 'update', 'owner') ? 200 : 403);
        }
        // delete
        const memberDelete = await server.request('DELETE', `/api/${resource.path}/${row.id}`, { key: member.key });
        if (!resource.operations.delete) {
          // The collection has no delete: 405 to everyone, and the row still there.
          expect(memberDelete.status, memberDelete.text).toBe(405);
          const ownerDelete = await server.request('DELETE', `/api/${resource.path}/${row.id}`, { key: owner.key });
          expect(ownerDelete.status, ownerDelete.text).toBe(405);
          expect((await adminGet(resource.path, row.id)).status).toBe(200);
        } else if (allowed(resource, 'delete', 'member')) {
          expect(memberDelete.status, memberDelete.text).toBe(204);
        } else {
          expect(memberDelete.status, memberDelete.text).toBe(403);
          expect((await adminGet(resource.path, row.id)).status).toBe(200);
          const ownerDelete = await server.request('DELETE', `/api/${resource.path}/${row.id}`, { key: owner.key });
          expect(ownerDelete.status, ownerDelete.text).toBe(allowed(resource, 'delete', 'owner') ? 204 : 403);
        }
      });
    }
  });

  it('takes access away from a user whose membership the owner removes', async () => {
    const leaving = await newCaller('Leaving');
    const joined = await addMember(org, leaving.id, owner.key);
    expect((await server.request('GET', `/api/organizations/${org}`, { key: leaving.key })).status).toBe(200);
    const removed = await server.request('DELETE', `/api/team-members/${joined.memberId}`, { key: owner.key });
    expect(removed.status, removed.text).toBe(204);
    const after = await server.request('GET', `/api/organizations/${org}`, { key: leaving.key });
    expect(after.status, after.text).toBe(403);
    expect(await listIds('organizations', { filter: `id==${org}` }, leaving.key)).toEqual([]);
  });
});

describe('users', () => {
  it('are visible to each other only once they share an organization (until then, as if they did not exist)', async () => {
    const [one, two] = await Promise.all([newCaller('One'), newCaller('Two')]);
    const orgOne = (await createOrganization(server, {}, one.key)).id;
    await createOrganization(server, {}, two.key);

    const users = resourceByPath('users');
    expect((await server.request('GET', `/api/users/${two.id}`, { key: one.key })).status).toBe(404);
    expect((await server.request('GET', `/api/users/${one.id}`, { key: two.key })).status).toBe(404);
    expect(await listIds('users', {}, one.key)).toEqual([one.id]);
    const item = await server.graphql(`query($id: ID!) { ${users.itemName}(id: $id) { id email } }`, { id: two.id }, one.key);
    expect(item.body, item.text).toEqual({ data: { [users.itemName]: null } });

    const membership = await addMember(orgOne, two.id, one.key);
    const seen = await server.request('GET', `/api/users/${two.id}`, { key: one.key });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.email).toBe(two.email);
    expect((await server.request('GET', `/api/users/${one.id}`, { key: two.key })).status).toBe(200);
    expect((await listIds('users', {}, one.key)).sort()).toEqual([one.id, two.id].sort());
    expect((await gqlListIds(users, one.key)).sort()).toEqual([one.id, two.id].sort());

    await server.request('DELETE', `/api/team-members/${membership.memberId}`, { key: one.key });
    expect((await server.request('GET', `/api/users/${two.id}`, { key: one.key })).status).toBe(404);
  });

  it('as a member of one organization only, users lists exactly its members (REST, GraphQL, nested)', async () => {
    const [founder, joiner, outsider] = await Promise.all([newCaller('Founder'), newCaller('Joiner'), newCaller('Outsider')]);
    const orgF = (await createOrganization(server, {}, founder.key)).id;
    await createOrganization(server, {}, outsider.key);
    const joined = await addMember(orgF, joiner.id, founder.key);
    const expected = [founder.id, joiner.id].sort();

    expect((await listIds('users', {}, joiner.key)).sort()).toEqual(expected);
    expect((await gqlListIds(resourceByPath('users'), joiner.key)).sort()).toEqual(expected);
    const nested = await server.graphql(
      `{ teams(pageSize: 20) { content { id organizationId members(pageSize: 20) { content { userId user { id email } } } } }
         teamMembers(pageSize: 50) { content { userId user { id } team { organizationId } } } }`,
      undefined,
      joiner.key,
    );
    expect(nested.body.errors, nested.text).toBeUndefined();
    for (const t of nested.body.data.teams.content) expect(t.organizationId).toBe(orgF);
    const memberIds = nested.body.data.teams.content.flatMap((t: any) => t.members.content.map((m: any) => m.user.id));
    expect([...new Set(memberIds)].sort()).toEqual(expected);
    for (const m of nested.body.data.teamMembers.content) expect(m.team.organizationId).toBe(orgF);
    expect(nested.text).not.toContain(outsider.id);
    expect(nested.body.data.teams.content.map((t: any) => t.id)).toContain(joined.teamId);
  });

  it('may update their own names, not their security or active flag (403, unchanged), nor anyone else', async () => {
    const [self, colleague] = await Promise.all([newCaller('Self'), newCaller('Colleague')]);
    const orgS = (await createOrganization(server, {}, self.key)).id;
    await addMember(orgS, colleague.id, self.key);

    const names = await server.request('PUT', `/api/users/${self.id}`, { body: { firstName: 'Ada', lastName: 'Lovelace' }, key: self.key });
    expect(names.status, names.text).toBe(200);
    expect(names.body).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });

    const before = (await adminGet('users', self.id)).body;
    const roles = await server.request('PUT', `/api/users/${self.id}`, { body: { security: { roles: ['PLATFORM_ADMIN'] } }, key: self.key });
    expect(roles.status, roles.text).toBe(403);
    const deactivate = await server.request('PUT', `/api/users/${self.id}`, { body: { active: false }, key: self.key });
    expect(deactivate.status, deactivate.text).toBe(403);
    const mixed = await server.request('PUT', `/api/users/${self.id}`, {
      body: { firstName: 'Grace', security: { roles: ['PLATFORM_ADMIN'] } },
      key: self.key,
    });
    expect(mixed.status, mixed.text).toBe(403);
    const gql = await server.graphql(
      'mutation($id: ID!, $input: PlatformUserUpdateRequest!) { updatePlatformUser(id: $id, input: $input) { id } }',
      { id: self.id, input: { security: { roles: ['PLATFORM_ADMIN'] } } },
      self.key,
    );
    expect(gqlCode(gql), gql.text).toBe('FORBIDDEN');
    await expectUnchanged('users', before);
    // still not an administrator
    expect((await server.request('GET', '/api/users?pageSize=100', { key: self.key })).body.totalElements).toBe(2);

    const other = await server.request('PUT', `/api/users/${colleague.id}`, { body: { firstName: 'Mallory' }, key: self.key });
    expect(other.status, other.text).toBe(403);
    expect((await adminGet('users', colleague.id)).body.firstName).not.toBe('Mallory');
    const create = await server.request('POST', '/api/users', { body: { email: `${unique('made')}@example.test` }, key: self.key });
    expect(create.status, create.text).toBe(403);
    const del = await server.request('DELETE', `/api/users/${colleague.id}`, { key: self.key });
    expect(del.status, del.text).toBe(403);
    expect((await adminGet('users', colleague.id)).body.active).toBe(true);
  });
});

describe('access tokens', () => {
  it('are visible only to their owner (and administrators), even to a colleague', async () => {
    const [holder, colleague] = await Promise.all([newCaller('Holder'), newCaller('Peer')]);
    const shared = (await createOrganization(server, {}, holder.key)).id;
    await addMember(shared, colleague.id, holder.key);
    const tokens = resourceByPath('access-tokens');

    const created = await server.request('POST', '/api/access-tokens', { body: { name: unique('own') }, key: holder.key });
    expect(created.status, created.text).toBe(201);
    expect(created.body.userId).toBe(holder.id);
    const id = created.body.id;

    const mine = await server.request('GET', '/api/access-tokens?pageSize=100', { key: holder.key });
    expect(mine.body.content.map((t: any) => t.id)).toContain(id);
    for (const token of mine.body.content) expect(token.userId).toBe(holder.id);
    expect((await server.request('GET', `/api/access-tokens/${id}`, { key: holder.key })).status).toBe(200);

    expect(await listIds('access-tokens', {}, colleague.key)).not.toContain(id);
    expect(await gqlListIds(tokens, colleague.key)).not.toContain(id);
    for (const token of (await server.request('GET', '/api/access-tokens?pageSize=100', { key: colleague.key })).body.content) {
      expect(token.userId).toBe(colleague.id);
    }
    const get = await server.request('GET', `/api/access-tokens/${id}`, { key: colleague.key });
    expect(get.status, get.text).toBe(403);
    const item = await server.graphql(`query($id: ID!) { ${tokens.itemName}(id: $id) { id } }`, { id }, colleague.key);
    expect(gqlCode(item), item.text).toBe('FORBIDDEN');
    const before = (await adminGet('access-tokens', id)).body;
    const put = await server.request('PUT', `/api/access-tokens/${id}`, { body: { name: 'stolen' }, key: colleague.key });
    expect(put.status, put.text).toBe(403);
    const del = await server.request('DELETE', `/api/access-tokens/${id}`, { key: colleague.key });
    expect(del.status, del.text).toBe(403);
    await expectUnchanged('access-tokens', before);

    const name = unique('forged');
    const forged = await server.request('POST', '/api/access-tokens', { body: { name, userId: holder.id }, key: colleague.key });
    expect(forged.status, forged.text).toBe(403);
    expect(await adminCount('access-tokens', `name=='${name}'`)).toBe(0);

    expect((await adminGet('access-tokens', id)).status).toBe(200);
    const own = await server.request('DELETE', `/api/access-tokens/${id}`, { key: holder.key });
    expect(own.status, own.text).toBe(204);
  });
});
