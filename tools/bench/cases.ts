import type { PlannedRequest } from './load';
import type { SeedResult } from './seed';

/** organizations → projects → tasks, 10 per level (10 / 100 / 1,000 objects), no to-one references. */
export const NESTED_QUERY =
  '{ organizations(pageSize: 10) { totalElements content { id name slug projects(pageSize: 10) { totalElements content { id name slug ' +
  'tasks(pageSize: 10) { totalElements content { id title priority createdOn } } } } } } }';

/**
 * Who sends a case's requests: `member`, a member (owner) of every organization, the large one included;
 * `small`, a member of one small organization only (its 100 tasks); `admin`, a platform administrator,
 * who sees every organization without belonging to any.
 */
export type CallerKind = 'member' | 'small' | 'admin';

export const CALLERS: Record<CallerKind, string> = {
  member: 'a member of every organization',
  small: 'a member of one small organization',
  admin: 'a platform administrator',
};

/** What an answer holds, for comparing row counts with PostGraphile's differently shaped answers. */
export type Shape = 'item' | 'page' | 'nested' | 'write';

export interface BenchCase {
  /** Short name, matched by BENCH_ONLY. */
  id: string;
  /** The request, for the legend and the Markdown table. */
  request: string;
  caller: CallerKind;
  shape: Shape;
  /** Sent in turn, the same list to the server and to the express baselines. */
  requests: PlannedRequest[];
  /** The same reads as PostGraphile's GraphQL requests (none: PostGraphile does not take part). */
  postgraphile?: PlannedRequest[];
  /** Top-level fields that legitimately differ between two answers to the same request (writes). */
  volatile: string[];
}

/** The cases, in the order they run. */
export const CASE_IDS = [
  'get-by-id',
  'get-by-id-admin',
  'page-100',
  'page-100-small',
  'page-100-admin',
  'filtered-sorted',
  'graphql-nested',
  'graphql-nested-admin',
  'put',
  'post',
];

const json = (body: unknown) => JSON.stringify(body);

/** PostGraphile names a table's `id` column `rowId` (its Node interface takes `id`); the other fields are the server's. */
const PG_TASK_FIELDS =
  'rowId uuid createdOn updatedOn changeSequence deleted deletedDate deleteUserId deleteUserEmail title description projectId statusSlug ' +
  'assigneeId priority dueDate completedDate taskGroupId parentTaskId templateId locked lockedAt lockedById createdByActivityId properties documentFamilyIds';

/** The server's default order (oldest first, the id breaking ties) and its liveness conditions, in PostGraphile's arguments. */
const PG_ORDER = 'orderBy: [CREATED_ON_ASC, ROW_ID_ASC]';
const PG_LIVE = 'condition: {deleted: false, parentHidden: false}';

export const PG_GET_QUERY = `query Task($rowId: UUID!) { taskByRowId(rowId: $rowId) { ${PG_TASK_FIELDS} } }`;
export const PG_PAGE_QUERY = `{ allTasks(first: 100, ${PG_ORDER}, ${PG_LIVE}) { totalCount nodes { ${PG_TASK_FIELDS} } } }`;
export const PG_NESTED_QUERY =
  `{ allOrganizations(first: 10, ${PG_ORDER}, condition: {archived: false}) { totalCount nodes { rowId name slug ` +
  `projectsByOrganizationId(first: 10, ${PG_ORDER}, ${PG_LIVE}) { totalCount nodes { rowId name slug ` +
  `tasksByProjectId(first: 10, ${PG_ORDER}, ${PG_LIVE}) { totalCount nodes { rowId title priority createdOn } } } } } } }`;

const graphql = (query: string, variables?: Record<string, unknown>): PlannedRequest => ({
  method: 'POST',
  path: '/graphql',
  body: json({ query, variables }),
});

/** A task in each project in turn, each with its own title. */
const posts = (seed: SeedResult): PlannedRequest[] =>
  seed.projectIds.map((projectId) => ({
    method: 'POST',
    path: '/api/tasks',
    body: `{"projectId": "${projectId}", "title": "Bench task __N__", "priority": 3}`,
  }));

/** get-by-id for one caller: the sampled tasks one after the other. */
function getById(seed: SeedResult, caller: CallerKind, suffix: string): BenchCase {
  return {
    id: `get-by-id${suffix}`,
    request: 'GET /api/tasks/{id}',
    caller,
    shape: 'item',
    requests: seed.taskIds.map((id) => ({ method: 'GET', path: `/api/tasks/${id}` })),
    postgraphile: seed.taskIds.map((id) => graphql(PG_GET_QUERY, { rowId: id })),
    volatile: [],
  };
}

/** The first page of 100 tasks with their total, for one caller. */
function page100(caller: CallerKind, suffix: string): BenchCase {
  return {
    id: `page-100${suffix}`,
    request: 'GET /api/tasks?pageSize=100',
    caller,
    shape: 'page',
    requests: [{ method: 'GET', path: '/api/tasks?pageSize=100' }],
    postgraphile: [graphql(PG_PAGE_QUERY)],
    volatile: [],
  };
}

/** The nested GraphQL read for one caller. */
function nested(caller: CallerKind, suffix: string): BenchCase {
  return {
    id: `graphql-nested${suffix}`,
    request: 'POST /graphql organizations → projects → tasks, 10/100/1000',
    caller,
    shape: 'nested',
    requests: [graphql(NESTED_QUERY)],
    postgraphile: [graphql(PG_NESTED_QUERY)],
    volatile: [],
  };
}

export function benchCases(seed: SeedResult): BenchCase[] {
  const filter = (slug: string) => encodeURIComponent(`organization.slug=='${slug}'`);
  return [
    getById(seed, 'member', ''),
    getById(seed, 'admin', '-admin'),
    page100('member', ''),
    page100('small', '-small'),
    page100('admin', '-admin'),
    {
      id: 'filtered-sorted',
      request: "GET /api/projects?filter=organization.slug=='…'&sort=name:desc",
      caller: 'member',
      shape: 'page',
      requests: seed.organizationSlugs.map((slug) => ({ method: 'GET', path: `/api/projects?filter=${filter(slug)}&sort=name:desc` })),
      volatile: [],
    },
    nested('member', ''),
    nested('admin', '-admin'),
    {
      id: 'put',
      request: 'PUT /api/tasks/{id} {priority}',
      caller: 'member',
      shape: 'write',
      // `__N__` differs on every request, so every PUT changes the row.
      requests: seed.taskIds.map((id) => ({ method: 'PUT', path: `/api/tasks/${id}`, body: '{"priority": __N__}' })),
      volatile: ['priority', 'changeSequence', 'updatedOn'],
    },
    {
      id: 'post',
      request: 'POST /api/tasks {projectId, title, priority}',
      caller: 'member',
      shape: 'write',
      requests: posts(seed),
      volatile: ['id', 'uuid', 'createdOn', 'updatedOn', 'title'],
    },
  ];
}
