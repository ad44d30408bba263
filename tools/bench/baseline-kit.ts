import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { REQUEST_SESSION_OPTIONS } from '../../src/database/session-options';

/**
 * What the express + `pg` baselines of `npm run bench` share (bench/same-sql.ts, bench/least-sql.ts):
 * their pool and statement counter, the caller look-up, the columns and JSON of the answers the server
 * gives, its page envelope, parameter checks, errors, and the child-process protocol (IPC `ready`,
 * `stats`, `record`, `stop`; the process exits when its parent goes away). PostGraphile's process
 * (bench/postgraphile.ts) takes the pool, the counter, the caller look-up and the protocol.
 */

export type Row = Record<string, unknown>;
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * The pool, as large as the server's (BASELINE_POOL_SIZE), its sessions set as the server's are (JIT
 * off): the comparison is about the code, not the connections or their settings. Idle connections close
 * soon (BASELINE_IDLE_MS, see baseline-process.ts).
 */
export const pool = new pg.Pool({
  connectionString: process.env.BASELINE_DATABASE_URL,
  options: REQUEST_SESSION_OPTIONS,
  max: Number(process.env.BASELINE_POOL_SIZE ?? 10),
  idleTimeoutMillis: Number(process.env.BASELINE_IDLE_MS ?? 1000),
});
// An idle connection that fails is dropped by the pool; the next query opens another.
pool.on('error', () => undefined);

/** A statement as recorded for comparing with the server's: its text, and whether it was sent as a named prepared statement. */
export interface SentStatement {
  text: string;
  named: boolean;
}

/** Every statement sent (begin and commit too, as the server's counter does); while `recorded` is set, the statements too. */
export const counter: { statements: number; recorded?: SentStatement[] } = { statements: 0 };

/** Texts get a name of their own the first time they are sent: each is parsed and planned once per connection. */
const names = new Map<string, string>();

/** A named prepared statement (planned once per connection). */
export async function sql(db: Queryable, text: string, values: unknown[]): Promise<Row[]> {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `s${names.size}`));
  return send(db, { name, text, values });
}

async function send(db: Queryable, query: pg.QueryConfig): Promise<Row[]> {
  counter.statements += 1;
  counter.recorded?.push({ text: query.text, named: query.name !== undefined });
  return (await db.query(query)).rows as Row[];
}

// The columns of each table in the order of the server's answers, by their names there.
export const TASK = [
  'id',
  'uuid',
  'createdOn',
  'updatedOn',
  'changeSequence',
  'deleted',
  'deletedDate',
  'deleteUserId',
  'deleteUserEmail',
  'title',
  'description',
  'projectId',
  'statusSlug',
  'assigneeId',
  'priority',
  'dueDate',
  'completedDate',
  'taskGroupId',
  'parentTaskId',
  'templateId',
  'locked',
  'lockedAt',
  'lockedById',
  'createdByActivityId',
  'properties',
  'documentFamilyIds',
];
export const PROJECT = [
  'id',
  'uuid',
  'createdOn',
  'updatedOn',
  'changeSequence',
  'deleted',
  'deletedDate',
  'deleteUserId',
  'deleteUserEmail',
  'name',
  'slug',
  'description',
  'notes',
  'color',
  'searchText',
  'organizationId',
  'ownerId',
  'statusId',
  'projectTemplateRef',
  'templateArticleId',
  'statusType',
  'memory',
  'dataFlow',
  'options',
];
/** The fields of a document status, as a project's `documentStatuses` embeds them (its own `project` null). */
export const DOCUMENT_STATUS = ['id', 'uuid', 'createdOn', 'updatedOn', 'changeSequence', 'status', 'slug', 'color', 'icon', 'statusType', 'projectId'];

/** Most rows of an embedded collection an answer holds per row. */
export const EMBEDDED_COLLECTION_MAX = 100;

export const ORGANIZATION = [
  'id',
  'uuid',
  'createdOn',
  'updatedOn',
  'changeSequence',
  'name',
  'slug',
  'description',
  'searchText',
  'organizationStatus',
  'publicAccess',
  'authGroupLink',
  'hasImage',
  'defaultToPrivateTemplates',
  'memory',
  'supportAccess',
  'supportAccessExpiresAt',
  'billingCustomerId',
  'enterpriseOrganization',
  'properties',
  'features',
  'archived',
];

