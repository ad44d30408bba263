import type { PlannedRequest } from './load';
import type { SeedResult } from './seed';

/** organizations → projects → tasks, 10 per level (10 / 100 / 1,000 objects), no to-one references. */
export const NESTED_QUERY =
  '{ organizations(pageSize: 10) { totalElements content { id name slug projects(pageSize: 10) { totalElements content { id name slug ' +
  'tasks(pageSize: 10) { totalElements content { id title priority createdOn } } } } } } }';

/** The cases, in the order they run. */
export const CASE_IDS = ['get-by-id', 'page-100', 'filtered-sorted', 'graphql-nested', 'put', 'post', 'post-transaction'];

export interface BenchCase {
  /** Short name, matched by BENCH_ONLY. */
  id: string;
  /** The request, for the legend and the Markdown table. */
  request: string;
  /** Sent in turn, the same list to the server and to the baseline. */
  requests: PlannedRequest[];
  /** Top-level fields that legitimately differ between the two answers to the same request (writes). */
  volatile: string[];
}

const json = (body: unknown) => JSON.stringify(body);

/** A task in each project in turn, each with its own title. */
const posts = (seed: SeedResult): PlannedRequest[] =>
  seed.projectIds.map((projectId) => ({ method: 'POST', path: '/api/tasks', body: `{"projectId": "${projectId}", "title": "Bench task __N__", "priority": 3}` }));

const POST_VOLATILE = ['id', 'uuid', 'createdOn', 'updatedOn', 'title'];

export function benchCases(seed: SeedResult): BenchCase[] {
  const filter = (slug: string) => encodeURIComponent(`organization.slug=='${slug}'`);
  return [
    {
      id: 'get-by-id',
      request: 'GET /api/tasks/{id}',
      requests: seed.taskIds.map((id) => ({ method: 'GET', path: `/api/tasks/${id}` })),
      volatile: [],
    },
    {
      id: 'page-100',
      request: 'GET /api/tasks?pageSize=100',
      requests: [{ method: 'GET', path: '/api/tasks?pageSize=100' }],
      volatile: [],
    },
    {
      id: 'filtered-sorted',
      request: "GET /api/projects?filter=organization.slug=='…'&sort=name:desc",
      requests: seed.organizationSlugs.map((slug) => ({ method: 'GET', path: `/api/projects?filter=${filter(slug)}&sort=name:desc` })),
      volatile: [],
    },
    {
      id: 'graphql-nested',
      request: 'POST /graphql organizations → projects → tasks, 10/100/1000',
      requests: [{ method: 'POST', path: '/graphql', body: json({ query: NESTED_QUERY }) }],
      volatile: [],
    },
    {
      id: 'put',
      request: 'PUT /api/tasks/{id} {priority}',
      // `__N__` differs on every request, so every PUT changes the row.
      requests: seed.taskIds.map((id) => ({ method: 'PUT', path: `/api/tasks/${id}`, body: '{"priority": __N__}' })),
      volatile: ['priority', 'changeSequence', 'updatedOn'],
    },
    {
      id: 'post',
      request: 'POST /api/tasks {projectId, title, priority}: baseline one statement',
      requests: posts(seed),
      volatile: POST_VOLATILE,
    },
    {
      id: 'post-transaction',
      request: 'POST /api/tasks {projectId, title, priority}: baseline one transaction of the same statements',
      requests: posts(seed).map((request) => ({ ...request, headers: { 'x-bench-baseline': 'transaction' } })),
      volatile: POST_VOLATILE,
    },
  ];
}
