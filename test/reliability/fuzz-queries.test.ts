import 'reflect-metadata';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionPath, type Resource } from '../../src/model/resource';
import { resources } from '../../src/catalog/registry';
import { createOrganization } from '../support/fixtures';
import { createRecord, resourceByPath } from '../support/resource-bodies';
import { startServer, type TestServer } from '../support/server';
import { expectErrorBody, expectNoServerError } from './support/answers';
import { runs, tally, type Tally } from './support/figures';
import { oddString } from './support/arbitraries';
import { encodeQueryValue, filterText, pagingText, sortText } from './support/query-arbitraries';

/**
 * Property-based fuzzing of the list parameters `filter`, `sort`, `page`, `pageSize` (and `query`) of
 * every collection: expressions built from the resource's own field paths with values of every kind,
 * cut, spliced and repeated. A list answers a page or a 4xx with the error body, never a 5xx.
 */

let server: TestServer;
let organizationId: string;

beforeAll(async () => {
  server = await startServer();
  organizationId = (await createOrganization(server)).id;
  // A few rows in the lists that filters go through (tasks of a group, a project's statuses ...).
  for (const path of ['tasks', 'task-groups', 'labels', 'document-families', 'channels']) await createRecord(server, resourceByPath(path), { organizationId });
  const group = await createRecord(server, resourceByPath('task-groups'), { organizationId });
  await createRecord(server, resourceByPath('tasks'), { organizationId, overrides: { projectId: group.projectId, taskGroupId: group.id } });
}, 120_000);

afterAll(() => server?.close());

/** GET the list of `resource` with `params` (a repeated parameter as an array): a page, or a 4xx with the error body. */
async function checkList(counts: Tally, resource: Resource, params: Record<string, string | string[]>): Promise<void> {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value]) pairs.push(`${name}=${encodeQueryValue(one)}`);
  }
  const path = `/api/${collectionPath(resource, resource.parent ? organizationId : undefined)}?${pairs.join('&')}`;
  const answer = await server.request('GET', path);
  counts.ran();
  counts.answered(answer.status);
  const label = `GET ${path.slice(0, 1500)}`;
  expectNoServerError(answer, label);
  if (answer.status === 200) {
    expect(Array.isArray(answer.body.content), label).toBe(true);
    expect(typeof answer.body.totalElements, label).toBe('number');
  } else {
    expectErrorBody(answer, label);
  }
}

describe('list parameters of every collection', () => {
  it("filter: expressions over the resource's field paths with values of every kind answer a page or a 4xx with the error body, never a 5xx", async ({
    task,
  }) => {
    const counts = tally(task);
    const cases = fc.constantFrom(...resources).chain((resource) => fc.tuple(fc.constant(resource.path), filterText(resource)));
    await fc.assert(
      fc.asyncProperty(cases, ([path, filter]) => checkList(counts, resourceByPath(path), { filter })),
      runs(400, 4000),
    );
  }, 300_000);

  it('sort, page, pageSize and query (also repeated): a page or a 4xx with the error body, never a 5xx', async ({ task }) => {
    const counts = tally(task);
    const cases = fc.constantFrom(...resources).chain((resource) =>
      fc.tuple(
        fc.constant(resource.path),
        fc.record(
          {
            sort: fc.oneof({ weight: 4, arbitrary: sortText(resource) }, fc.array(sortText(resource), { minLength: 2, maxLength: 3 })),
            page: fc.oneof({ weight: 6, arbitrary: pagingText }, fc.array(pagingText, { minLength: 2, maxLength: 2 })),
            pageSize: pagingText,
            query: fc.oneof(fc.string({ maxLength: 6 }), oddString),
            filter: filterText(resource),
          },
          { requiredKeys: [] },
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(cases, ([path, params]) => checkList(counts, resourceByPath(path), params)),
      runs(300, 3000),
    );
  }, 300_000);
});
