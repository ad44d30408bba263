import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '../src/errors/api-error';
import { parsePaging } from '../src/query/paging';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** GET a listing with the given query parameters (properly encoded). */
function list(path: string, params: Record<string, string | number> = {}): Promise<Answer> {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const query = search.toString();
  return server.request('GET', `${path}${query ? `?${query}` : ''}`);
}

/** A listing that must succeed; returns the page body. */
async function page(path: string, params: Record<string, string | number> = {}) {
  const answer = await list(path, params);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

function expectBadRequest(answer: Answer, parameter: RegExp): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body).toMatchObject({ error: 'Bad Request', status: 400 });
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message).toMatch(parameter);
  expect(answer.text).not.toMatch(/\n\s+at /);
  expect(answer.body).not.toHaveProperty('stack');
}

const names = (body: { content: { name: string }[] }) => body.content.map((item) => item.name);
const titles = (body: { content: { title: string }[] }) => body.content.map((item) => item.title);

describe('page answer and paging parameters (general listings: 0-indexed, 10 by default, at most 100)', () => {
  let org: any;
  let created: any[];
  let byOrg: string;

  beforeAll(async () => {
    org = await createOrganization(server, { slug: unique('paging') });
    byOrg = `organizationId=='${org.id}'`;
    created = [];
    for (let i = 0; i < 12; i += 1) {
      created.push(await createProject(server, org.id, { name: `Paged ${String(i).padStart(2, '0')}` }));
    }
  });

  it('answers with every key of the page object, pageable and sort included', async () => {
    const body = await page('/api/projects', { filter: byOrg, page: 1, pageSize: 5 });
    expect(Object.keys(body).sort()).toEqual(
      ['content', 'first', 'last', 'number', 'numberOfElements', 'pageable', 'size', 'sort', 'totalElements', 'totalPages'].sort(),
    );
    expect(body).toMatchObject({
      first: false,
      last: false,
      number: 1,
      numberOfElements: 5,
      size: 5,
      totalElements: 12,
      totalPages: 3,
      pageable: {
        offset: 5,
        pageNumber: 1,
        pageSize: 5,
        paged: true,
        unpaged: false,
        sort: { empty: true, sorted: false, unsorted: true },
      },
      sort: { empty: true, sorted: false, unsorted: true },
    });
    expect(Object.keys(body.pageable).sort()).toEqual(['offset', 'pageNumber', 'pageSize', 'paged', 'sort', 'unpaged']);
    expect(Object.keys(body.sort).sort()).toEqual(['empty', 'sorted', 'unsorted']);
    expect(body.content).toHaveLength(5);
  });

  it('is 0-indexed: page 0 is the first page and page defaults to 0', async () => {
    const first = await page('/api/projects', { filter: byOrg, pageSize: 5 });
    const zero = await page('/api/projects', { filter: byOrg, page: 0, pageSize: 5 });
    expect(first.number).toBe(0);
    expect(first.first).toBe(true);
    expect(first.last).toBe(false);
    expect(first.pageable.offset).toBe(0);
    expect(first.content.map((p: any) => p.id)).toEqual(zero.content.map((p: any) => p.id));
    expect(first.content.map((p: any) => p.id)).toEqual(created.slice(0, 5).map((p) => p.id));
  });

  it('reports the last page with the remaining elements', async () => {
    const body = await page('/api/projects', { filter: byOrg, page: 2, pageSize: 5 });
    expect(body).toMatchObject({ number: 2, numberOfElements: 2, first: false, last: true, totalElements: 12, totalPages: 3 });
    expect(body.content.map((p: any) => p.id)).toEqual(created.slice(10).map((p) => p.id));
  });

  it('walks every element exactly once across pages', async () => {
    const seen: string[] = [];
    for (let number = 0; number < 4; number += 1) {
      const body = await page('/api/projects', { filter: byOrg, page: number, pageSize: 4 });
      seen.push(...body.content.map((p: any) => p.id));
    }
    expect(seen).toHaveLength(12);
    expect(new Set(seen)).toEqual(new Set(created.map((p) => p.id)));
  });

  it('answers an empty page past the end', async () => {
    const body = await page('/api/projects', { filter: byOrg, page: 7, pageSize: 5 });
    expect(body).toMatchObject({ content: [], number: 7, numberOfElements: 0, totalElements: 12, totalPages: 3, last: true, first: false });
    const far = await page('/api/projects', { filter: byOrg, page: 2147483647, pageSize: 100 });
    expect(far.content).toEqual([]);
    expect(far.totalElements).toBe(12);
  });

  it('answers an empty listing with zero pages', async () => {
    const body = await page('/api/projects', { filter: `${byOrg} and name=='${unique('nothing')}'` });
    expect(body).toMatchObject({ content: [], totalElements: 0, totalPages: 0, numberOfElements: 0, number: 0, first: true, last: true });
  });

  it('uses 10 as the default page size', async () => {
    const body = await page('/api/projects', { filter: byOrg });
    expect(body.size).toBe(10);
    expect(body.pageable.pageSize).toBe(10);
    expect(body.content).toHaveLength(10);
    expect(body.totalPages).toBe(2);
  });

  it('accepts page sizes 1 and 100', async () => {
    const one = await page('/api/projects', { filter: byOrg, pageSize: 1 });
    expect(one.content).toHaveLength(1);
    expect(one.totalPages).toBe(12);
    const hundred = await page('/api/projects', { filter: byOrg, pageSize: 100 });
    expect(hundred.size).toBe(100);
    expect(hundred.content).toHaveLength(12);
    expect(hundred.totalPages).toBe(1);
  });

  it.each([['101'], ['0'], ['-1'], ['1000']])('refuses pageSize=%s with 400 naming pageSize', async (value) => {
    expectBadRequest(await list('/api/projects', { pageSize: value }), /pageSize/);
  });

  it.each([['abc'], ['2.5'], ['1e1'], ['ten']])('refuses a non-integer pageSize=%s with 400 naming pageSize', async (value) => {
    expectBadRequest(await list('/api/projects', { pageSize: value }), /pageSize/);
  });

  it.each([['-1'], ['abc'], ['1.5'], ['first']])('refuses page=%s with 400 naming page', async (value) => {
    expectBadRequest(await list('/api/projects', { page: value }), /\bpage\b/);
  });

  it('applies the same paging rules to every general listing', async () => {
    for (const path of ['/api/organizations', '/api/tasks', '/api/labels', '/api/teams', '/api/users']) {
      const body = await page(path, { pageSize: 1 });
      expect(body.size, path).toBe(1);
      expect(body.number, path).toBe(0);
      expectBadRequest(await list(path, { pageSize: 101 }), /pageSize/);
      expectBadRequest(await list(path, { page: -1 }), /\bpage\b/);
    }
  });
});

