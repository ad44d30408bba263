import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger, LogLevel, Runner, TaskList, WorkerEvents, WorkerPool } from 'graphile-worker' with { 'resolution-mode': 'import' };
import pg from 'pg';
import { DEFAULT_WORKER_CONCURRENCY } from '../config/config';
import { runOnConnection } from '../database/prepared-in-transaction';
import { within } from '../model/deadline';
import { shiftParameters, type FollowingStatement } from '../database/row-writes';
import { logger } from '../logging/logger';
import { OutageLog } from '../logging/outage-log';
import { isConnectionFailure } from '../errors/database-unavailable';
import { LivenessConnection } from './liveness';
import { BACKGROUND_CONNECT_TIMEOUT_MS } from '../database/listener';

/**
 * The background job queue: graphile-worker on the application's own PostgreSQL. A job is a row added
 * in the transaction of the change that asks for it (so a change rolled back asks for nothing), and
 * LISTEN/NOTIFY wakes a worker at once. Its schema (`graphile_worker`) is created and upgraded by its own
 * migrations when the database is opened.
 */
export const JOB_SCHEMA = 'graphile_worker';

/** Attempts of a job that throws (a lost connection, a database restart): retried with backoff. */
export const JOB_MAX_ATTEMPTS = 10;

/**
 * The queue's connections to the database (its pool, its LISTEN, the liveness connection) as one: a
 * database restart is one warning and one info line, however many connections fail and retry meanwhile.
 */
const queueOutage = new OutageLog('job queue');

/** Whether a line graphile-worker logs at warning or error is about a lost or unreachable database. */
function isOutageLine(message: string, meta: unknown): boolean {
  const { error, fatalError } = (meta ?? {}) as { error?: unknown; fatalError?: unknown };
  return isConnectionFailure(error) || isConnectionFailure(fatalError) || isConnectionFailure({ message });
}

/** graphile-worker is an ECMAScript module: loaded once, when the queue is first used. */
let library: Promise<{ module: typeof import('graphile-worker', { with: { 'resolution-mode': 'import' } }); logger: Logger }> | undefined;

function graphileWorker() {
  library ??= import('graphile-worker').then((module) => ({
    module,
    logger: new module.Logger(() => (level: LogLevel, message: string, meta?: unknown) => {
      const fields = { queue: true, ...(meta as object | undefined) };
      // Its connections fail and retry while the database is away: told once, as the outage's.
      if ((level === 'error' || level === 'warning') && isOutageLine(message, meta)) queueOutage.lost((meta as { error?: unknown })?.error ?? message);
      else if (level === 'error') logger.error(fields, message);
      else if (level === 'warning') logger.warn(fields, message);
      else logger.debug(fields, message);
    }),
  }));
  return library;
}

/** Creates or upgrades the queue's schema; safe to run from many processes at once. */
export async function migrateJobQueue(connectionString: string): Promise<void> {
  const { module, logger: queueLogger } = await graphileWorker();
  await module.runMigrations({ connectionString, logger: queueLogger, schema: JOB_SCHEMA });
  await announceFreedQueues(connectionString);
}

/**
 * A named queue's next job waits until the job before it is completed, and graphile-worker completes a
 * job in the background while its worker already looks for the next one: a job added to a queue that was
 * still taken (by the job that asked for it, say) would be found only at the next poll, a second later.
 * So a queue freed on commit wakes a worker, as an added job does (`jobs:insert`). Installed once per
 * start (processes starting together take turns).
 */
async function announceFreedQueues(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`begin;
      select pg_advisory_xact_lock(${LIVENESS_LOCK_CLASS}, hashtext('announce-freed-queues'));
      create or replace function ${JOB_SCHEMA}.tg_job_queue_freed() returns trigger language plpgsql as $$
        begin
          perform pg_notify('jobs:insert', json_build_object('count', 1, 'queue', new.queue_name)::text);
          return null;
        end;
      $$;
      create or replace trigger _900_job_queue_freed after update of locked_at on ${JOB_SCHEMA}._private_job_queues
        for each row when (old.locked_at is not null and new.locked_at is null) execute function ${JOB_SCHEMA}.tg_job_queue_freed();
      commit;`);
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * Whose job it is. Each organization's jobs wait in named queues of its own, `queues` of them
 * (graphile-worker runs one job of a named queue at a time, and its workers skip a queue whose job is
 * running): an organization runs at most `queues` jobs at once, whatever it has waiting and however
 * slow they are, and the other workers stay free for the other organizations. The queue is picked by
 * `subject` (the delivery, event or activity the job is about), so every job of one subject, retries
 * included, waits in one queue, in the order it was added.
 */
export interface JobOwner {
  organizationId: string;
  subject: string;
  /** Named queues per organization (see `queuesPerOrganization`). */
  queues: number;
}

