import express, { type NextFunction, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { NESTED_QUERY } from './cases';

/**
 * The baseline of `npm run bench`: bare express 5 and a `pg` pool answering the benchmark's requests
 * with the same JSON as the server, with the SQL a careful hand-written handler would send. It runs
 * in a child process started by bench.ts (IPC: `ready`, `stats`, `stop`), on loopback, and exits
 * when told to or when its parent goes away. It is deliberately not generic:
 *
 * - the caller is a team member (as in the benchmark): it sees the organizations it belongs to;
 * - a task travels alone (its references as ids); a project embeds its organization, and its owner and
 *   status as null: the seeded projects have none (the server would embed them);
 * - a GET or PUT that finds no row looks once more, without the visibility condition, to tell 403
 *   from 404 (the server tells them apart in its one statement);
 * - times are parsed by `pg` into dates and written back as ISO text, as `pg` does by default (the
 *   server reads them as text).
 *
 * Every statement is counted (begin and commit too, as the server's counter does).
 */

const pool = new pg.Pool({
  connectionString: process.env.BASELINE_DATABASE_URL,
  max: Number(process.env.BASELINE_POOL_SIZE ?? 10),
});
let statements = 0;

type Row = Record<string, unknown>;
type Queryable = Pick<pg.Pool, 'query'>;

/** A named prepared statement (planned once per connection). */
async function sql(db: Queryable, name: string, text: string, values: unknown[]): Promise<Row[]> {
  statements += 1;
  return (await db.query({ name, text, values })).rows as Row[];
}

// The columns of each table in the order of the server's answers, and what they are called there.
const TASK = [
  'id', 'uuid', 'createdOn', 'updatedOn', 'changeSequence', 'deleted', 'deletedDate', 'deleteUserId', 'deleteUserEmail',
  'title', 'description', 'projectId', 'statusSlug', 'assigneeId', 'priority', 'dueDate', 'completedDate', 'taskGroupId',
  'parentTaskId', 'templateId', 'locked', 'lockedAt', 'lockedById', 'createdByActivityId', 'properties', 'documentFamilyIds',
];
const PROJECT = [
  'id', 'uuid', 'createdOn', 'updatedOn', 'changeSequence', 'deleted', 'deletedDate', 'deleteUserId', 'deleteUserEmail',
  'name', 'slug', 'description', 'notes', 'color', 'searchText', 'organizationId', 'ownerId', 'statusId', 'projectTemplateRef',
  'templateArticleId', 'statusType', 'memory', 'dataFlow', 'options',
];
const ORGANIZATION = [
  'id', 'uuid', 'createdOn', 'updatedOn', 'changeSequence', 'name', 'slug', 'description', 'searchText', 'organizationStatus',
  'publicAccess', 'authGroupLink', 'hasImage', 'defaultToPrivateTemplates', 'memory', 'supportAccess', 'supportAccessExpiresAt',
  'billingCustomerId', 'enterpriseOrganization', 'properties', 'features', 'archived',
];

const column = (field: string) => field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
/** `t.created_on as "t.createdOn", ...`: the select list of one table under its alias. */
const select = (alias: string, fields: string[]) => fields.map((f) => `${alias}.${column(f)} as "${alias}.${f}"`).join(', ');

/** The JSON of one table's columns in a row (dates become ISO text when the answer is serialised). */
function pick(row: Row, alias: string, fields: string[]): Row {
  const out: Row = {};
  for (const field of fields) out[field] = row[`${alias}.${field}`] ?? null;
  return out;
}

const taskJson = (row: Row) => pick(row, 't', TASK);
/** A project embeds its organization (whose own references would be null: it has none). */
const projectJson = (row: Row) => ({ ...pick(row, 'p', PROJECT), organization: pick(row, 'o', ORGANIZATION), owner: null, status: null });

/** The organizations the caller belongs to through a team; `$1` is the caller's id. */
const VISIBLE = `o.id in (select vt.organization_id from team_member vm join team vt on vt.id = vm.team_id where vm.user_id = $1)`;
const LIVE_TASK = `not t.deleted and not p.deleted and o.archived is not true`;
const TASK_FROM = `task t join project p on p.id = t.project_id join organization o on o.id = p.organization_id`;

interface Caller {
  id: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

// API keys: looked up once, then remembered for 30 s (as the server does, AUTH_CACHE_SECONDS).
const KEY_CACHE_MS = 30_000;
const callers = new Map<string, { caller: Caller; until: number }>();

async function authenticate(req: Request, res: Response, next: NextFunction): Promise<void> {
  const key = req.get('x-api-key');
  if (!key) throw new HttpError(401, 'Unauthorized', 'authentication required');
  const cached = callers.get(key);
  if (cached && cached.until > Date.now()) {
    res.locals.caller = cached.caller;
    return next();
  }
  const [row] = await sql(
    pool,
    'auth',
    `select u.id from access_token a join platform_user u on u.id = a.user_id
      where a.token_hash = $1 and u.active and (a.expires_at is null or a.expires_at > now())`,
    [createHash('sha256').update(key, 'utf8').digest('hex')],
  );
  if (!row) throw new HttpError(401, 'Unauthorized', 'invalid credentials');
  const caller = { id: row.id as string };
  callers.set(key, { caller, until: Date.now() + KEY_CACHE_MS });
  res.locals.caller = caller;
  next();
}

const callerOf = (res: Response) => (res.locals.caller as Caller).id;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidParam(value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new HttpError(400, 'Bad Request', `${field} must be a UUID`);
  return value.toLowerCase();
}

function intParam(raw: unknown, field: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) throw new HttpError(400, 'Bad Request', `${field} must be between ${min} and ${max}`);
  return value;
}

/** The REST page answer, as the server shapes it. */
function page(content: unknown[], totalElements: number, number: number, size: number, sorted: boolean): Row {
  const totalPages = Math.ceil(totalElements / size);
  const sort = { empty: !sorted, sorted, unsorted: !sorted };
  return {
    content,
    totalElements,
    totalPages,
    number,
    size,
    numberOfElements: content.length,
    first: number === 0,
    last: number >= totalPages - 1,
    pageable: { offset: number * size, pageNumber: number, pageSize: size, paged: true, unpaged: false, sort },
    sort,
  };
}

/** 403 when the task exists but belongs to organizations the caller cannot see, 404 otherwise. */
async function missingTask(db: Queryable, id: string): Promise<HttpError> {
  const [found] = await sql(db, 'task-exists', `select 1 from ${TASK_FROM} where t.id = $1 and ${LIVE_TASK}`, [id]);
  return found ? new HttpError(403, 'Forbidden', `you may not access Task ${id}`) : new HttpError(404, 'Not Found', `no Task with id ${id}`);
}

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.use(authenticate);
app.use(express.json({ limit: '1mb' }));

/** get-by-id: the task, if neither it nor its project is deleted, the organization is not archived and the caller is a member. */
app.get('/api/tasks/:id', async (req, res) => {
  const id = uuidParam(req.params.id, 'id');
  const [row] = await sql(pool, 'task-get', `select ${select('t', TASK)} from ${TASK_FROM} where t.id = $2 and ${LIVE_TASK} and ${VISIBLE}`, [
    callerOf(res),
    id,
  ]);
  if (!row) throw await missingTask(pool, id);
  res.json(taskJson(row));
});

/** The total of a page: counted by `count`, unless the page itself shows where the rows end. */
async function total(rows: unknown[], number: number, size: number, count: () => Promise<Row[]>): Promise<number> {
  if ((rows.length > 0 && rows.length < size) || (number === 0 && rows.length === 0)) return number * size + rows.length;
  return Number((await count())[0].count);
}

/** page of tasks with total: the page in creation order, then a count with the same conditions. */
app.get('/api/tasks', async (req, res) => {
  const size = intParam(req.query.pageSize, 'pageSize', 10, 1, 100);
  const number = intParam(req.query.page, 'page', 0, 0, 2147483647);
  const where = `${LIVE_TASK} and ${VISIBLE}`;
  const rows = await sql(pool, 'task-page', `select ${select('t', TASK)} from ${TASK_FROM} where ${where} order by t.created_on, t.id limit $2 offset $3`, [
    callerOf(res),
    size,
    number * size,
  ]);
  const count = await total(rows, number, size, () => sql(pool, 'task-count', `select count(*) from ${TASK_FROM} where ${where}`, [callerOf(res)]));
  res.json(page(rows.map(taskJson), count, number, size, false));
});

/** filtered and sorted page: the projects of the organization named by its slug, by name. */
app.get('/api/projects', async (req, res) => {
  const size = intParam(req.query.pageSize, 'pageSize', 10, 1, 100);
  const number = intParam(req.query.page, 'page', 0, 0, 2147483647);
  const slug = /^organization\.slug=='([^']*)'$/.exec(String(req.query.filter ?? ''))?.[1];
  const direction = { 'name:asc': 'asc', 'name:desc': 'desc' }[String(req.query.sort)];
  if (slug === undefined || direction === undefined) throw new HttpError(400, 'Bad Request', "this baseline serves filter=organization.slug=='…'&sort=name:asc|desc only");
  const where = `o.slug = $2 and not p.deleted and o.archived is not true and ${VISIBLE}`;
  const from = `project p join organization o on o.id = p.organization_id`;
  const rows = await sql(
    pool,
    `project-page-${direction}`,
    `select ${select('p', PROJECT)}, ${select('o', ORGANIZATION)} from ${from} where ${where} order by p.name ${direction}, p.id limit $3 offset $4`,
    [callerOf(res), slug, size, number * size],
  );
  const count = await total(rows, number, size, () => sql(pool, 'project-count', `select count(*) from ${from} where ${where}`, [callerOf(res), slug]));
  res.json(page(rows.map(projectJson), count, number, size, true));
});