describe('parsePaging, one-based flavour (data-forms and assistants listings)', () => {
  function expectPagingError(work: () => unknown, parameter: string): void {
    let thrown: unknown;
    try {
      work();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BadRequestError);
    const error = thrown as BadRequestError;
    expect(error.status).toBe(400);
    expect(error.details?.map((d) => d.field)).toEqual([parameter]);
  }

  it('defaults to the first page (1) and 20 per page, returned zero-based', () => {
    expect(parsePaging('one-based', undefined, undefined)).toEqual({ page: 0, pageSize: 20 });
    expect(parsePaging('one-based', '', '')).toEqual({ page: 0, pageSize: 20 });
  });

  it('turns page 1 into the zero-based page 0 and page 3 into 2', () => {
    expect(parsePaging('one-based', '1', '20')).toEqual({ page: 0, pageSize: 20 });
    expect(parsePaging('one-based', '3', '7')).toEqual({ page: 2, pageSize: 7 });
    expect(parsePaging('one-based', 3, 7)).toEqual({ page: 2, pageSize: 7 });
  });

  it('accepts page sizes from 1 to 1000', () => {
    expect(parsePaging('one-based', '1', '1').pageSize).toBe(1);
    expect(parsePaging('one-based', '1', '1000').pageSize).toBe(1000);
  });

  it('refuses page 0 and negative pages', () => {
    expectPagingError(() => parsePaging('one-based', '0', undefined), 'page');
    expectPagingError(() => parsePaging('one-based', '-1', undefined), 'page');
  });

  it('refuses page sizes 0 and 1001', () => {
    expectPagingError(() => parsePaging('one-based', undefined, '0'), 'pageSize');
    expectPagingError(() => parsePaging('one-based', undefined, '1001'), 'pageSize');
  });

  it('refuses non-integer values', () => {
    expectPagingError(() => parsePaging('one-based', '1.5', undefined), 'page');
    expectPagingError(() => parsePaging('one-based', 'x', undefined), 'page');
    expectPagingError(() => parsePaging('one-based', undefined, '20.5'), 'pageSize');
  });

  it('keeps the zero-based flavour at 0 / 10 / max 100', () => {
    expect(parsePaging('zero-based', undefined, undefined)).toEqual({ page: 0, pageSize: 10 });
    expect(parsePaging('zero-based', '0', '100')).toEqual({ page: 0, pageSize: 100 });
    expectPagingError(() => parsePaging('zero-based', undefined, '101'), 'pageSize');
  });
});

