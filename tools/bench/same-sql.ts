import { randomUUID } from 'node:crypto';
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
import { organizationQueueSql, queuesPerOrganization } from '../../src/jobs/job-queue';
import { isoTime, jsonValue, memberName, objectText } from '../../src/engine/json-pages';
import { Task } from '../../src/entities/task';
import { fieldsOf, isAnswered } from '../../src/model/fields';

/**
 * The "same SQL" baseline of `npm run bench`: bare express 5 and `pg` sending, request for request, the
 * statements the server sends, with their texts (aliases, `in` lists, bound booleans and all) and the
 * same way (named prepared statements where the server names them; `begin` and `commit` unnamed), so
 * that server/same-SQL measures the Node side alone. The bench records the
 * server's statements and these for one request of every case and reports where they differ: when the
 * server's SQL changes, this file follows it. Runs in a child process (bench/baseline-process.ts).
 *
 * Deliberately not generic: tasks travel alone; a project embeds its organization, its owner and status
 * as null (the seeded projects have none); times are parsed by `pg` into dates and written as ISO text.
 */

/** `"e0"."created_on" as "createdOn", ...`: a select list as the ORM's query builder writes it (`"e0"`) or the item statements (`r0`). */
const listOf = (alias: string, fields: string[]) => fields.map((f) => `${alias}."${column(f)}" as "${f}"`).join(', ');

/** `($first, $first+1, ...)`: an `in` list as the query builder expands an array, one parameter per value. */
const inList = (first: number, count: number) => `(${Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ')})`;

/** A job's queue as the server names it, its three parameters from `$first` (organization, subject, queues). */
const queueName = (first: number) => organizationQueueSql(`$${first}`, `$${first + 1}`, `$${first + 2}`);
/** The server's queues per organization at its default WORKER_CONCURRENCY. */
const JOB_QUEUES_PER_ORGANIZATION = queuesPerOrganization(0);

/** The query builder's page: `limit`, and `offset` only past the first page. */
const limitOffset = (next: number, number: number) => (number > 0 ? `limit $${next} offset $${next + 1}` : `limit $${next}`);
const limitValues = (size: number, number: number) => (number > 0 ? [size, number * size] : [size]);

const app = baselineApp(authenticator(findCaller));

/** A task as the REST answer's JSON text, from the columns of the row aliased `alias`: the server's own field writers, in its order. */
const TASK_FIELDS = fieldsOf(Task).filter(isAnswered);
const taskJson = (alias: string) => objectText(TASK_FIELDS.map((field) => [memberName(field.name), jsonValue(field, alias)]));
/** The select list of a task row as the query builder writes it. */
const TASK_COLUMNS = listOf(
  '"e_0"',
  TASK_FIELDS.map((field) => field.name),
);
/** RESPONSE_MAX_BYTES at its default: where a level's rows stop. */
const MAX_BYTES = 16 * 1024 * 1024;
/** The JSON text of the statement, sent only when it fits in the bytes left (the first value bound). */
const BOUNDED = `case when octet_length("j"."json") <= $1::bigint then "j"."json" end as "json", octet_length("j"."json") as "bytes"`;

/** The tenancy condition of a task for a member: `"alias"."tenant_id" in ($first, ...)`, none for an administrator. */
const tenantOf = (alias: string, caller: Caller, first: number) =>
  caller.admin ? [] : [`"${alias}"."tenant_id" in ${inList(first, caller.organizations.length)}`];
const orgValues = (caller: Caller) => (caller.admin ? [] : caller.organizations);

/**
 * get-by-id: one statement in which the database writes the task's JSON, with its id and version (the
 * ETag) and whether a live row has the id (403 apart from 404).
 */