/**
 * The nested GraphQL read, one statement per level: the organizations page (with a window count),
 * then each organization's page of projects and each project's page of tasks, every parent joined
 * laterally to its own count and its own page. Parents are already visible and live.
 */
app.post('/graphql', async (req, res) => {
  if (req.body?.query !== NESTED_QUERY) throw new HttpError(400, 'Bad Request', 'this baseline answers the benchmark query only');
  const organizations = await sql(
    pool,
    'gql-organizations',
    `select o.id, o.name, o.slug, count(*) over () as total from organization o
      where o.archived is not true and ${VISIBLE} order by o.created_on, o.id limit 10`,
    [callerOf(res)],
  );
  const projects = await childPages(
    'gql-projects',
    `select c.id, c.name, c.slug from project c where c.organization_id = parent.id and not c.deleted order by c.created_on, c.id limit 10`,
    `select count(*) from project c where c.organization_id = parent.id and not c.deleted`,
    organizations.map((o) => o.id as string),
  );
  const tasks = await childPages(
    'gql-tasks',
    `select c.id, c.title, c.priority, c.created_on from task c where c.project_id = parent.id and not c.deleted order by c.created_on, c.id limit 10`,
    `select count(*) from task c where c.project_id = parent.id and not c.deleted`,
    [...projects.values()].flatMap((p) => p.rows.map((row) => row.id as string)),
  );
  const graphPage = (totalElements: number, content: unknown[]) => ({ totalElements, content });
  const answer = graphPage(
    Number(organizations[0]?.total ?? 0),
    organizations.map((o) => {
      const own = projects.get(o.id as string)!;
      return {
        id: o.id,
        name: o.name,
        slug: o.slug,
        projects: graphPage(
          own.total,
          own.rows.map((p) => {
            const its = tasks.get(p.id as string)!;
            return {
              id: p.id,
              name: p.name,
              slug: p.slug,
              tasks: graphPage(
                its.total,
                its.rows.map((t) => ({ id: t.id, title: t.title, priority: t.priority, createdOn: (t.created_on as Date).toISOString() })),
              ),
            };
          }),
        ),
      };
    }),
  );
  res.json({ data: { organizations: answer } });
});