describe('filter', () => {
  let org: any;
  let other: any;
  let alpha: any;
  let beta: any;
  let foreign: any;
  let tasks: any[];
  let byOrg: string;
  let tasksOfOrg: string;

  beforeAll(async () => {
    org = await createOrganization(server, { slug: unique('filter') });
    other = await createOrganization(server, { slug: unique('filter-other') });
    byOrg = `organizationId=='${org.id}'`;
    alpha = await createProject(server, org.id, { name: 'Alpha one', description: 'the first' });
    beta = await createProject(server, org.id, { name: 'Beta two', description: 'the second' });
    await createProject(server, org.id, { name: 'Gamma three', description: 'the third' });
    await createProject(server, org.id, { name: 'a_b' });
    await createProject(server, org.id, { name: 'axb' });
    foreign = await createProject(server, other.id, { name: 'Alpha one' });
    const statuses = ['open', 'open', 'done', null, 'review'];
    tasks = [];
    for (let priority = 0; priority < 5; priority += 1) {
      tasks.push(await createTask(server, priority < 3 ? alpha.id : beta.id, { title: `Task ${priority}`, priority, statusSlug: statuses[priority] }));
    }
    await createTask(server, foreign.id, { title: 'Foreign task', priority: 3, statusSlug: 'open' });
    tasksOfOrg = `project.organizationId=='${org.id}'`;
  });

  const filtered = async (path: string, filter: string, extra: Record<string, string | number> = {}) => page(path, { filter, pageSize: 100, ...extra });

  it('== on a string, single-quoted with a space', async () => {
    expect(names(await filtered('/api/projects', `${byOrg} and name=='Alpha one'`))).toEqual(['Alpha one']);
  });

  it('combines with the words and / or and parentheses', async () => {
    const body = await filtered('/api/projects', `${byOrg} and (name=='Alpha one' or name=='Gamma three')`, { sort: 'name' });
    expect(names(body)).toEqual(['Alpha one', 'Gamma three']);
  });

  it('combines with the RSQL ; (and) and , (or)', async () => {
    const body = await filtered('/api/projects', `${byOrg};(name=='Alpha one',name=='Beta two')`, { sort: 'name' });
    expect(names(body)).toEqual(['Alpha one', 'Beta two']);
  });

  it('mixes both spellings', async () => {
    const body = await filtered('/api/projects', `${byOrg};(name=='Alpha one' or name=='Beta two')`, { sort: 'name' });
    expect(names(body)).toEqual(['Alpha one', 'Beta two']);
    const again = await filtered('/api/projects', `${byOrg} and (name=='Alpha one',name=='Beta two')`, { sort: 'name' });
    expect(names(again)).toEqual(['Alpha one', 'Beta two']);
  });

  it('gives and precedence over or, and parentheses override it', async () => {
    // (this org and Alpha) or the other org's project: two rows.
    const plain = await filtered('/api/projects', `${byOrg} and id=='${alpha.id}' or id=='${foreign.id}'`);
    expect(new Set(plain.content.map((p: any) => p.id))).toEqual(new Set([alpha.id, foreign.id]));
    // this org and (Alpha or the other org's project): one row.
    const grouped = await filtered('/api/projects', `${byOrg} and (id=='${alpha.id}' or id=='${foreign.id}')`);
    expect(grouped.content.map((p: any) => p.id)).toEqual([alpha.id]);
    const rsql = await filtered('/api/projects', `${byOrg};(id==${alpha.id},id==${foreign.id})`);
    expect(rsql.content.map((p: any) => p.id)).toEqual([alpha.id]);
  });

  it('!= excludes the value', async () => {
    const body = await filtered('/api/projects', `${byOrg} and name!='Alpha one'`, { sort: 'name' });
    expect(names(body).sort()).toEqual(['Beta two', 'Gamma three', 'a_b', 'axb']);
    expect(body.totalElements).toBe(4);
  });

  it('=like= takes * as the wildcard and ignores case', async () => {
    expect(names(await filtered('/api/projects', `${byOrg} and name=like='*ALPHA*'`))).toEqual(['Alpha one']);
    expect(names(await filtered('/api/projects', `${byOrg} and name=like='gam*'`))).toEqual(['Gamma three']);
    expect(names(await filtered('/api/projects', `${byOrg} and name=like='*TWO'`))).toEqual(['Beta two']);
    expect((await filtered('/api/projects', `${byOrg} and name=like='*'`)).totalElements).toBe(5);
    expect((await filtered('/api/projects', `${byOrg} and name=like='alpha'`)).totalElements).toBe(0);
  });

  it('=like= matches SQL wildcard characters literally', async () => {
    expect(names(await filtered('/api/projects', `${byOrg} and name=like='a_b'`))).toEqual(['a_b']);
    expect((await filtered('/api/projects', `${byOrg} and name=like='%'`)).totalElements).toBe(0);
  });

  it('=in= matches any of the listed values', async () => {
    const body = await filtered('/api/projects', `${byOrg} and name=in=('Alpha one','Gamma three','Nope')`, { sort: 'name' });
    expect(names(body)).toEqual(['Alpha one', 'Gamma three']);
    const ids = await filtered('/api/projects', `id=in=(${alpha.id},${beta.id})`, { sort: 'name' });
    expect(names(ids)).toEqual(['Alpha one', 'Beta two']);
  });

  it('compares numbers with > >= < <= and ==', async () => {
    const pick = async (condition: string) => titles(await filtered('/api/tasks', `${tasksOfOrg} and ${condition}`, { sort: 'priority:asc' }));
    expect(await pick('priority>2')).toEqual(['Task 3', 'Task 4']);
    expect(await pick('priority>=2')).toEqual(['Task 2', 'Task 3', 'Task 4']);
    expect(await pick('priority<2')).toEqual(['Task 0', 'Task 1']);
    expect(await pick('priority<=2')).toEqual(['Task 0', 'Task 1', 'Task 2']);
    expect(await pick('priority==0')).toEqual(['Task 0']);
    expect(await pick('priority!=0')).toEqual(['Task 1', 'Task 2', 'Task 3', 'Task 4']);
  });

  it('compares date-times', async () => {
    expect((await filtered('/api/tasks', `${tasksOfOrg} and createdOn>='2000-01-01T00:00:00.000Z'`)).totalElements).toBe(5);
    expect((await filtered('/api/tasks', `${tasksOfOrg} and createdOn<'2000-01-01T00:00:00.000Z'`)).totalElements).toBe(0);
  });

  it('=isnull=true and =isnull=false', async () => {
    expect(titles(await filtered('/api/tasks', `${tasksOfOrg} and statusSlug=isnull=true`))).toEqual(['Task 3']);
    const notNull = await filtered('/api/tasks', `${tasksOfOrg} and statusSlug=isnull=false`, { sort: 'priority' });
    expect(titles(notNull)).toEqual(['Task 0', 'Task 1', 'Task 2', 'Task 4']);
  });

  it('=in= on tasks, combined with a comparison', async () => {
    const body = await filtered('/api/tasks', `${tasksOfOrg} and (statusSlug=in=('open','done') and priority>0)`, { sort: 'priority' });
    expect(titles(body)).toEqual(['Task 1', 'Task 2']);
  });

  it('follows a dotted relation path: projects by organization.slug', async () => {
    const body = await filtered('/api/projects', `organization.slug=='${org.slug}'`);
    expect(body.totalElements).toBe(5);
    expect(body.content.every((p: any) => p.organizationId === org.id)).toBe(true);
    const otherBody = await filtered('/api/projects', `organization.slug=='${other.slug}'`);
    expect(otherBody.content.map((p: any) => p.organizationId)).toEqual([other.id]);
  });

  it('follows a two-level relation path: tasks by project.organization.slug', async () => {
    const body = await filtered('/api/tasks', `project.organization.slug=='${org.slug}'`, { sort: 'priority' });
    expect(titles(body)).toEqual(['Task 0', 'Task 1', 'Task 2', 'Task 3', 'Task 4']);
    const foreign = await filtered('/api/tasks', `project.organization.slug=='${other.slug}'`);
    expect(titles(foreign)).toEqual(['Foreign task']);
  });

  it('follows a relation path with =like= and and', async () => {
    const body = await filtered('/api/tasks', `project.name=like='beta*' and project.organization.slug=='${org.slug}'`, { sort: 'priority' });
    expect(titles(body)).toEqual(['Task 3', 'Task 4']);
  });

  it('filters booleans', async () => {
    const flagged = await createOrganization(server, { slug: unique('filter-bool'), publicAccess: true });
    const body = await filtered('/api/organizations', `slug=='${flagged.slug}' and publicAccess==true`);
    expect(body.content.map((o: any) => o.id)).toEqual([flagged.id]);
    expect((await filtered('/api/organizations', `slug=='${flagged.slug}' and publicAccess==false`)).totalElements).toBe(0);
  });

  it('refuses an unknown field with 400 naming the filter', async () => {
    expectBadRequest(await list('/api/projects', { filter: `nonsense=='x'` }), /filter/);
    expectBadRequest(await list('/api/projects', { filter: `${byOrg} and organization.nonsense=='x'` }), /filter/);
    expectBadRequest(await list('/api/tasks', { filter: `project.nope.slug=='x'` }), /filter/);
  });

  it('refuses a relation named without a field, and a field that is not a relation', async () => {
    expectBadRequest(await list('/api/projects', { filter: `organization=='x'` }), /filter/);
    expectBadRequest(await list('/api/projects', { filter: `name.length==3` }), /filter/);
  });

  it.each([[`name==`], [`name=='Alpha one' and`], [`(name=='Alpha one'`], [`name=='unterminated`], [`name 'Alpha one'`], [`==x`], [`name=bogus='x'`]])(
    'refuses the malformed expression %s with 400',
    async (filter) => {
      expectBadRequest(await list('/api/projects', { filter }), /filter/);
    },
  );

  it.each([
    ['/api/tasks', `priority=='abc'`],
    ['/api/tasks', `priority>'1.5'`],
    ['/api/tasks', `priority=in=(1,'two')`],
    ['/api/projects', `id=='not-a-uuid'`],
    ['/api/projects', `organizationId=='nope'`],
    ['/api/projects', `createdOn>'yesterday'`],
    ['/api/projects', `createdOn>'2030-02-31T00:00:00.000Z'`],
    ['/api/organizations', `publicAccess=='yes'`],
    ['/api/task-statuses', `statusType=='NOPE'`],
    ['/api/tasks', `statusSlug=isnull=maybe`],
    ['/api/tasks', `priority=like='1*'`],
  ])('refuses a value of the wrong type on %s: %s with 400, not 500', async (path, filter) => {
    expectBadRequest(await list(path, { filter }), /filter/);
  });

  it('refuses filtering on a free-form JSON field with 400', async () => {
    expectBadRequest(await list('/api/projects', { filter: `options=='x'` }), /filter/);
  });
});

