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

const q = (filter: string) => encodeURIComponent(filter);

describe('document stores, data stores, document families and content objects as a member', () => {
  let member: Caller;
  let organization: { id: string; slug: string };

  beforeAll(async () => {
    member = await newCaller('Documents');
    organization = await createOrganization(server, {}, member.key);
  });

  it('creates, reads, lists, updates and deletes a store, a family and a content object over REST', async () => {
    const store = await rest(member, 'POST', '/api/document-stores', 201, {
      organizationId: organization.id,
      name: 'Invoices',
      storePurpose: 'OPERATIONAL',
      contentMetadata: { indexed: true, documentProperties: { lang: 'en' }, labelExpressions: ['a=1'] },
    });
    expect(store).toMatchObject({
      organizationId: organization.id,
      name: 'Invoices',
      slug: 'invoices',
      description: '',
      storePurpose: 'OPERATIONAL',
      indexed: true,
      documentProperties: { lang: 'en' },
      labelExpressions: ['a=1'],
      contentMetadata: { indexed: true, documentProperties: { lang: 'en' }, labelExpressions: ['a=1'] },
      deleted: false,
      changeSequence: 0,
    });
    const second = await rest(member, 'POST', '/api/document-stores', 201, { organizationId: organization.id, name: 'Invoices' });
    expect(second.slug).toBe('invoices-1');
    expect(second).toMatchObject({
      indexed: false,
      documentProperties: {},
      labelExpressions: [],
      contentMetadata: { indexed: false, documentProperties: {}, labelExpressions: [] },
    });

    const family = await rest(member, 'POST', '/api/document-families', 201, {
      documentStoreId: store.id,
      path: 'in/2026/a.pdf',
      originalPath: 'a.pdf',
      size: 1234,
      mixins: ['invoice'],
      metadata: { vendor: 'ACME' },
      created: '2026-11-01T09:00:00.000Z',
      executionTargets: { instances: [{ type: 'DOCUMENT_STORE', ref: 'x' }] },
      labels: [{ name: 'urgent' }],
      storeRef: 'someone/else',
      locked: true,
      statistics: { recentExecutions: [1] },
    });
    expect(family).toMatchObject({
      documentStoreId: store.id,
      storeRef: `${organization.slug}/invoices`,
      path: 'in/2026/a.pdf',
      originalPath: 'a.pdf',
      summary: null,
      size: 1234,
      locked: false,
      lockedAt: null,
      lockedById: null,
      pendingProcessing: false,
      mixins: ['invoice'],
      metadata: { vendor: 'ACME' },
      metadataSource: {},
      created: '2026-11-01T09:00:00.000Z',
      modified: null,
      documentStatusId: null,
      documentStatus: null,
      documentTaxonValidations: [],
      executionTargets: { instances: [{ type: 'DOCUMENT_STORE', ref: 'x' }] },
      statistics: {},
      labels: [{ name: 'urgent' }],
      features: [],
    });

    const content = await rest(member, 'POST', '/api/content-objects', 201, {
      documentFamilyId: family.id,
      name: 'a.pdf',
      documentVersion: '1',
      index: 0,
      contentType: 2,
      size: 1234,
      mixins: ['native'],
      contentMetadata: { pages: 3 },
      source: { checksum: 'abc', mime_type: 'application/pdf', original_filename: 'a.pdf', headers: { h: 'v' } },
    });
    expect(content).toMatchObject({
      documentFamilyId: family.id,
      name: 'a.pdf',
      documentVersion: '1',
      index: 0,
      contentType: 2,
      size: 1234,
      mixins: ['native'],
      contentMetadata: { pages: 3 },
      metadata: {},
      documentTaxonValidations: [],
      source: { checksum: 'abc', mime_type: 'application/pdf', original_filename: 'a.pdf', headers: { h: 'v' } },
      created: null,
      deleted: false,
    });

    expect(await rest(member, 'GET', `/api/document-stores/${store.id}`, 200)).toEqual(store);
    // The family now embeds its content object.
    expect(await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).toEqual({ ...family, contentObjects: [content] });
    expect(await rest(member, 'GET', `/api/content-objects/${content.id}`, 200)).toEqual(content);
    const listed = await rest(member, 'GET', `/api/content-objects?filter=${q(`documentFamily.documentStoreId=='${store.id}'`)}`, 200);
    expect(listed.content.map((row: any) => row.id)).toEqual([content.id]);

    // storeRef is the server's, and the store never changes.
    const moved = await rest(member, 'PUT', `/api/document-families/${family.id}`, 200, { storeRef: 'x/y', documentStoreId: second.id, summary: 'An invoice' });
    expect(moved).toMatchObject({ storeRef: `${organization.slug}/invoices`, documentStoreId: store.id, summary: 'An invoice', changeSequence: 1 });
    const changed = await rest(member, 'PUT', `/api/content-objects/${content.id}`, 200, { summary: 'first page', changeSequence: 0 });
    expect(changed).toMatchObject({ summary: 'first page', changeSequence: 1 });

    await rest(member, 'DELETE', `/api/content-objects/${content.id}`, 204);
    await rest(member, 'GET', `/api/content-objects/${content.id}`, 404);
    await rest(member, 'DELETE', `/api/document-families/${family.id}`, 204);
    await rest(member, 'GET', `/api/document-families/${family.id}`, 404);
    await rest(member, 'DELETE', `/api/document-stores/${store.id}`, 204);
    await rest(member, 'GET', `/api/document-stores/${store.id}`, 404);
    const admin = await server.request('GET', `/api/document-stores?filter=${q(`id=='${store.id}'`)}`);
    expect(admin.body.totalElements, admin.text).toBe(0); // soft-deleted: hidden
  });

  it('keeps contentMetadata and the flat keys in step, whichever form a write uses', async () => {
    for (const path of ['document-stores', 'data-stores']) {
      const created = await rest(member, 'POST', `/api/${path}`, 201, {
        organizationId: organization.id,
        name: unique('Store'),
        contentMetadata: { indexed: true, documentProperties: { a: 1 }, labelExpressions: ['x'] },
      });
      const read = await rest(member, 'GET', `/api/${path}/${created.id}`, 200);
      expect(read).toMatchObject({ indexed: true, documentProperties: { a: 1 }, labelExpressions: ['x'] });

      const flat = await rest(member, 'PUT', `/api/${path}/${created.id}`, 200, { indexed: false, labelExpressions: ['y', 'z'] });
      expect(flat.contentMetadata).toEqual({ indexed: false, documentProperties: { a: 1 }, labelExpressions: ['y', 'z'] });
      expect((await rest(member, 'GET', `/api/${path}/${created.id}`, 200)).contentMetadata).toEqual({
        indexed: false,
        documentProperties: { a: 1 },
        labelExpressions: ['y', 'z'],
      });

      // A partial nested object changes only its keys.
      const nested = await rest(member, 'PUT', `/api/${path}/${created.id}`, 200, { contentMetadata: { documentProperties: { b: 2 } } });
      expect(nested).toMatchObject({ indexed: false, documentProperties: { b: 2 }, labelExpressions: ['y', 'z'] });
      expect(nested.contentMetadata).toEqual({ indexed: false, documentProperties: { b: 2 }, labelExpressions: ['y', 'z'] });

      // Both forms: the flat keys win for the keys they carry, also when equal to the stored value.
      const both = await rest(member, 'PUT', `/api/${path}/${created.id}`, 200, {
        indexed: false,
        contentMetadata: { indexed: true, labelExpressions: ['w'] },
      });
      expect(both).toMatchObject({
        indexed: false,
        labelExpressions: ['w'],
        contentMetadata: { indexed: false, documentProperties: { b: 2 }, labelExpressions: ['w'] },
      });
      const createdBoth = await rest(member, 'POST', `/api/${path}`, 201, {
        organizationId: organization.id,
        name: unique('Store'),
        indexed: false,
        contentMetadata: { indexed: true, documentProperties: { c: 3 } },
      });
      expect(createdBoth.contentMetadata).toEqual({ indexed: false, documentProperties: { c: 3 }, labelExpressions: [] });

      const wrong = await rest(member, 'PUT', `/api/${path}/${created.id}`, 400, { contentMetadata: { indexed: 'yes', other: 1 } });
      expect(wrong.details.map((d: any) => d.field).sort()).toEqual(['contentMetadata.indexed', 'contentMetadata.other']);
    }
  });

  it('embeds the document status, set by id or object, cleared with null, filtered on, and refused from another organization', async () => {
    const project = await createProject(server, organization.id, {}, member.key);
    const reviewed = await rest(member, 'POST', '/api/document-statuses', 201, { projectId: project.id, status: 'Reviewed', statusType: 'RESOLVED' });
    const open = await rest(member, 'POST', '/api/document-statuses', 201, { projectId: project.id, status: 'Open', statusType: 'UNRESOLVED' });
    const store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId: organization.id, name: unique('Statuses') });

    const family = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: 'a', documentStatusId: reviewed.id });
    expect(family.documentStatus).toMatchObject({ id: reviewed.id, status: 'Reviewed', statusType: 'RESOLVED', projectId: project.id });
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).documentStatus).toMatchObject({ id: reviewed.id, status: 'Reviewed' });
    const other = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: 'b', documentStatus: { id: open.id } });
    expect(other).toMatchObject({ documentStatusId: open.id, documentStatus: { id: open.id, status: 'Open' } });

    const byStatus = await rest(member, 'GET', `/api/document-families?filter=${q(`documentStatus.status=='Reviewed';documentStoreId=='${store.id}'`)}`, 200);
    expect(byStatus.content.map((row: any) => row.id)).toEqual([family.id]);
    expect(byStatus.content[0].documentStatus).toMatchObject({ id: reviewed.id, status: 'Reviewed' });
    const byType = await rest(
      member,
      'GET',
      `/api/document-families?filter=${q(`documentStatus.statusType=='UNRESOLVED';documentStoreId=='${store.id}'`)}`,
      200,
    );
    expect(byType.content.map((row: any) => row.id)).toEqual([other.id]);

    const switched = await rest(member, 'PUT', `/api/document-families/${family.id}`, 200, { documentStatus: { id: open.id } });
    expect(switched).toMatchObject({ documentStatusId: open.id, documentStatus: { id: open.id, status: 'Open' } });
    const cleared = await rest(member, 'PUT', `/api/document-families/${family.id}`, 200, { documentStatusId: null });
    expect(cleared).toMatchObject({ documentStatusId: null, documentStatus: null });
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).documentStatus).toBeNull();
    const set = await rest(member, 'PUT', `/api/document-families/${family.id}`, 200, { documentStatusId: reviewed.id });
    expect(set.documentStatus).toMatchObject({ id: reviewed.id });
    expect((await rest(member, 'PUT', `/api/document-families/${family.id}`, 200, { documentStatus: null })).documentStatus).toBeNull();

    // A status of a project of another of the member's organizations is refused.
    const elsewhere = await createOrganization(server, {}, member.key);
    const foreignProject = await createProject(server, elsewhere.id, {}, member.key);
    const foreign = await rest(member, 'POST', '/api/document-statuses', 201, { projectId: foreignProject.id, status: 'Foreign' });
    const refused = await rest(member, 'PUT', `/api/document-families/${family.id}`, 400, { documentStatusId: foreign.id });
    expect(refused.details?.[0]?.field, JSON.stringify(refused)).toBe('documentStatusId');
    await rest(member, 'POST', '/api/document-families', 400, { documentStoreId: store.id, documentStatus: { id: foreign.id } });
    expect((await rest(member, 'GET', `/api/document-families/${family.id}`, 200)).documentStatus).toBeNull();
  });

  it('creates and reads a store, a family and a content object over GraphQL', async () => {
    const gql = (query: string, variables?: Record<string, unknown>) => server.graphqlData(query, variables, member.key);
    const store = (
      await gql(
        `mutation($org: ID!) { createDocumentStore(input: { organizationId: $org, name: "Contracts", indexed: true, labelExpressions: ["l"] }) { id slug indexed labelExpressions contentMetadata } }`,
        { org: organization.id },
      )
    ).createDocumentStore;
    expect(store).toMatchObject({
      slug: 'contracts',
      indexed: true,
      labelExpressions: ['l'],
      contentMetadata: { indexed: true, documentProperties: {}, labelExpressions: ['l'] },
    });
    const data = (
      await gql(
        `mutation($org: ID!) { createDataStore(input: { organizationId: $org, name: "Facts", contentMetadata: { indexed: true } }) { id slug indexed } }`,
        {
          org: organization.id,
        },
      )
    ).createDataStore;
    expect(data).toMatchObject({ slug: 'facts', indexed: true });
    const family = (
      await gql(
        `mutation($s: ID!) { createDocumentFamily(input: { documentStoreId: $s, path: "c.docx", size: 9 }) { id storeRef path size locked documentStatusId } }`,
        {
          s: store.id,
        },
      )
    ).createDocumentFamily;
    expect(family).toMatchObject({ storeRef: `${organization.slug}/contracts`, path: 'c.docx', size: 9, locked: false, documentStatusId: null });
    const content = (
      await gql(
        `mutation($f: ID!, $src: JSON) { createContentObject(input: { documentFamilyId: $f, name: "c.docx", index: 1, source: $src }) { id name index source } }`,
        {
          f: family.id,
          src: { mime_type: 'application/msword' },
        },
      )
    ).createContentObject;
    expect(content).toMatchObject({ name: 'c.docx', index: 1, source: { mime_type: 'application/msword' } });

    const read = await gql(`query($id: ID!) { contentObject(id: $id) { id documentFamily { id storeRef documentStore { id slug organization { id } } } } }`, {
      id: content.id,
    });
    expect(read.contentObject).toEqual({
      id: content.id,
      documentFamily: {
        id: family.id,
        storeRef: `${organization.slug}/contracts`,
        documentStore: { id: store.id, slug: 'contracts', organization: { id: organization.id } },
      },
    });
    const updated = await gql(
      `mutation($id: ID!) { updateDocumentStore(id: $id, input: { contentMetadata: { indexed: false } }) { indexed contentMetadata changeSequence } }`,
      {
        id: store.id,
      },
    );
    expect(updated.updateDocumentStore).toEqual({
      indexed: false,
      contentMetadata: { indexed: false, documentProperties: {}, labelExpressions: ['l'] },
      changeSequence: 1,
    });

    expect((await gql(`mutation($id: ID!) { deleteContentObject(id: $id) }`, { id: content.id })).deleteContentObject).toBe(true);
    expect((await gql(`query($id: ID!) { contentObject(id: $id) { id } }`, { id: content.id })).contentObject).toBeNull();
  });

  it('reads organization -> documentStores -> documentFamilies -> contentObjects with one SQL statement per level', async () => {
    const org = await createOrganization(server, { name: unique('DocNest') }, member.key);
    const expected: any[] = [];
    for (const s of [0, 1]) {
      const store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId: org.id, name: `store-${s}` });
      const families: any[] = [];
      for (const f of [0, 1]) {
        const family = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id, path: `path-${s}-${f}` });
        const contents: any[] = [];
        for (const c of [0, 1]) {
          const content = await rest(member, 'POST', '/api/content-objects', 201, { documentFamilyId: family.id, name: `content-${s}-${f}-${c}`, index: c });
          contents.push({ id: content.id, name: content.name });
        }
        families.push({ id: family.id, path: family.path, contentObjects: { content: contents } });
      }
      expected.push({ id: store.id, name: store.name, documentFamilies: { content: families } });
    }

    const levels = [
      `organization(id: $id) { id }`,
      `organization(id: $id) { id documentStores(sort: "name:asc") { content { id name } } }`,
      `organization(id: $id) { id documentStores(sort: "name:asc") { content { id name documentFamilies(sort: "path:asc") { content { id path } } } } }`,
      `organization(id: $id) { id documentStores(sort: "name:asc") { content { id name documentFamilies(sort: "path:asc") { content { id path contentObjects(sort: "index:asc") { content { id name } } } } } } }`,
    ];
    const counts: number[] = [];
    let deepest: any;
    for (const selection of levels) {
      const run = await resolvedLevels(selection, { id: org.id }, member.key);
      counts.push(run.statements);
      deepest = run.data;
    }
    expect(deepest.organization).toEqual({ id: org.id, documentStores: { content: expected } });
    expect(counts[0]).toBeGreaterThan(0);
    expect(
      counts.slice(1).map((count, i) => count - counts[i]),
      `statements: ${counts}`,
    ).toEqual([1, 1, 1]);
  });

  it('answers 403 to a member of another organization reading a content object', async () => {
    const store = await rest(member, 'POST', '/api/document-stores', 201, { organizationId: organization.id, name: unique('Private') });
    const family = await rest(member, 'POST', '/api/document-families', 201, { documentStoreId: store.id });
    const content = await rest(member, 'POST', '/api/content-objects', 201, { documentFamilyId: family.id, name: 'secret' });

    const stranger = await newCaller('Stranger');
    await createOrganization(server, {}, stranger.key);
    expect(await rest(stranger, 'GET', `/api/content-objects/${content.id}`, 403)).toMatchObject({ status: 403 });
    const listed = await rest(stranger, 'GET', `/api/content-objects?filter=${q(`id=='${content.id}'`)}`, 200);
    expect(listed.totalElements).toBe(0);
    const viaGraphql = await server.graphql(`query($id: ID!) { contentObject(id: $id) { id } }`, { id: content.id }, stranger.key);
    expect(viaGraphql.body?.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    await rest(stranger, 'PUT', `/api/content-objects/${content.id}`, 403, { name: 'mine' });
    await rest(stranger, 'POST', '/api/content-objects', 403, { documentFamilyId: family.id });
    expect((await rest(member, 'GET', `/api/content-objects/${content.id}`, 200)).name).toBe('secret');
  });
});