/** One statement for all parents: `unnest` the ids, count and page each laterally. */
async function childPages(name: string, paged: string, counted: string, parentIds: string[]): Promise<Map<string, { total: number; rows: Row[] }>> {
  const rows = await sql(
    pool,
    name,
    `select parent.id as __parent, counted.count as __total, paged.*
       from unnest($1::uuid[]) as parent(id)
       cross join lateral (${counted}) as counted
       left join lateral (${paged}) as paged on true`,
    [parentIds],
  );
  const pages = new Map(parentIds.map((id) => [id, { total: 0, rows: [] as Row[] }]));
  for (const { __parent, __total, ...columns } of rows) {
    const entry = pages.get(__parent as string)!;
    entry.total = Number(__total);
    if (columns.id !== null) entry.rows.push(columns);
  }
  return pages;
}

const INT32_MAX = 2147483647;

/** PUT: one transaction; the row is locked, compared with the body, written when something changed. */
app.put('/api/tasks/:id', async (req, res) => {
  const id = uuidParam(req.params.id, 'id');
  const body = req.body as Row;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Bad Request', 'request body must be a JSON object');
  const changes: Row = {};
  if (body.title !== undefined) {
    if (typeof body.title !== 'string' || body.title.length > 1000) throw new HttpError(400, 'Bad Request', 'title must be a string of at most 1000 characters');
    changes.title = body.title;
  }
  if (body.priority !== undefined) {
    if (!Number.isInteger(body.priority) || Math.abs(body.priority as number) > INT32_MAX) throw new HttpError(400, 'Bad Request', 'priority must be a 32-bit integer');
    changes.priority = body.priority;
  }
  const client = await pool.connect();
  try {
    await sql(client, 'begin', 'begin', []);
    const [row] = await sql(
      client,
      'task-lock',
      `select ${select('t', TASK)} from ${TASK_FROM} where t.id = $2 and ${LIVE_TASK} and ${VISIBLE} for update of t`,
      [callerOf(res), id],
    );
    if (!row) throw await missingTask(client, id);
    const current = pick(row, 't', TASK);
    if (body.changeSequence !== undefined && body.changeSequence !== null && body.changeSequence !== current.changeSequence) {
      throw new HttpError(409, 'Conflict', `changeSequence ${String(body.changeSequence)} is stale: the task is at ${String(current.changeSequence)}`);
    }
    const changed = Object.keys(changes).filter((field) => changes[field] !== current[field]);
    let answer = current;
    if (changed.length > 0) {
      const [updated] = await sql(
        client,
        'task-update',
        `update task t set title = coalesce($2, title), priority = coalesce($3, priority), change_sequence = change_sequence + 1, updated_on = $4
          where t.id = $1 returning ${select('t', TASK)}`,
        [id, changes.title ?? null, changes.priority ?? null, new Date()],
      );
      answer = pick(updated, 't', TASK);
    }
    await sql(client, 'commit', 'commit', []);
    res.json(answer);
  } catch (error) {
    await sql(client, 'rollback', 'rollback', []).catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

/** The checked fields of a task create. */
function taskBody(body: unknown): { projectId: string; title: string; priority: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Bad Request', 'request body must be a JSON object');
  const fields = body as Row;
  const projectId = uuidParam(fields.projectId, 'projectId');
  const title = fields.title ?? '';
  const priority = fields.priority ?? 0;
  if (typeof title !== 'string' || title.length > 1000) throw new HttpError(400, 'Bad Request', 'title must be a string of at most 1000 characters');
  if (!Number.isInteger(priority) || Math.abs(priority as number) > INT32_MAX) throw new HttpError(400, 'Bad Request', 'priority must be a 32-bit integer');
  return { projectId, title, priority: priority as number };
}

/**
 * POST: one statement, a transaction in itself: the insert guarded by the project being live and the
 * caller's, with the task's CREATED activity, its task_created event and, when the project has an
 * enabled task_created trigger, the job that evaluates it, returning the new row.
 */
app.post('/api/tasks', async (req, res) => {
  if (req.get('x-bench-baseline') === 'transaction') return postInTransaction(req, res);
  const { projectId, title, priority } = taskBody(req.body);
  const now = new Date();
  const [row] = await sql(
    pool,
    'task-insert',
    `with created as (
       insert into task as t (id, uuid, created_on, updated_on, change_sequence, deleted, title, description, project_id, priority, locked, properties, document_family_ids)
       select gen_random_uuid(), gen_random_uuid(), $3, $3, 0, false, $4, '', p.id, $5, false, '{}', '[]'
         from project p join organization o on o.id = p.organization_id
        where p.id = $2 and not p.deleted and o.archived is not true and ${VISIBLE}
       returning ${select('t', TASK)}),
     activity as (
       insert into task_activity (id, uuid, created_on, updated_on, change_sequence, task_id, type, text, actor_id, actor_type, details)
       select gen_random_uuid(), gen_random_uuid(), $3, $3, 0, c."t.id", 'CREATED', 'Task created', $1, 'API_KEY', '{}' from created c),
     event as (
       insert into platform_event (id, uuid, created_on, updated_on, change_sequence, project_id, organization_id, event_type, event_detail, notified, date_time)
       select gen_random_uuid(), gen_random_uuid(), $3, $3, 0, c."t.projectId", p.organization_id, 'task_created', jsonb_build_object('taskId', c."t.id"), false, $3
         from created c join project p on p.id = c."t.projectId"
       returning id, project_id),
     job as (
       select graphile_worker.add_job('evaluate-triggers', json_build_object('eventId', e.id), max_attempts => 10) from event e
        where exists (select 1 from "trigger" tr where tr.project_id = e.project_id and tr.event_kind = 'task_created' and tr.enabled))
     select c.* from created c left join (select count(*) from job) j on true`,
    [callerOf(res), projectId, now, title, priority],
  );
  if (!row) throw new HttpError(400, 'Bad Request', `projectId: no Project with id ${projectId} in this organization`);
  res.status(201).location(`/api/tasks/${row['t.id'] as string}`).json(taskJson(row));
});

/**
 * POST as a hand-written transactional handler writes it: the project checked (live, the caller's),
 * the task, its CREATED activity, its task_created event with the job that evaluates the project's
 * triggers when it has an enabled one, in one transaction of separate statements.
 */
async function postInTransaction(req: Request, res: Response): Promise<void> {
  const { projectId, title, priority } = taskBody(req.body);
  const now = new Date();
  const client = await pool.connect();
  try {
    await sql(client, 'begin', 'begin', []);
    const [project] = await sql(
      client,
      'task-project',
      `select p.id, p.organization_id from project p join organization o on o.id = p.organization_id where p.id = $2 and not p.deleted and o.archived is not true and ${VISIBLE}`,
      [callerOf(res), projectId],
    );
    if (!project) throw new HttpError(400, 'Bad Request', `projectId: no Project with id ${projectId} in this organization`);
    const [row] = await sql(
      client,
      'task-insert-alone',
      `insert into task as t (id, uuid, created_on, updated_on, change_sequence, deleted, title, description, project_id, priority, locked, properties, document_family_ids)
       values (gen_random_uuid(), gen_random_uuid(), $1, $1, 0, false, $2, '', $3, $4, false, '{}', '[]') returning ${select('t', TASK)}`,
      [now, title, projectId, priority],
    );
    await sql(
      client,
      'task-activity-insert',
      `insert into task_activity (id, uuid, created_on, updated_on, change_sequence, task_id, type, text, actor_id, actor_type, details)
       values (gen_random_uuid(), gen_random_uuid(), $1, $1, 0, $2, 'CREATED', 'Task created', $3, 'API_KEY', '{}')`,
      [now, row['t.id'], callerOf(res)],
    );
    await sql(
      client,
      'task-event-insert',
      `with event as (
         insert into platform_event (id, uuid, created_on, updated_on, change_sequence, project_id, organization_id, event_type, event_detail, notified, date_time)
         values (gen_random_uuid(), gen_random_uuid(), $1, $1, 0, $2, $4, 'task_created', jsonb_build_object('taskId', $3::uuid), false, $1) returning id)
       select graphile_worker.add_job('evaluate-triggers', json_build_object('eventId', e.id), max_attempts => 10) from event e
        where exists (select 1 from "trigger" tr where tr.project_id = $2 and tr.event_kind = 'task_created' and tr.enabled)`,
      [now, projectId, row['t.id'], project.organization_id],
    );
    await sql(client, 'commit', 'commit', []);
    res.status(201).location(`/api/tasks/${row['t.id'] as string}`).json(taskJson(row));
  } catch (error) {
    await sql(client, 'rollback', 'rollback', []).catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, 'Not Found', 'no such route in the baseline')));
app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
  const known = error instanceof HttpError ? error : new HttpError(500, 'Internal Server Error', (error as Error).message);
  res.status(known.status).json({ error: known.error, message: known.message, status: known.status });
});

const listener = app.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (listener.address() as AddressInfo).port });
});

async function stop(): Promise<void> {
  listener.closeAllConnections();
  listener.close();
  await pool.end().catch(() => undefined);
  process.exit(0);
}

process.on('message', (message: { type: string; id?: number }) => {
  if (message.type === 'stats') {
    process.send?.({ type: 'stats', id: message.id, statements, maxRssKb: process.resourceUsage().maxRSS });
  } else if (message.type === 'stop') {
    void stop();
  }
});
// Bounded: without its parent the baseline has nothing to do.
process.on('disconnect', () => void stop());