describe('query (free text over name and description)', () => {
  let org: any;
  let byOrg: string;

  beforeAll(async () => {
    org = await createOrganization(server, { slug: unique('query') });
    byOrg = `organizationId=='${org.id}'`;
    await createProject(server, org.id, { name: 'Zebra crossing', description: 'stripes' });
    await createProject(server, org.id, { name: 'Plain', description: 'has a ZEBRA inside' });
    await createProject(server, org.id, { name: 'Unrelated', description: 'nothing to see' });
  });

  it('matches the name and the description, ignoring case', async () => {
    const body = await page('/api/projects', { filter: byOrg, query: 'zebra', sort: 'name' });
    expect(names(body)).toEqual(['Plain', 'Zebra crossing']);
    const upper = await page('/api/projects', { filter: byOrg, query: 'ZeBrA', sort: 'name' });
    expect(names(upper)).toEqual(['Plain', 'Zebra crossing']);
  });

  it('matches a part of a word and a phrase', async () => {
    expect(names(await page('/api/projects', { filter: byOrg, query: 'stri' }))).toEqual(['Zebra crossing']);
    expect(names(await page('/api/projects', { filter: byOrg, query: 'zebra cross' }))).toEqual(['Zebra crossing']);
  });

  it('matches nothing when nothing contains the text, and treats % and _ literally', async () => {
    expect((await page('/api/projects', { filter: byOrg, query: 'okapi' })).totalElements).toBe(0);
    expect((await page('/api/projects', { filter: byOrg, query: '%' })).totalElements).toBe(0);
    expect((await page('/api/projects', { filter: byOrg, query: '_' })).totalElements).toBe(0);
  });

  it('follows an update of the name', async () => {
    const project = await createProject(server, org.id, { name: 'Before rename' });
    const renamed = await server.request('PUT', `/api/projects/${project.id}`, { body: { name: 'Okapi renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(names(await page('/api/projects', { filter: byOrg, query: 'okapi' }))).toEqual(['Okapi renamed']);
    expect((await page('/api/projects', { filter: byOrg, query: 'before rename' })).totalElements).toBe(0);
  });

  it('searches task titles and descriptions', async () => {
    const project = await createProject(server, org.id, { name: 'Task holder' });
    await createTask(server, project.id, { title: 'Review the contract', description: 'legal' });
    await createTask(server, project.id, { title: 'Sign', description: 'after the CONTRACT review' });
    await createTask(server, project.id, { title: 'Archive', description: 'later' });
    const body = await page('/api/tasks', { filter: `projectId=='${project.id}'`, query: 'contract', sort: 'title' });
    expect(titles(body)).toEqual(['Review the contract', 'Sign']);
  });

  it('searches organizations by name', async () => {
    const word = unique('Marmot').replace(/-/g, '');
    const found = await createOrganization(server, { name: `The ${word} company` });
    const body = await page('/api/organizations', { query: word.toLowerCase() });
    expect(body.content.map((o: any) => o.id)).toEqual([found.id]);
  });

  it('combines with filter and paging', async () => {
    const body = await page('/api/projects', { filter: byOrg, query: 'zebra', pageSize: 1, sort: 'name:desc' });
    expect(body.totalElements).toBe(2);
    expect(body.totalPages).toBe(2);
    expect(names(body)).toEqual(['Zebra crossing']);
  });
});

describe('sort', () => {
  let org: any;
  let project: any;
  let byOrg: string;
  let byProject: string;

  beforeAll(async () => {
    org = await createOrganization(server, { slug: unique('sort') });
    byOrg = `organizationId=='${org.id}'`;
    // Created out of alphabetical order so that the default (creation) order differs from the name order.
    await createProject(server, org.id, { name: 'Bravo', description: 'x' });
    await createProject(server, org.id, { name: 'Alpha', description: 'y' });
    await createProject(server, org.id, { name: 'Charlie', description: 'x' });
    project = await createProject(server, org.id, { name: 'Delta', description: 'y' });
    byProject = `projectId=='${project.id}'`;
    for (const [title, priority] of [
      ['b', 1],
      ['a', 1],
      ['c', 2],
      ['d', 0],
      ['e', 2],
    ] as const) {
      await createTask(server, project.id, { title, priority });
    }
  });

  it('sorts ascending with name:asc and descending with name:desc', async () => {
    expect(names(await page('/api/projects', { filter: byOrg, sort: 'name:asc' }))).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta']);
    expect(names(await page('/api/projects', { filter: byOrg, sort: 'name:desc' }))).toEqual(['Delta', 'Charlie', 'Bravo', 'Alpha']);
  });

  it('defaults the direction to ascending', async () => {
    expect(names(await page('/api/projects', { filter: byOrg, sort: 'name' }))).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta']);
  });

  it('accepts the direction in upper case', async () => {
    expect(names(await page('/api/projects', { filter: byOrg, sort: 'name:DESC' }))).toEqual(['Delta', 'Charlie', 'Bravo', 'Alpha']);
  });

  it('lists in creation order without a sort', async () => {
    expect(names(await page('/api/projects', { filter: byOrg }))).toEqual(['Bravo', 'Alpha', 'Charlie', 'Delta']);
  });

  it('sorts by several fields separated by ;', async () => {
    const body = await page('/api/tasks', { filter: byProject, sort: 'priority:desc;title:asc' });
    expect(titles(body)).toEqual(['c', 'e', 'a', 'b', 'd']);
    const other = await page('/api/tasks', { filter: byProject, sort: 'priority:asc;title:desc' });
    expect(titles(other)).toEqual(['d', 'b', 'a', 'e', 'c']);
    const mixed = await page('/api/projects', { filter: byOrg, sort: 'description:asc;name:desc' });
    expect(names(mixed)).toEqual(['Charlie', 'Bravo', 'Delta', 'Alpha']);
  });

  it('keeps the order across pages', async () => {
    const first = await page('/api/tasks', { filter: byProject, sort: 'title:desc', pageSize: 2, page: 0 });
    const second = await page('/api/tasks', { filter: byProject, sort: 'title:desc', pageSize: 2, page: 1 });
    const third = await page('/api/tasks', { filter: byProject, sort: 'title:desc', pageSize: 2, page: 2 });
    expect([...titles(first), ...titles(second), ...titles(third)]).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('reports a sorted page in the sort objects', async () => {
    const body = await page('/api/projects', { filter: byOrg, sort: 'name:asc' });
    expect(body.sort).toEqual({ empty: false, sorted: true, unsorted: false });
    expect(body.pageable.sort).toEqual({ empty: false, sorted: true, unsorted: false });
  });

  it('refuses an unknown sort field with 400 naming sort', async () => {
    expectBadRequest(await list('/api/projects', { sort: 'nonsense:asc' }), /sort/);
    expectBadRequest(await list('/api/projects', { sort: 'name:asc;nonsense' }), /sort/);
  });

  it.each([['name:up'], ['name:ascending'], ['name:asc:desc'], [':asc']])('refuses the sort term %s with 400 naming sort', async (sort) => {
    expectBadRequest(await list('/api/projects', { sort }), /sort/);
  });

  it('refuses sorting on a free-form JSON field with 400', async () => {
    expectBadRequest(await list('/api/projects', { sort: 'options:asc' }), /sort/);
  });
});