app.get('/api/tasks/:id', async (req: Request, res: Response) => {
  const id = String(req.params.id);
  const caller = callerOf(res);
  const visibleFrom = 6;
  const next = visibleFrom + orgValues(caller).length;
  const where = [...tenantOf('e_0', caller, visibleFrom), `"e_0"."deleted" = $${next}`, `"e_0"."parent_hidden" = $${next + 1}`, `"e_0"."id" = "__item"."id"`];
  const text =
    `with "__item"("id") as (select $1::uuid) select ${BOUNDED.replace('$1', '$2')}, "j"."id", "j"."changeSequence", ` +
    `case when "j"."json" is null then exists ((select 1 from "task" as "l0" where "l0"."id" = "__item"."id" and "l0"."deleted" = $3 and "l0"."parent_hidden" = $4 limit $5)) end as "live"
           from "__item" left join lateral (select ${taskJson('__row0')} as "json", "__row0"."id", "__row0"."changeSequence" from ((select ${TASK_COLUMNS} from "task" as "e_0" where ${where.join(' and ')} limit $${next + 2})) as "__row0" offset 0) "j" on true`;
  const [row] = await sql(pool, text, [id, MAX_BYTES, false, false, 1, ...orgValues(caller), false, false, 1]);
  if (row.json === null) throw missing('Task', id, row.live as boolean);
  res
    .set('ETag', `"${row.id as string}.${row.changeSequence as number}"`)
    .type('application/json')
    .send(row.json as string);
});

/** The tenancy conditions of a list, as the query builder writes them: `"e0"."tenant_id" in (...)` then the live flags. */
function listWhere(alias: string, tenantColumn: string, caller: Caller, first: number): { where: string[]; values: unknown[] } {
  const tenant = caller.admin ? [] : [`${alias}."${tenantColumn}" in ${inList(first, caller.organizations.length)}`];
  const next = first + (caller.admin ? 0 : caller.organizations.length);
  return {
    where: [...tenant, `${alias}."deleted" = $${next}`, `${alias}."parent_hidden" = $${next + 1}`],
    values: [...(caller.admin ? [] : caller.organizations), false, false],
  };
}

/**
 * page of tasks with total: one statement in which the database writes the page (its rows in creation
 * order, each level's rows no further than RESPONSE_MAX_BYTES, its total and paging).
 */
app.get('/api/tasks', async (req: Request, res: Response) => {
  const { size, number } = pageParams(req);
  const caller = callerOf(res);
  const values: unknown[] = [MAX_BYTES];
  const param = (value: unknown) => `$${values.push(value)}`;
  const live = (alias: string) => {
    const tenant = caller.admin ? [] : [`"${alias}"."tenant_id" in (${caller.organizations.map(param).join(', ')})`];
    return [...tenant, `"${alias}"."deleted" = ${param(false)}`, `"${alias}"."parent_hidden" = ${param(false)}`].join(' and ');
  };
  const rows = `((select ${TASK_COLUMNS} from "task" as "e_0" where ${live('e_0')} order by "e_0"."created_on" asc, "e_0"."id" asc limit ${param(size)}${number > 0 ? ` offset ${param(number * size)}` : ''}))`;
  const running = `(select "json", sum(octet_length("json")) over (rows between unbounded preceding and 1 preceding) as "before" from (select ${taskJson('__row0')} as "json" from ${rows} as "__row0" offset 0) as "__row0_json")`;
  const content = `coalesce((select '[' || string_agg("json", ',') || ']' from ${running} as "__row0_kept" where coalesce("before", 0) <= ${MAX_BYTES}), '[]')`;
  const total = `"__count0"."count"`;
  const totalPages = `ceil(${total}::numeric / ${size})::int`;
  const sort = { empty: true, sorted: false, unsorted: true };
  const object = objectText([
    [memberName('content'), content],
    [memberName('totalElements'), `${total}::text`],
    [memberName('totalPages'), `${totalPages}::text`],
    [memberName('number'), `'${number}'`],
    [memberName('size'), `'${size}'`],
    [memberName('numberOfElements'), `least(greatest(${total} - ${number * size}, 0), ${size})::text`],
    [memberName('first'), `'${number === 0}'`],
    [memberName('last'), `(${number} >= ${totalPages} - 1)::text`],
    [memberName('pageable'), `'${JSON.stringify({ offset: number * size, pageNumber: number, pageSize: size, paged: true, unpaged: false, sort })}'`],
    [memberName('sort'), `'${JSON.stringify(sort)}'`],
  ]);
  const table = param('task');
  const tenants = caller.admin ? '' : ` and "tenant_id" = any(${param(`{${caller.organizations.join(',')}}`)}::uuid[])`;
  const count = `(select coalesce(sum("rows"), 0)::bigint as "count" from "live_row_count" where "table_name" = ${table}${tenants})`;
  const text = `select ${BOUNDED} from (select (select ${object} from ${count} as "__count0") as "json" offset 0) "j"`;
  const [row] = await sql(pool, text, values);
  if (row.json === null) throw new HttpError(400, 'Bad Request', 'the answer is larger than RESPONSE_MAX_BYTES');
  res.type('application/json').send(row.json as string);
});