/**
 * At most half of a process's WORKER_CONCURRENCY workers (at least 1) run one organization's jobs: the
 * other half is left to the others. A process that runs no worker spreads the jobs it adds as a process
 * with the default concurrency would.
 */
export function queuesPerOrganization(workerConcurrency: number): number {
  return Math.max(1, Math.floor((workerConcurrency || DEFAULT_WORKER_CONCURRENCY) / 2));
}

/**
 * The SQL of a job's queue name, `org:<organization>:<n>` with n from the hash of the subject below
 * `queues`; the arguments are SQL expressions (parameters or columns).
 */
export function organizationQueueSql(organizationId: string, subject: string, queues: string): string {
  return `'org:' || ${organizationId}::text || ':' || mod(hashtext(${subject}::text)::bigint + 2147483648, ${queues}::int)`;
}

/** The parameters of `organizationQueueSql` over `$n`, `$n+1`, `$n+2`, in that order. */
function ownerParameters(owner: JobOwner): unknown[] {
  return [owner.organizationId, owner.subject, owner.queues];
}

const ADD_JOB = {
  name: 'add-organization-job',
  text: `select 1 from ${JOB_SCHEMA}.add_job($1::text, $2::json, max_attempts => $3::int, queue_name => ${organizationQueueSql('$4', '$5', '$6')})`,
};

/** Adds a job of `owner` in the EntityManager's transaction (at once outside one). */
export async function enqueueJob(em: EntityManager, name: string, payload: object, owner: JobOwner): Promise<void> {
  await runOnConnection(em, ADD_JOB, [name, JSON.stringify(payload), JOB_MAX_ATTEMPTS, ...ownerParameters(owner)]);
}

const ADD_KEYED_JOB = {
  name: 'add-keyed-organization-job',
  text: `select 1 from ${JOB_SCHEMA}.add_job($1::text, $2::json, max_attempts => $3::int, queue_name => ${organizationQueueSql('$4', '$5', '$6')},
           run_at => $7::timestamptz, job_key => $8::text, job_key_mode => 'replace')`,
};

/**
 * Adds the one job of `jobKey` to run at `runAt` (now when absent), in the EntityManager's transaction:
 * a job of that key still waiting is replaced, so that a subject never has two waiting at once.
 */
export async function enqueueKeyedJob(em: EntityManager, name: string, payload: object, owner: JobOwner, jobKey: string, runAt?: Date): Promise<void> {
  await runOnConnection(em, ADD_KEYED_JOB, [
    name,
    JSON.stringify(payload),
    JOB_MAX_ATTEMPTS,
    ...ownerParameters(owner),
    (runAt ?? new Date()).toISOString(),
    jobKey,
  ]);
}

/** The jobs of the queue by state, read when asked (the `job_queue_depth` metric). */
export interface JobCounts {
  /** Not taken by a worker, with attempts left (retries scheduled for later included). */
  waiting: number;
  /** Taken by a worker. */
  running: number;
  /** Not taken and without attempts left: kept by the queue, never run again. */
  failed: number;
}

const COUNT_JOBS = `select count(*) filter (where locked_at is null and attempts < max_attempts)::int as waiting,
                          count(*) filter (where locked_at is not null)::int as running,
                          count(*) filter (where locked_at is null and attempts >= max_attempts)::int as failed
                     from ${JOB_SCHEMA}._private_jobs`;

/** Counts the queue's jobs with `database` (the read pool). */
export async function countJobs(database: { run<R>(text: string, values: unknown[]): Promise<R[]> }): Promise<JobCounts> {
  const [counts] = await database.run<JobCounts>(COUNT_JOBS, []);
  return counts;
}

/** A condition of a job: a query whose parameters are `$1`, `$2` ..., named by `key` (it is prepared once). */
export interface JobCondition {
  key: string;
  sql: string;
  params: unknown[];
}

/**
 * The statement that adds a job only when `condition` finds a row, to send with the INSERT of the row
 * that asks for it (row-writes.ts `insertRow`), so that asking costs no round trip of its own.
 */
export function jobStatementIf(name: string, payload: object, owner: JobOwner, condition: JobCondition): FollowingStatement {
  return {
    key: `add-job-if-${condition.key}`,
    sql: `${ADD_JOB.text} where exists (${shiftParameters(condition.sql, 6)})`,
    params: [name, JSON.stringify(payload), JOB_MAX_ATTEMPTS, ...ownerParameters(owner), ...condition.params],
  };
}

/**
 * Several statements that follow one INSERT as one (`union all`, each adding its job or not), so that
 * the row's statement stays a single SELECT after it; undefined when there are none.
 */