export const column = (field: string) => field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The JSON of one table's columns in a row, each read from `key(field)` (dates become ISO text when the answer is serialised). */
export function pick(row: Row, fields: string[], key: (field: string) => string = (f) => f): Row {
  const out: Row = {};
  for (const field of fields) out[field] = row[key(field)] ?? null;
  return out;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** The SHA-256 of an API key, as the server stores it in access_token.token_hash. */
export const keyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/**
 * Express middleware that puts the caller of the request's API key in `res.locals.caller`: looked up by
 * `find` once, then remembered for 30 s, as the server does (AUTH_CACHE_SECONDS).
 */
export function authenticator<C>(find: (hash: string) => Promise<C | undefined>) {
  const KEY_CACHE_MS = 30_000;
  const callers = new Map<string, { caller: C; until: number }>();
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('x-api-key');
    if (!key) throw new HttpError(401, 'Unauthorized', 'authentication required');
    const cached = callers.get(key);
    if (cached && cached.until > Date.now()) {
      res.locals.caller = cached.caller;
      return next();
    }
    const caller = await find(keyHash(key));
    if (!caller) throw new HttpError(401, 'Unauthorized', 'invalid credentials');
    callers.set(key, { caller, until: Date.now() + KEY_CACHE_MS });
    res.locals.caller = caller;
    next();
  };
}

/** Who calls: a platform administrator sees every organization, anyone else those they belong to through a team. */
export interface Caller {
  id: string;
  admin: boolean;
  /** The live organizations the caller belongs to (empty for an administrator, who needs none). */
  organizations: string[];
}

/** The caller behind a key's hash, with its organizations, in one statement (the server caches both as long). */
export async function findCaller(hash: string): Promise<Caller | undefined> {
  const [row] = await sql(
    pool,
    `select u.id, coalesce((u.security::jsonb -> 'roles') ? 'PLATFORM_ADMIN', false) as admin,
            array(select distinct t.organization_id from team_member m join team t on t.id = m.team_id
                    join organization o on o.id = t.organization_id where m.user_id = u.id and not o.archived) as organizations
       from access_token a join platform_user u on u.id = a.user_id
      where a.token_hash = $1 and u.active and (a.expires_at is null or a.expires_at > now())`,
    [hash],
  );
  return row && { id: row.id as string, admin: row.admin as boolean, organizations: row.organizations as string[] };
}

export const callerOf = (res: Response) => res.locals.caller as Caller;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuidParam(value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new HttpError(400, 'Bad Request', `${field} must be a UUID`);
  return value.toLowerCase();
}

export function intParam(raw: unknown, field: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) throw new HttpError(400, 'Bad Request', `${field} must be between ${min} and ${max}`);
  return value;
}

/** `pageSize` and `page` of a list request, as the server reads them. */
export function pageParams(req: Request): { size: number; number: number } {
  return { size: intParam(req.query.pageSize, 'pageSize', 10, 1, 100), number: intParam(req.query.page, 'page', 0, 0, 2147483647) };
}

/** The filtered-sorted case's parameters: the organization's slug and the direction of the sort by name. */
export function projectPageParams(req: Request): { slug: string; direction: 'asc' | 'desc' } {
  const slug = /^organization\.slug=='([^']*)'$/.exec(String(req.query.filter ?? ''))?.[1];
  const direction = ({ 'name:asc': 'asc', 'name:desc': 'desc' } as const)[String(req.query.sort)];
  if (slug === undefined || direction === undefined)
    throw new HttpError(400, 'Bad Request', "this baseline serves filter=organization.slug=='…'&sort=name:asc|desc only");
  return { slug, direction };
}