/** filtered and sorted page: the projects of the organization named by its slug, by name, then their organizations by id. */
app.get('/api/projects', async (req: Request, res: Response) => {
  const { size, number } = pageParams(req);
  const { slug, direction } = projectPageParams(req);
  const caller = callerOf(res);
  const where = (alias: string) => {
    const own = listWhere(alias, 'organization_id', caller, 1);
    let next = own.values.length + 1;
    const conditions = [...own.where, `"o1"."slug" = $${next++}`];
    const values = [...own.values, slug];
    if (!caller.admin) {
      // The joined organization must be visible too: the same list again.
      conditions.push(`${alias}."organization_id" in ${inList(next, caller.organizations.length)}`);
      values.push(...caller.organizations);
    }
    return { text: `inner join "organization" as "o1" on ${alias}."organization_id" = "o1"."id" where ${conditions.join(' and ')}`, values };
  };
  const paged = where('"e0"');
  const rows = await sql(
    pool,
    `select ${listOf('"e0"', PROJECT)} from "project" as "e0" ${paged.text} order by "e0"."name" ${direction}, "e0"."id" asc ${limitOffset(paged.values.length + 1, number)}`,
    [...paged.values, ...limitValues(size, number)],
  );
  const counted = where('"c0"');
  const count = await total(rows, number, size, () => sql(pool, `select count(*) as "count" from "project" as "c0" ${counted.text}`, counted.values));
  const organizations = await embeddedOrganizations(caller, rows);
  const statuses = await embeddedDocumentStatuses(caller, rows);
  const content = rows.map((row) => ({
    ...pick(row, PROJECT),
    organization: organizations.get(row.organizationId as string) ?? null,
    owner: null,
    status: null,
    documentStatuses: statuses.get(row.id as string) ?? [],
  }));
  res.json(page(content, count, number, size, true));
});

/** The document statuses a page of projects embeds: one page per project in one statement, each joined laterally to its count. */
async function embeddedDocumentStatuses(caller: Caller, projects: Row[]): Promise<Map<string, Row[]>> {
  const statuses = new Map<string, Row[]>(projects.map((p) => [p.id as string, []]));
  if (projects.length === 0) return statuses;
  const values: unknown[] = [`{${[...statuses.keys()].join(',')}}`];
  const param = (value: unknown) => `$${values.push(value)}`;
  // A member's rows of their organizations (the tenant key), live, of the parent.
  const live = (alias: string) =>
    [
      ...(caller.admin ? [] : [`"${alias}"."tenant_id" in (${caller.organizations.map(param).join(', ')})`]),
      `"${alias}"."parent_hidden" = ${param(false)}`,
      `"${alias}"."project_id" = "parent"."id"`,
    ].join(' and ');
  const counted = live('c0');
  const paged = live('e0');
  const rows = await sql(
    pool,
    `select parent.id as "__parent", counted.count as "__total", paged.*
           from unnest($1::uuid[]) as parent(id)
           cross join lateral (select count(*) as "count" from "document_status" as "c0" where ${counted}) as counted
           left join lateral (select ${listOf('"e0"', DOCUMENT_STATUS)} from "document_status" as "e0" where ${paged} order by "e0"."created_on" asc, "e0"."id" asc limit ${param(EMBEDDED_COLLECTION_MAX)}) as paged on true`,
    values,
  );
  for (const row of rows) if (row.id !== null) statuses.get(row.__parent as string)!.push({ ...pick(row, DOCUMENT_STATUS), project: null });
  return statuses;
}

