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

describe('knowledge sets, items and clauses as a member of an organization', () => {
  let member: Caller;
  let organizationId: string;

  beforeAll(async () => {
    member = await newCaller('Knowledge');
    organizationId = (await createOrganization(server, {}, member.key)).id;
  });

  it('creates, reads, lists, updates and deletes a set, an item and a clause over REST', async () => {
    const set = await rest(member, 'POST', '/api/knowledge-sets', 201, {
      organizationId,
      name: 'Contracts',
      slug: 'contracts',
      description: 'clauses of our contracts',
      setType: 'CONTRACT',
      status: 'DRAFT',
    });
    expect(set).toMatchObject({ organizationId, name: 'Contracts', slug: 'contracts', active: true, projectId: null, deleted: false, changeSequence: 0 });

    const item = await rest(member, 'POST', '/api/knowledge-items', 201, {
      knowledgeSetId: set.id,
      title: 'Termination',
      itemTypeRef: 'clause-type://termination',
      properties: { jurisdiction: 'DE' },
    });
    expect(item).toMatchObject({ knowledgeSetId: set.id, title: 'Termination', description: '', properties: { jurisdiction: 'DE' } });

    const clause = await rest(member, 'POST', '/api/knowledge-clauses', 201, { knowledgeItemId: item.id, text: 'Either party may terminate.', sequence: 1 });
    expect(clause).toMatchObject({ knowledgeItemId: item.id, text: 'Either party may terminate.', sequence: 1, properties: {} });

    expect(await rest(member, 'GET', `/api/knowledge-sets/${set.id}`, 200)).toEqual(set);
    expect(await rest(member, 'GET', `/api/knowledge-items/${item.id}`, 200)).toEqual(item);
    expect(await rest(member, 'GET', `/api/knowledge-clauses/${clause.id}`, 200)).toEqual(clause);

    const items = await rest(member, 'GET', `/api/knowledge-items?filter=${encodeURIComponent(`knowledgeSetId=='${set.id}'`)}`, 200);
    expect(items.content.map((row: any) => row.id)).toEqual([item.id]);
    const clauses = await rest(
      member,
      'GET',
      `/api/knowledge-clauses?filter=${encodeURIComponent(`knowledgeItem.knowledgeSet.organizationId=='${organizationId}'`)}`,
      200,
    );
    expect(clauses.content.map((row: any) => row.id)).toEqual([clause.id]);

    const renamed = await rest(member, 'PUT', `/api/knowledge-sets/${set.id}`, 200, { name: 'Contracts 2', active: false, changeSequence: 0 });
    expect(renamed).toMatchObject({ name: 'Contracts 2', active: false, changeSequence: 1 });
    const retitled = await rest(member, 'PUT', `/api/knowledge-items/${item.id}`, 200, { title: 'Termination for cause' });
    expect(retitled).toMatchObject({ title: 'Termination for cause', changeSequence: 1 });
    const resequenced = await rest(member, 'PUT', `/api/knowledge-clauses/${clause.id}`, 200, { sequence: 2, properties: { strict: true } });
    expect(resequenced).toMatchObject({ sequence: 2, properties: { strict: true }, changeSequence: 1 });
    expect(await rest(member, 'GET', `/api/knowledge-clauses/${clause.id}/sequence`, 200)).toBe(1);

    await rest(member, 'DELETE', `/api/knowledge-clauses/${clause.id}`, 204);
    await rest(member, 'GET', `/api/knowledge-clauses/${clause.id}`, 404);
    await rest(member, 'DELETE', `/api/knowledge-items/${item.id}`, 204);
    await rest(member, 'GET', `/api/knowledge-items/${item.id}`, 404);
    await rest(member, 'DELETE', `/api/knowledge-sets/${set.id}`, 204);
    await rest(member, 'GET', `/api/knowledge-sets/${set.id}`, 404);
    const admin = await server.request('GET', `/api/knowledge-sets?filter=${encodeURIComponent(`id=='${set.id}'`)}`);
    expect(admin.body.totalElements, admin.text).toBe(0); // soft-deleted: hidden
  });

  it('hides what a deleted set holds', async () => {
    const set = await rest(member, 'POST', '/api/knowledge-sets', 201, { organizationId, name: unique('Set') });
    const item = await rest(member, 'POST', '/api/knowledge-items', 201, { knowledgeSetId: set.id, title: 'kept' });
    const clause = await rest(member, 'POST', '/api/knowledge-clauses', 201, { knowledgeItemId: item.id, text: 'kept' });
    await rest(member, 'DELETE', `/api/knowledge-sets/${set.id}`, 204);
    await rest(member, 'GET', `/api/knowledge-items/${item.id}`, 404);
    await rest(member, 'GET', `/api/knowledge-clauses/${clause.id}`, 404);
    await rest(member, 'POST', '/api/knowledge-items', 400, { knowledgeSetId: set.id });
  });

  it('creates, reads, lists, updates and deletes a set, an item and a clause over GraphQL', async () => {
    const gql = (query: string, variables?: Record<string, unknown>) => server.graphqlData(query, variables, member.key);
    const created = await gql(
      `mutation($org: ID!) { createKnowledgeSet(input: { organizationId: $org, name: "Policies", setType: "POLICY" }) { id name slug setType active organizationId changeSequence } }`,
      { org: organizationId },
    );
    const set = created.createKnowledgeSet;
    expect(set).toMatchObject({ name: 'Policies', setType: 'POLICY', active: true, organizationId, changeSequence: 0 });
    const item = (
      await gql(
        `mutation($set: ID!) { createKnowledgeItem(input: { knowledgeSetId: $set, title: "Privacy", properties: { a: 1 } }) { id title knowledgeSetId properties } }`,
        {
          set: set.id,
        },
      )
    ).createKnowledgeItem;
    expect(item).toMatchObject({ title: 'Privacy', knowledgeSetId: set.id, properties: { a: 1 } });
    const clause = (
      await gql(
        `mutation($item: ID!) { createKnowledgeClause(input: { knowledgeItemId: $item, text: "We keep nothing.", sequence: 3 }) { id text sequence knowledgeItemId } }`,
        {
          item: item.id,
        },
      )
    ).createKnowledgeClause;
    expect(clause).toMatchObject({ text: 'We keep nothing.', sequence: 3, knowledgeItemId: item.id });

    const read = await gql(`query($id: ID!) { knowledgeClause(id: $id) { id text knowledgeItem { id title knowledgeSet { id name organization { id } } } } }`, {
      id: clause.id,
    });
    expect(read.knowledgeClause).toEqual({
      id: clause.id,
      text: 'We keep nothing.',
      knowledgeItem: { id: item.id, title: 'Privacy', knowledgeSet: { id: set.id, name: 'Policies', organization: { id: organizationId } } },
    });

    const listed = await gql(`query($f: String!) { knowledgeItems(filter: $f) { totalElements content { id } } }`, { f: `knowledgeSetId=='${set.id}'` });
    expect(listed.knowledgeItems).toEqual({ totalElements: 1, content: [{ id: item.id }] });
    const search = await gql(`query($f: String!) { knowledgeSets(filter: $f, query: "polic") { content { id } } }`, {
      f: `organizationId=='${organizationId}'`,
    });
    expect(search.knowledgeSets.content).toEqual([{ id: set.id }]);

    const updated = await gql(
      `mutation($id: ID!) { updateKnowledgeClause(id: $id, input: { text: "We keep little.", changeSequence: 0 }) { text changeSequence } }`,
      { id: clause.id },
    );
    expect(updated.updateKnowledgeClause).toEqual({ text: 'We keep little.', changeSequence: 1 });
    const updatedSet = await gql(`mutation($id: ID!) { updateKnowledgeSet(id: $id, input: { status: "PUBLISHED" }) { status changeSequence } }`, {
      id: set.id,
    });
    expect(updatedSet.updateKnowledgeSet).toEqual({ status: 'PUBLISHED', changeSequence: 1 });

    expect((await gql(`mutation($id: ID!) { deleteKnowledgeClause(id: $id) }`, { id: clause.id })).deleteKnowledgeClause).toBe(true);
    expect((await gql(`query($id: ID!) { knowledgeClause(id: $id) { id } }`, { id: clause.id })).knowledgeClause).toBeNull();
    expect((await gql(`mutation($id: ID!) { deleteKnowledgeItem(id: $id) }`, { id: item.id })).deleteKnowledgeItem).toBe(true);
    expect((await gql(`mutation($id: ID!) { deleteKnowledgeSet(id: $id) }`, { id: set.id })).deleteKnowledgeSet).toBe(true);
    expect((await gql(`query($id: ID!) { knowledgeSet(id: $id) { id } }`, { id: set.id })).knowledgeSet).toBeNull();
  });

  it('reads organization -> knowledgeSets -> items -> clauses with one SQL statement per level', async () => {
    const org = await createOrganization(server, { name: unique('KnowNest') }, member.key);
    const expected: any[] = [];
    for (const s of [0, 1]) {
      const set = await rest(member, 'POST', '/api/knowledge-sets', 201, { organizationId: org.id, name: `set-${s}` });
      const items: any[] = [];
      for (const i of [0, 1]) {
        const item = await rest(member, 'POST', '/api/knowledge-items', 201, { knowledgeSetId: set.id, title: `item-${s}-${i}` });
        const clauses: any[] = [];
        for (const c of [0, 1]) {
          const clause = await rest(member, 'POST', '/api/knowledge-clauses', 201, { knowledgeItemId: item.id, text: `clause-${s}-${i}-${c}`, sequence: c });
          clauses.push({ id: clause.id, text: clause.text });
        }
        items.push({ id: item.id, title: item.title, clauses: { content: clauses } });
      }
      expected.push({ id: set.id, name: set.name, items: { content: items } });
    }

    const levels = [
      `organization(id: $id) { id }`,
      `organization(id: $id) { id knowledgeSets(sort: "name:asc") { content { id name } } }`,
      `organization(id: $id) { id knowledgeSets(sort: "name:asc") { content { id name items(sort: "title:asc") { content { id title } } } } }`,
      `organization(id: $id) { id knowledgeSets(sort: "name:asc") { content { id name items(sort: "title:asc") { content { id title clauses(sort: "sequence:asc") { content { id text } } } } } } }`,
    ];
    const counts: number[] = [];
    let deepest: any;
    for (const selection of levels) {
      const run = await resolvedLevels(selection, { id: org.id }, member.key);
      counts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.organization).toEqual({ id: org.id, knowledgeSets: { content: expected } });
    expect(counts[0]).toBeGreaterThan(0);
    expect(
      counts.slice(1).map((count, i) => count - counts[i]),
      `statements: ${counts}`,
    ).toEqual([1, 1, 1]);
  });

  it('refuses a second binding of the same resource to a project with 409', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    // Kinds the server does not look up (it checks bridges and stores) keep the test to uniqueness.
    const body = { projectId: project.id, resourceType: 'EXTERNAL_LINK', resourceId: unique('link'), resourceUri: 'link://acme/crm' };
    const first = await rest(member, 'POST', '/api/project-resources', 201, body);
    expect(first).toMatchObject(body);
    const again = await rest(member, 'POST', '/api/project-resources', 409, { ...body, resourceUri: 'link://other' });
    expect(again).toMatchObject({ status: 409, error: 'Conflict' });
    // Another type, or another project, is a different binding.
    await rest(member, 'POST', '/api/project-resources', 201, { ...body, resourceType: 'EXTERNAL_FEED' });
    const other = await createProject(server, organizationId, {}, member.key);
    await rest(member, 'POST', '/api/project-resources', 201, { ...body, projectId: other.id });
    // An update that makes a row collide is refused too.
    const third = await rest(member, 'POST', '/api/project-resources', 201, { ...body, resourceId: unique('link') });
    await rest(member, 'PUT', `/api/project-resources/${third.id}`, 409, { resourceId: body.resourceId });
  });

  it('keeps any JSON value in a workspace storage', async () => {
    const project = await createProject(server, organizationId, {}, member.key);
    for (const storage of [{ tabs: ['a'] }, ['x', 1], 'text', 42, true, null]) {
      const created = await rest(member, 'POST', '/api/workspaces', 201, { projectId: project.id, name: unique('Space'), storage });
      expect(created.storage).toEqual(storage);
      expect((await rest(member, 'GET', `/api/workspaces/${created.id}`, 200)).storage).toEqual(storage);
    }
  });

  it('gives data definitions slugs unique within the organization', async () => {
    const name = unique('Invoice Fields');
    const first = await rest(member, 'POST', '/api/data-definitions', 201, {
      organizationId,
      name,
      taxons: [{ name: 'total', label: 'Total', cardinality: 'ONCE_PER_DOCUMENT', valuePath: 'VALUE_ONLY', children: [] }],
    });
    const second = await rest(member, 'POST', '/api/data-definitions', 201, { organizationId, name });
    expect(first).toMatchObject({ enabled: true, taxons: [{ name: 'total' }] });
    expect(second.slug).toBe(`${first.slug}-1`);
    await rest(member, 'POST', '/api/data-definitions', 400, { organizationId, name, taxons: {} });
  });

  it('answers 403 to a member of another organization reading a clause', async () => {
    const set = await rest(member, 'POST', '/api/knowledge-sets', 201, { organizationId, name: unique('Private') });
    const item = await rest(member, 'POST', '/api/knowledge-items', 201, { knowledgeSetId: set.id, title: 'secret' });
    const clause = await rest(member, 'POST', '/api/knowledge-clauses', 201, { knowledgeItemId: item.id, text: 'secret' });

    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    const answer = await rest(stranger, 'GET', `/api/knowledge-clauses/${clause.id}`, 403);
    expect(answer).toMatchObject({ status: 403 });
    const listed = await rest(stranger, 'GET', `/api/knowledge-clauses?filter=${encodeURIComponent(`id=='${clause.id}'`)}`, 200);
    expect(listed.totalElements).toBe(0);
    const viaGraphql = await server.graphql(`query($id: ID!) { knowledgeClause(id: $id) { id } }`, { id: clause.id }, stranger.key);
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    // Nor may they add a clause under that item.
    await rest(stranger, 'POST', '/api/knowledge-clauses', 403, { knowledgeItemId: item.id, text: 'intrusion' });
  });
});