export function allOfStatements(statements: readonly (FollowingStatement | undefined)[]): FollowingStatement | undefined {
  const present = statements.filter((statement): statement is FollowingStatement => statement !== undefined);
  if (present.length <= 1) return present[0];
  let offset = 0;
  const parts = present.map((statement) => {
    const sql = shiftParameters(statement.sql, offset);
    offset += statement.params.length;
    return sql;
  });
  return { key: present.map((statement) => statement.key).join('+'), sql: parts.join(' union all '), params: present.flatMap((statement) => statement.params) };
}

/**
 * graphile-worker keeps a job locked by a worker that died for hours. Each worker of this process holds
 * a session advisory lock named after its id on one connection, which PostgreSQL releases the moment the
 * process is gone; a job whose worker's lock is free is given back to the queue (by any process, at
 * start and then every few seconds), so a crash loses nothing and a restart resumes at once.
 */
const LIVENESS_LOCK_CLASS = 0x6a6f6273; // 'jobs'
/** A job locked more recently than this may belong to a worker whose advisory lock is being taken. */
const LOCK_GRACE_SECONDS = 3;
/**
 * After a database restart (or a lost connection) every worker's lock is free until its process has
 * reconnected and taken it again (within a second or two): no job is taken for abandoned while the
 * database started this recently, nor by a process that reconnected this recently itself.
 */
const REJOIN_GRACE_SECONDS = 10;
const REAP_INTERVAL_MS = 5_000;

/**
 * A worker looking for a job locks every idle named queue's row (graphile-worker's get_job), and each
 * organization that ever had a job leaves rows behind: those no job waits in are dropped every hour (the
 * next job of the organization adds its queue again). A job added in the very instant its queue's row is
 * dropped runs outside the queue, once.
 */
export const FORGET_IDLE_QUEUES_JOB = 'forget-idle-job-queues';
const FORGET_IDLE_QUEUES_CRONTAB = `17 * * * * ${FORGET_IDLE_QUEUES_JOB}`;
const FORGET_IDLE_QUEUES = `delete from ${JOB_SCHEMA}._private_job_queues q
  where q.locked_at is null and not exists (select 1 from ${JOB_SCHEMA}._private_jobs j where j.job_queue_id = q.id)`;

/** How long `JobWorker.stop` waits for running jobs unless told otherwise. */
const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * graphile-worker's graceful stop (no new job, no cron, running jobs finish), made forceful when running
 * jobs outlast `graceMs`: their jobs are failed (an attempt spent, retried after a backoff of seconds by
 * any process) and true is returned. Their code is not stopped: the caller closes what it writes with
 * before anyone could run them again.
 */
async function finishOrHandBack(runner: Runner, pool: WorkerPool | undefined, graceMs: number): Promise<boolean> {
  let forced = false;
  // Once forced, the graceful stop reports the jobs cut off as an error: expected then.
  const stopped = runner.stop('the server is shutting down').then(
    () => true,
    (error: unknown) =>
      forced ? logger.debug({ err: error }, 'job workers stopped by force') : logger.error({ err: error }, 'the job workers did not stop cleanly'),
  );
  if (await within(stopped, graceMs, false)) return false;
  forced = true;
  logger.warn({ graceMs }, 'jobs still running at the end of the shutdown grace period are handed back to the queue');
  try {
    // runner.kill() does nothing once a graceful stop has begun; the pool itself can still be forced.
    if (!pool) throw new Error('the worker pool was never announced');
    const { forceFailedJobs } = await pool.forcefulShutdown('the server shut down while the job ran');
    logger.warn({ jobs: forceFailedJobs.map((job) => job.id) }, 'jobs handed back to the queue');
  } catch (error) {
    logger.error({ err: error }, 'could not hand running jobs back; they return to the queue when this process has exited');
  }
  return true;
}

