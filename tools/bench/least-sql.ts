import type { Request, Response } from 'express';
import {
  authenticator,
  baselineApp,
  callerOf,
  column,
  findCaller,
  HttpError,
  missing,
  ORGANIZATION,
  page,
  pageParams,
  pick,
  pool,
  PROJECT,
  DOCUMENT_STATUS,
  EMBEDDED_COLLECTION_MAX,
  projectPageParams,
  serve,
  sql,
  TASK,
  taskBody,
  taskChanges,
  total,
  type Caller,
  type Row,
} from './baseline-kit';
import { NESTED_QUERY } from './cases';

/**
 * The "least SQL" baseline of `npm run bench`: bare express 5 and `pg` answering the same requests with
 * the same JSON as the server, with the fewest and cheapest statements a careful engineer would write on
 * this schema, where every row of an organization carries its organization (`organization_id`, or
 * `tenant_id` deeper down, indexed) and whether an ancestor hides it (`parent_hidden`): tenancy and
 * liveness are conditions on the row's own table, never a join up the path. Every statement is a named
 * prepared statement; the caller (with its organizations) is looked up once per key and cached as the
 * server caches it. server/least-SQL is what the server costs over the least a handler could do.
 * Runs in a child process (bench/baseline-process.ts).
 */

/** `t.created_on as "createdOn", ...`: a select list under `alias`, named as the answer names the fields. */
const listOf = (alias: string, fields: string[], prefix = '') => fields.map((f) => `${alias}.${column(f)} as "${prefix}${f}"`).join(', ');
const TASK_LIST = listOf('t', TASK);

/** Live rows of an organization's table, and for a member only those of its organizations (`$n`, a uuid[]). */
function scoped(caller: Caller, alias: string, tenantColumn: string, n: number): string {
  const live = `not ${alias}.deleted and not ${alias}.parent_hidden`;
  return caller.admin ? live : `${alias}.${tenantColumn} = any($${n}::uuid[]) and ${live}`;
}
/** The values of `scoped`'s parameter, none for an administrator. */
const tenantValues = (caller: Caller) => (caller.admin ? [] : [caller.organizations]);

/** Whether a live task with this id exists, for a 403 apart from a 404 (only when the first statement found nothing). */
async function taskExists(id: string): Promise<boolean> {
  return (await sql(pool, `select 1 from task t where t.id = $1 and not t.deleted and not t.parent_hidden`, [id])).length > 0;
}

const app = baselineApp(authenticator(findCaller));

/** get-by-id: one statement on one table. */
app.get('/api/tasks/:id', async (req: Request, res: Response) => {
  const id = String(req.params.id);
  const caller = callerOf(res);
  const [row] = await sql(pool, `select ${TASK_LIST} from task t where t.id = $1 and ${scoped(caller, 't', 'tenant_id', 2)}`, [id, ...tenantValues(caller)]);
  if (!row) throw missing('Task', id, await taskExists(id));
  res.json(pick(row, TASK));
});

/** page of tasks with total: the page in creation order, then (when the page is full) the sum of the kept counts. */
app.get('/api/tasks', async (req: Request, res: Response) => {
  const { size, number } = pageParams(req);
  const caller = callerOf(res);
  const where = scoped(caller, 't', 'tenant_id', 3);
  const rows = await sql(pool, `select ${TASK_LIST} from task t where ${where} order by t.created_on, t.id limit $1 offset $2`, [
    size,
    number * size,
    ...tenantValues(caller),
  ]);
  // The schema keeps each organization's live tasks counted (live_row_count): the total is their sum.
  const tenants = caller.admin ? '' : ` and tenant_id = any($1::uuid[])`;
  const count = await total(rows, number, size, () =>
    sql(pool, `select coalesce(sum(rows), 0) as count from live_row_count where table_name = 'task'${tenants}`, tenantValues(caller)),
  );
  res.json(
    page(
      rows.map((row) => pick(row, TASK)),
      count,
      number,
      size,
      false,
    ),
  );
});