/** The REST page answer, as the server shapes it. */
export function page(content: unknown[], totalElements: number, number: number, size: number, sorted: boolean): Row {
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

/** The total of a page: counted by `count`, unless the page itself shows where the rows end (as the server does). */
export async function total(rows: unknown[], number: number, size: number, count: () => Promise<Row[]>): Promise<number> {
  if ((rows.length > 0 && rows.length < size) || (number === 0 && rows.length === 0)) return number * size + rows.length;
  return Number((await count())[0].count);
}

export const INT32_MAX = 2147483647;

/** The checked fields of a task PUT: the title and the priority, when given. */
export function taskChanges(body: unknown): { title?: string; priority?: number; changeSequence?: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Bad Request', 'request body must be a JSON object');
  const fields = body as Row;
  const changes: { title?: string; priority?: number; changeSequence?: number } = {};
  if (fields.title !== undefined) {
    if (typeof fields.title !== 'string' || fields.title.length > 1000)
      throw new HttpError(400, 'Bad Request', 'title must be a string of at most 1000 characters');
    changes.title = fields.title;
  }
  if (fields.priority !== undefined) {
    if (!Number.isInteger(fields.priority) || Math.abs(fields.priority as number) > INT32_MAX)
      throw new HttpError(400, 'Bad Request', 'priority must be a 32-bit integer');
    changes.priority = fields.priority as number;
  }
  if (fields.changeSequence !== undefined && fields.changeSequence !== null) changes.changeSequence = Number(fields.changeSequence);
  return changes;
}

/** The checked fields of a task create. */
export function taskBody(body: unknown): { projectId: string; title: string; priority: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Bad Request', 'request body must be a JSON object');
  const fields = body as Row;
  const projectId = uuidParam(fields.projectId, 'projectId');
  const title = fields.title ?? '';
  const priority = fields.priority ?? 0;
  if (typeof title !== 'string' || title.length > 1000) throw new HttpError(400, 'Bad Request', 'title must be a string of at most 1000 characters');
  if (!Number.isInteger(priority) || Math.abs(priority as number) > INT32_MAX) throw new HttpError(400, 'Bad Request', 'priority must be a 32-bit integer');
  return { projectId, title, priority: priority as number };
}

/** 403 when the task exists (live) but the caller may not see it, 404 otherwise. */
export function missing(kind: string, id: string, exists: boolean): HttpError {
  return exists ? new HttpError(403, 'Forbidden', `you may not access ${kind} ${id}`) : new HttpError(404, 'Not Found', `no ${kind} with id ${id}`);
}

/** A bare express 5 app as both baselines use it: no `x-powered-by`, no ETag, the API key checked before the body is read. */
export function baselineApp(authenticate: ReturnType<typeof authenticator>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(authenticate);
  app.use(express.json({ limit: '1mb' }));
  return app;
}

/**
 * Ends the app with its 404 and error handlers, listens on loopback and speaks the child protocol:
 * `ready` with the port, `stats` (statements, peak RSS, and the statements recorded since `record`),
 * `stop`.
 */
export function serve(app: Express): void {
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, 'Not Found', 'no such route in the baseline')));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const known = error instanceof HttpError ? error : new HttpError(500, 'Internal Server Error', (error as Error).message);
    res.status(known.status).json({ error: known.error, message: known.message, status: known.status });
  });
  const listener = app.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (listener.address() as AddressInfo).port });
  });
  const stop = async () => {
    listener.closeAllConnections();
    listener.close();
    await pool.end().catch(() => undefined);
    process.exit(0);
  };
  answerParent(stop);
}

/** The IPC of a bench child: `stats` answered from `counter`, `record` starts keeping texts, `stop` ends it. */
export function answerParent(stop: () => Promise<void>): void {
  process.on('message', (message: { type: string; id?: number }) => {
    if (message.type === 'stats') {
      const recorded = counter.recorded;
      counter.recorded = undefined;
      process.send?.({ type: 'stats', id: message.id, statements: counter.statements, maxRssKb: process.resourceUsage().maxRSS, recorded });
    } else if (message.type === 'record') {
      counter.recorded = [];
      process.send?.({ type: 'recording', id: message.id });
    } else if (message.type === 'stop') {
      void stop();
    }
  });
  // Bounded: without its parent the baseline has nothing to do.
  process.on('disconnect', () => void stop());
}