export class JobWorker {
  private readonly ownWorkers = new Set<string>();
  private reaper?: NodeJS.Timeout;
  private runner?: Runner;
  /** The runner's pool of workers (from its `pool:create` event): what a forceful shutdown needs. */
  private workers?: WorkerPool;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly liveness: LivenessConnection,
  ) {}

  /**
   * Runs `tasks` with `concurrency` jobs at once in this process until `stop`; `crontab` (graphile-worker's
   * format) schedules recurring jobs, each run once across all processes.
   */
  static async start(connectionString: string, concurrency: number, tasks: TaskList, crontab?: string): Promise<JobWorker> {
    const liveness = new LivenessConnection(connectionString, LIVENESS_LOCK_CLASS, queueOutage);
    await liveness.open();
    const worker = new JobWorker(new pg.Pool({ connectionString, max: concurrency + 2, connectionTimeoutMillis: BACKGROUND_CONNECT_TIMEOUT_MS }), liveness);
    const events: WorkerEvents = new EventEmitter();
    events.on('worker:create', ({ worker: created }) => worker.holdLiveness(created.workerId));
    events.on('pool:create', ({ workerPool }) => (worker.workers = workerPool));
    // A worker that asked for a job and was answered (none waiting, or one): the queue works again.
    const answered = () => worker.queueAnswered();
    events.on('worker:getJob:empty', answered);
    events.on('job:start', answered);
    const connectionFailed = (error: Error) =>
      isConnectionFailure(error) ? queueOutage.lost(error) : logger.error({ err: error }, 'job queue connection failed');
    worker.pool.on('error', connectionFailed);
    worker.pool.on('connect', (client) => client.on('error', connectionFailed));
    await worker.reapDeadWorkers();
    const { module, logger: queueLogger } = await graphileWorker();
    worker.runner = await module.run({
      pgPool: worker.pool,
      concurrency,
      taskList: { ...tasks, [FORGET_IDLE_QUEUES_JOB]: (_payload, helpers) => helpers.query(FORGET_IDLE_QUEUES).then(() => undefined) },
      schema: JOB_SCHEMA,
      logger: queueLogger,
      events,
      noHandleSignals: true,
      pollInterval: 1_000,
      crontab: [crontab, FORGET_IDLE_QUEUES_CRONTAB].filter(Boolean).join('\n'),
    });
    worker.reaper = setInterval(() => void worker.reapDeadWorkers(), REAP_INTERVAL_MS);
    worker.reaper.unref();
    return worker;
  }

  private stopping?: Promise<void>;

  /**
   * Takes no new job and lets running jobs finish for up to `graceMs`; the jobs still running then are
   * handed back to the queue (as a failed attempt, retried later by any process). Then releases the
   * connections. Calling it again waits for the first call.
   */
  stop(graceMs = DEFAULT_STOP_GRACE_MS): Promise<void> {
    this.stopping ??= this.shutDown(graceMs);
    return this.stopping;
  }

  private async shutDown(graceMs: number): Promise<void> {
    clearInterval(this.reaper);
    const handedBack = this.runner ? await finishOrHandBack(this.runner, this.workers, graceMs) : false;
    await this.liveness.close();
    // The code of a job handed back runs on until the process exits, and its worker then reports the job's
    // end on this pool (changing nothing: the job is no longer its own), so the pool stays open.
    if (!handedBack) await this.pool.end();
  }

  private onLiveness<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.liveness.run<R>(text, values);
  }

  private holdLiveness(workerId: string): void {
    this.ownWorkers.add(workerId);
    this.liveness.hold(workerId).catch((error: unknown) => {
      // Down: the lock is taken when the connection is back.
      if (!isConnectionFailure(error) && this.liveness.connected) logger.error({ err: error, workerId }, 'a job worker could not announce itself alive');
    });
  }

  /** The queue's connections serve again, the liveness one included: the outage (if any) is over. */
  private queueAnswered(): void {
    if (this.liveness.connected) queueOutage.restored();
  }

  /** Gives back to the queue the jobs locked by workers whose process is gone. */
  private async reapDeadWorkers(): Promise<void> {
    const reopenedAt = this.liveness.reopenedAt;
    if (reopenedAt !== undefined && Date.now() - reopenedAt < REJOIN_GRACE_SECONDS * 1000) return;
    try {
      const { rows } = await this.onLiveness<{ workerId: string }>(
        `select distinct locked_by as "workerId" from ${JOB_SCHEMA}._private_jobs
          where locked_by is not null and locked_at < now() - make_interval(secs => $1)
            and pg_postmaster_start_time() < now() - make_interval(secs => $2)`,
        [LOCK_GRACE_SECONDS, REJOIN_GRACE_SECONDS],
      );
      const dead: string[] = [];
      for (const { workerId } of rows) {
        if (this.ownWorkers.has(workerId)) continue;
        const key = [LIVENESS_LOCK_CLASS, workerId];
        const {
          rows: [probe],
        } = await this.onLiveness<{ free: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as free', key);
        if (!probe.free) continue;
        await this.onLiveness('select pg_advisory_unlock($1, hashtext($2))', key);
        dead.push(workerId);
      }
      if (dead.length === 0) return;
      await this.onLiveness(`select ${JOB_SCHEMA}.force_unlock_workers($1::text[])`, [dead]);
      logger.warn({ workers: dead }, 'jobs of stopped workers returned to the queue');
    } catch (error) {
      // While the database is away the liveness connection is being reopened: nothing to reap meanwhile.
      if (isConnectionFailure(error) || !this.liveness.connected) queueOutage.lost(error);
      else logger.error({ err: error }, 'could not look for jobs of stopped workers');
    }
  }
}