/** The live document statuses of each project (oldest first, as many as an answer embeds), in one statement: a live project's are visible with it. */
async function documentStatusesOf(projectIds: string[]): Promise<Map<string, Row[]>> {
  const statuses = new Map<string, Row[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return statuses;
  const rows = await sql(
    pool,
    `select ${listOf('d', DOCUMENT_STATUS)} from unnest($1::uuid[]) as p(id)
       cross join lateral (select * from document_status d where d.project_id = p.id and not d.parent_hidden order by d.created_on, d.id limit ${EMBEDDED_COLLECTION_MAX}) d`,
    [projectIds],
  );
  for (const row of rows) statuses.get(row.projectId as string)!.push({ ...pick(row, DOCUMENT_STATUS), project: null });
  return statuses;
}

/** filtered and sorted page: the projects of the organization named by its slug, by name, each with its organization (joined). */
app.get('/api/projects', async (req: Request, res: Response) => {
  const { size, number } = pageParams(req);
  const { slug, direction } = projectPageParams(req);
  const caller = callerOf(res);
  // A live project's organization is live (parent_hidden says so): the join is for the slug and the embedded organization only.
  const from = (n: number) => `project p join organization o on o.id = p.organization_id where o.slug = $1 and ${scoped(caller, 'p', 'organization_id', n)}`;
  const rows = await sql(
    pool,
    `select ${listOf('p', PROJECT, 'p.')}, ${listOf('o', ORGANIZATION, 'o.')} from ${from(4)} order by p.name ${direction}, p.id limit $2 offset $3`,
    [slug, size, number * size, ...tenantValues(caller)],
  );
  const count = await total(rows, number, size, () => sql(pool, `select count(*) from ${from(2)}`, [slug, ...tenantValues(caller)]));
  const statuses = await documentStatusesOf(rows.map((row) => row['p.id'] as string));
  const content = rows.map((row) => ({
    ...pick(row, PROJECT, (f) => `p.${f}`),
    organization: pick(row, ORGANIZATION, (f) => `o.${f}`),
    owner: null,
    status: null,
    documentStatuses: statuses.get(row['p.id'] as string) ?? [],
  }));
  res.json(page(content, count, number, size, true));
});

/**
 * The nested GraphQL read in one statement that writes the answer's JSON: the organizations page, each
 * organization joined laterally to its projects' page (aggregated in order, with its count), each
 * project to its tasks' page the same way; sent on as text. Children of live parents need no tenancy
 * condition: their organization is the parent's.
 */
app.post('/graphql', async (req: Request, res: Response) => {
  if (req.body?.query !== NESTED_QUERY) throw new HttpError(400, 'Bad Request', 'this baseline answers the benchmark query only');
  const caller = callerOf(res);
  const tenant = caller.admin ? '' : 'o.id = any($1::uuid[]) and ';
  const live = (alias: string) => `not ${alias}.deleted and not ${alias}.parent_hidden`;
  const [row] = await sql(
    pool,
    `select json_build_object(
        'totalElements', (select count(*) from organization o where ${tenant}not o.archived),
        'content', coalesce(json_agg(json_build_object('id', o.id, 'name', o.name, 'slug', o.slug, 'projects', projects.page) order by o.created_on, o.id), '[]'))::text as answer
       from (select o.id, o.name, o.slug, o.created_on from organization o where ${tenant}not o.archived order by o.created_on, o.id limit 10) o
       cross join lateral (
         select json_build_object(
             'totalElements', (select count(*) from project c where c.organization_id = o.id and ${live('c')}),
             'content', coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'slug', p.slug, 'tasks', tasks.page) order by p.created_on, p.id), '[]')) as page
           from (select p.id, p.name, p.slug, p.created_on from project p where p.organization_id = o.id and ${live('p')} order by p.created_on, p.id limit 10) p
           cross join lateral (
             select json_build_object(
                 'totalElements', (select count(*) from task c where c.project_id = p.id and ${live('c')}),
                 'content', coalesce(json_agg(json_build_object('id', t.id, 'title', t.title, 'priority', t.priority,
                   'createdOn', to_char(t.created_on at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by t.created_on, t.id), '[]')) as page
               from (select t.id, t.title, t.priority, t.created_on from task t where t.project_id = p.id and ${live('t')} order by t.created_on, t.id limit 10) t
           ) tasks
       ) projects`,
    tenantValues(caller),
  );
  res.type('application/json').send(`{"data":{"organizations":${row.answer as string}}}`);
});

/**
 * PUT: one statement, a transaction in itself: the update of a live, visible task whose fields differ
 * (and whose changeSequence matches, when the body gives one), returning the row. Only when it changes
 * nothing does a second statement tell an unchanged row from a conflict, a 403 or a 404.
 */
app.put('/api/tasks/:id', async (req: Request, res: Response) => {
  const id = String(req.params.id);
  const changes = taskChanges(req.body);
  const caller = callerOf(res);
  const [row] = await sql(
    pool,
    `update task t set title = coalesce($2, t.title), priority = coalesce($3, t.priority), change_sequence = t.change_sequence + 1, updated_on = $4
      where t.id = $1 and ${scoped(caller, 't', 'tenant_id', 6)} and ($5::int is null or t.change_sequence = $5)
        and (t.title, t.priority) is distinct from (coalesce($2, t.title), coalesce($3, t.priority))
      returning ${TASK_LIST}`,
    [id, changes.title ?? null, changes.priority ?? null, new Date(), changes.changeSequence ?? null, ...tenantValues(caller)],
  );
  res.json(row ? pick(row, TASK) : await unchanged(caller, id, changes.changeSequence));
});

/** A PUT that changed nothing: the row as it is, or why it was not written. */
async function unchanged(caller: Caller, id: string, changeSequence: number | undefined): Promise<Row> {
  const [row] = await sql(pool, `select ${TASK_LIST} from task t where t.id = $1 and ${scoped(caller, 't', 'tenant_id', 2)}`, [id, ...tenantValues(caller)]);
  if (!row) throw missing('Task', id, await taskExists(id));
  if (changeSequence !== undefined && changeSequence !== row.changeSequence) {
    throw new HttpError(409, 'Conflict', `changeSequence ${changeSequence} is stale: the task is at ${String(row.changeSequence)}`);
  }
  return pick(row, TASK);
}

/**
 * POST: one statement, a transaction in itself: the insert guarded by the project being live and the
 * caller's, with the task's CREATED activity, its task_created event and, when the project has an
 * enabled task_created trigger, the job that evaluates it (and, when a webhook endpoint takes the event,
 * the job that delivers it), returning the new row.
 */
app.post('/api/tasks', async (req: Request, res: Response) => {
  const { projectId, title, priority } = taskBody(req.body);
  const caller = callerOf(res);
  const [row] = await sql(
    pool,
    `with parent as (
       select p.id, p.organization_id from project p where p.id = $2 and ${scoped(caller, 'p', 'organization_id', 6)}),
     created as (
       insert into task as t (id, uuid, created_on, updated_on, change_sequence, deleted, title, description, project_id, priority, locked, properties, document_family_ids)
       select gen_random_uuid(), gen_random_uuid(), $3, $3, 0, false, $4, '', p.id, $5, false, '{}', '[]' from parent p
       returning ${TASK_LIST}),
     activity as (
       insert into task_activity (id, uuid, created_on, updated_on, change_sequence, task_id, type, text, actor_id, actor_type, details)
       select gen_random_uuid(), gen_random_uuid(), $3, $3, 0, c.id, 'CREATED', 'Task created', $1, 'API_KEY', '{}' from created c),
     event as (
       insert into platform_event (id, uuid, created_on, updated_on, change_sequence, project_id, organization_id, event_type, event_detail, notified, date_time)
       select gen_random_uuid(), gen_random_uuid(), $3, $3, 0, p.id, p.organization_id, 'task_created', jsonb_build_object('taskId', c.id), false, $3
         from created c cross join parent p
       returning id, project_id, organization_id),
     job as (
       select graphile_worker.add_job('evaluate-triggers', json_build_object('eventId', e.id), max_attempts => 10) from event e
        where exists (select 1 from "trigger" tr where tr.project_id = e.project_id and tr.event_kind = 'task_created' and tr.enabled)
       union all
       select graphile_worker.add_job('dispatch-webhooks', json_build_object('eventId', e.id), max_attempts => 10) from event e
        where exists (select 1 from webhook_endpoint w where w.organization_id = e.organization_id and w.enabled and not w.parent_hidden
          and (w.project_id is null or w.project_id = e.project_id) and (w.event_types = '[]'::jsonb or w.event_types @> '["task_created"]'::jsonb)))
     select c.* from created c left join (select count(*) from job) j on true`,
    [caller.id, projectId, new Date(), title, priority, ...tenantValues(caller)],
  );
  if (!row) throw new HttpError(400, 'Bad Request', `projectId: no Project with id ${projectId} in this organization`);
  res
    .status(201)
    .location(`/api/tasks/${row.id as string}`)
    .json(pick(row, TASK));
});

serve(app);