/** The organizations a page of projects embeds, in one prepared statement by id. */
async function embeddedOrganizations(caller: Caller, projects: Row[]): Promise<Map<string, Row>> {
  const ids = [...new Set(projects.map((p) => p.organizationId as string))];
  if (ids.length === 0) return new Map();
  const visible = caller.admin ? '' : ` and r0."id" = any($2::uuid[])`;
  const rows = await sql(
    pool,
    `select ${listOf('r0', ORGANIZATION)} from "organization" r0 where r0."id" = any($1::uuid[]) and not r0."archived"${visible}`,
    caller.admin ? [ids] : [ids, caller.organizations],
  );
  return new Map(rows.map((row) => [row.id as string, pick(row, ORGANIZATION)]));
}

/**
 * The nested GraphQL read: one statement in which the database writes the answer's JSON, level by
 * level (each page's rows limited, then each row's own page and count correlated to it), sent on as text
 * when it fits in the answer's bytes.
 */
app.post('/graphql', async (req: Request, res: Response) => {
  if (req.body?.query !== NESTED_QUERY) throw new HttpError(400, 'Bad Request', 'this baseline answers the benchmark query only');
  const caller = callerOf(res);
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  // The bytes left to the answer (RESPONSE_MAX_BYTES): the text is sent only when it fits.
  const bytesLeft = param(16 * 1024 * 1024);
  /** The caller's rows of a level at depth `d`: the tenancy condition (members), the liveness conditions, the parent row. */
  const where = (alias: string, d: number, tenantColumn: string, live: string[], parentColumn?: string) =>
    [
      ...(caller.admin ? [] : [`"${alias}"."${tenantColumn}" in (${caller.organizations.map(param).join(', ')})`]),
      ...live.map((column) => `"${alias}"."${column}" = ${param(false)}`),
      ...(parentColumn ? [`"${alias}"."${parentColumn}" = "__row${d - 1}"."id"`] : []),
    ].join(' and ');
  /** A compact JSON object as SQL text concatenation, members `[name, SQL of the value's JSON text]`. */
  const object = (members: [string, string][]) => `${members.map(([name, value], i) => `'${i === 0 ? '{' : ','}"${name}":' || ${value}`).join(' || ')} || '}'`;
  const text = (d: number, field: string) => [field, `coalesce(to_json("__row${d}"."${field}")::text, 'null')`] as [string, string];
  const level = (d: number, table: string, tenantColumn: string, live: string[], parentColumn: string | undefined, fields: string[], row: () => string) => {
    // Parameters are numbered in the order of the text: the row's JSON (its children's pages) comes first.
    const json = row();
    const rows =
      `((select ${listOf(`"e_${d}"`, fields)} from "${table}" as "e_${d}" ` +
      `where ${where(`e_${d}`, d, tenantColumn, live, parentColumn)} order by "e_${d}"."created_on" asc, "e_${d}"."id" asc limit ${param(10)}))`;
    const running = `(select "json", sum(octet_length("json")) over (rows between unbounded preceding and 1 preceding) as "before" from (select ${json} as "json" from ${rows} as "__row${d}" offset 0) as "__row${d}_json")`;
    const content = `coalesce((select '[' || string_agg("json", ',') || ']' from ${running} as "__row${d}_kept" where coalesce("before", 0) <= ${16 * 1024 * 1024}), '[]')`;
    const count = `(select count(*) as "count" from "${table}" as "c_${d}" where ${where(`c_${d}`, d, tenantColumn, live, parentColumn)})`;
    return `select ${object([
      ['totalElements', `"__count${d}"."count"::text`],
      ['content', content],
    ])} from (${count}) as "__count${d}"`;
  };
  const tasks = () =>
    level(2, 'task', 'tenant_id', ['deleted', 'parent_hidden'], 'project_id', ['id', 'title', 'priority', 'createdOn'], () =>
      object([
        text(2, 'id'),
        text(2, 'title'),
        ['priority', `coalesce("__row2"."priority"::text, 'null')`],
        ['createdOn', `coalesce('"' || ${isoTime('"__row2"."createdOn"')} || '"', 'null')`],
      ]),
    );
  const projects = () =>
    level(1, 'project', 'organization_id', ['deleted', 'parent_hidden'], 'organization_id', ['id', 'name', 'slug'], () =>
      object([text(1, 'id'), text(1, 'name'), text(1, 'slug'), ['tasks', `(${tasks()})`]]),
    );
  const organizations = level(0, 'organization', 'id', ['archived'], undefined, ['id', 'name', 'slug'], () =>
    object([text(0, 'id'), text(0, 'name'), text(0, 'slug'), ['projects', `(${projects()})`]]),
  );
  const [row] = await sql(
    pool,
    `select case when octet_length("j"."json") <= ${bytesLeft}::bigint then "j"."json" end as "json", octet_length("j"."json") as "bytes" from (select (${organizations}) as "json" offset 0) "j"`,
    values,
  );
  if (row.json === null) throw new HttpError(400, 'Bad Request', 'the answer is larger than RESPONSE_MAX_BYTES');
  res.type('application/json').send(`{"data":{"organizations":${row.json as string}}}`);
});

/**
 * PUT: one `update … returning` of the sent fields (sorted, then the time of update and the next
 * changeSequence), guarded as the server's locking read is (live, visible) and written only when a value
 * differs. The bench's PUTs always change the row; a second statement would tell why one did not.
 */
app.put('/api/tasks/:id', async (req: Request, res: Response) => {
  const id = String(req.params.id);
  const changes = taskChanges(req.body);
  const caller = callerOf(res);
  const sent = (['priority', 'title'] as const).filter((field) => changes[field] !== undefined).sort((a, b) => column(a).localeCompare(column(b)));
  const guard = caller.admin ? [id] : [id, caller.organizations];
  const at = (index: number) => `$${guard.length + index + 1}`;
  const tenant = caller.admin ? '' : ` and r0."tenant_id" = any($2::uuid[])`;
  const assignments = [...sent.map((f, i) => `"${column(f)}" = ${at(i)}`), `"updated_on" = ${at(sent.length)}`, `"change_sequence" = r0."change_sequence" + 1`];
  const differs = sent.map((f, i) => `r0."${column(f)}" is distinct from ${at(i)}`).join(' or ');
  const [row] = await sql(
    pool,
    `update "task" r0 set ${assignments.join(', ')} where r0."id" = $1::uuid and not r0."deleted" and not r0."parent_hidden"${tenant} and (${differs}) returning r0.*`,
    [...guard, ...sent.map((f) => changes[f]), new Date()],
  );
  if (!row) throw new HttpError(409, 'Conflict', 'the bench changes the task on every PUT');
  res.json(pick(row, TASK, column));
});

/** A task's columns as the server inserts them, sorted by column name, for a new task of a project. */
function newTask(projectId: string, title: string, priority: number, now: Date): Row {
  return {
    assigneeId: null,
    changeSequence: 0,
    completedDate: null,
    createdByActivityId: null,
    createdOn: now,
    deleteUserEmail: null,
    deleteUserId: null,
    deleted: false,
    deletedDate: null,
    description: '',
    documentFamilyIds: [],
    dueDate: null,
    id: randomUUID(),
    locked: false,
    lockedAt: null,
    lockedById: null,
    parentTaskId: null,
    priority,
    projectId,
    properties: {},
    statusSlug: null,
    taskGroupId: null,
    templateId: null,
    title,
    updatedOn: now,
    uuid: randomUUID(),
  };
}

/** `insert into "table" ("a", "b") values ($1, $2)` of a row's fields, in the order given, its parameters after `offset` others. */
function insertText(table: string, fields: string[], offset = 0): string {
  return `insert into "${table}" (${fields.map((f) => `"${column(f)}"`).join(', ')}) values (${fields.map((_, i) => `$${offset + i + 1}`).join(', ')})`;
}

/** A value as `pg` must bind it for a json or jsonb column (arrays would otherwise become PostgreSQL arrays). */
const bound = (value: unknown) => (value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value);

/**
 * POST: the project's check (live, the caller's); then the task, its task_created event, the job that
 * evaluates the project's triggers when it has one enabled and the job that delivers the event's webhooks
 * when an endpoint takes it, in one statement; then its CREATED activity.
 */
app.post('/api/tasks', async (req: Request, res: Response) => {
  const { projectId, title, priority } = taskBody(req.body);
  const caller = callerOf(res);
  const now = new Date();
  const task = newTask(projectId, title, priority, now);
  const tenant = caller.admin ? '' : ` and r0."organization_id" = any($2::uuid[])`;
  const [project] = await sql(
    pool,
    `select r0."id", r0."organization_id" as "__organization" from "project" r0 where r0."id" = $1::uuid and not r0."deleted" and not r0."parent_hidden"${tenant}`,
    caller.admin ? [projectId] : [projectId, caller.organizations],
  );
  if (!project) throw new HttpError(400, 'Bad Request', `projectId: no Project with id ${projectId} in this organization`);
  const fields = Object.keys(task);
  const eventFields = [
    'changeSequence',
    'createdOn',
    'dateTime',
    'eventDetail',
    'eventType',
    'id',
    'notified',
    'organizationId',
    'projectId',
    'updatedOn',
    'uuid',
  ];
  const eventId = randomUUID();
  await sql(
    pool,
    `with w0 as (${insertText('task', fields)}), w1 as (${insertText('platform_event', eventFields, fields.length)}), ` +
      `f1 as (select 1 from graphile_worker.add_job($38::text, $39::json, max_attempts => $40::int, queue_name => ${queueName(41)}) where exists (select 1 from "trigger" t where t.project_id = $44 and t.event_kind = $45 and t.enabled and t.id is distinct from $46::uuid) ` +
      `union all select 1 from graphile_worker.add_job($47::text, $48::json, max_attempts => $49::int, queue_name => ${queueName(50)}) where exists (select 1 from webhook_endpoint w\n` +
      ` where w.organization_id = $53::uuid and w.enabled and not w.parent_hidden\n` +
      `   and (w.project_id is null or w.project_id = $54::uuid)\n` +
      `   and (w.event_types = '[]'::jsonb or w.event_types @> jsonb_build_array($55::text)))) ` +
      `select (select count(*) from f1)`,
    [
      ...fields.map((f) => bound(task[f])),
      0,
      now,
      now,
      JSON.stringify({ taskId: task.id }),
      'task_created',
      eventId,
      false,
      project.__organization,
      projectId,
      now,
      randomUUID(),
      'evaluate-triggers',
      JSON.stringify({ eventId }),
      10,
      project.__organization,
      eventId,
      JOB_QUEUES_PER_ORGANIZATION,
      projectId,
      'task_created',
      null,
      'dispatch-webhooks',
      JSON.stringify({ eventId }),
      10,
      project.__organization,
      eventId,
      JOB_QUEUES_PER_ORGANIZATION,
      project.__organization,
      projectId,
      'task_created',
    ],
  );
  await sql(
    pool,
    insertText('task_activity', ['actorId', 'actorType', 'changeSequence', 'createdOn', 'details', 'id', 'taskId', 'text', 'type', 'updatedOn', 'uuid']),
    [caller.id, 'API_KEY', 0, now, '{}', randomUUID(), task.id, 'Task created', 'CREATED', now, randomUUID()],
  );
  res
    .status(201)
    .location(`/api/tasks/${task.id as string}`)
    .json(pick(task, TASK));
});

serve(app);
