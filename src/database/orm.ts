import { MikroORM, ReflectMetadataProvider, type EntityMetadata } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { join } from 'node:path';
import pg from 'pg';
import { resources } from '../catalog/registry';
import { IdempotencyKey } from '../entities/idempotency-key';
import { LiveRowCount } from '../entities/live-row-count';
import { projectRoot } from './project-root';
import { addListIndexes } from './list-indexes';
import { liveIndexes } from './tenant-key-sql';
import { declareTenantKeys } from '../model/tenant-keys';
import { CountingLogger } from './query-counter';
import { localSettingsSql, REQUEST_SESSION_OPTIONS, requestSettings } from './session-options';
import { DEFAULT_POOL_MODE, recordRoutes, routesOf, type DatabaseRoutes, type PoolMode } from './pool-mode';
import { transactionPoolDialect } from './transaction-pool-dialect';
import { logger } from '../logging/logger';
import { DEFAULT_DATABASE_CONNECT_TIMEOUT_MS, DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS } from '../config/config';
import { ENV } from '../config/variables';

export function ormOptions(clientUrl: string): Options {
  declareTenantKeys(resources);
  return defineConfig({
    clientUrl,
    // Every entity is served by a resource of the registry: the ORM maps those, and the internal
    // tables no resource serves (stored idempotent answers, live-row counts).
    entities: [...resources.map((resource) => resource.entity), IdempotencyKey, LiveRowCount],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    discovery: { onMetadata: addIndexes },
    forceUtcTimezone: true,
    // Migrations always run compiled (dist/migrations), also under the test runner.
    preferTs: false,
    allowGlobalContext: false,
    loggerFactory: (options) => new CountingLogger(options),
    debug: ENV.LOG_SQL.read() ? ['query'] : false,
    pool: { min: 0, max: 10 },
    migrations: {
      // Migrations are TypeScript in migrations/ and run compiled from dist/migrations.
      path: join(projectRoot, 'dist', 'migrations'),
      pathTs: join(projectRoot, 'migrations'),
      glob: '!(*.d).js',
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  });
}

/** The list indexes of every entity, and the live-row indexes of a resource below an organization. */
function addIndexes(meta: EntityMetadata): void {
  addListIndexes(meta);
  const resource = resources.find((r) => r.entity === meta.class);
  if (resource) meta.indexes.push(...(liveIndexes(resource) as typeof meta.indexes));
}

export interface DatabaseOptions {
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS (default 10000): PostgreSQL cancels any statement of the ORM's
   * connections that runs longer (SQLSTATE 57014, answered 503). Migrations are not bound by it.
   */
  statementTimeoutMs?: number;
  /** DATABASE_POOL_MODE (default session): what serves the URL given (see pool-mode.ts). */
  poolMode?: PoolMode;
  /** DATABASE_DIRECT_URL (default: the URL given): a session of its own, for migrations (and LISTEN, the job queue). */
  directUrl?: string;
  /**
   * DATABASE_CONNECT_TIMEOUT_MS (default 5000): longest a request waits for a connection of the ORM's
   * pool, a new one included (the database unreachable answers 503 by then, not after a minute).
   */
  connectTimeoutMs?: number;
}

/**
 * Connects and applies pending migrations (on `directUrl`). Processes starting at once on one database
 * take turns (a session advisory lock on a connection of its own): the first migrates, the others find
 * it done. Then every statement of the ORM runs under the statement timeout and the request settings.
 */
export async function openDatabase(
  clientUrl: string,
  {
    statementTimeoutMs = DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs = DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
    poolMode = DEFAULT_POOL_MODE,
    directUrl = clientUrl,
  }: DatabaseOptions = {},
): Promise<MikroORM<PostgreSqlDriver>> {
  const settingsSql = localSettingsSql(requestSettings(statementTimeoutMs));
  const routes: DatabaseRoutes = { poolMode, url: clientUrl, directUrl, statementTimeoutMs, connectTimeoutMs, settingsSql };
  if (poolMode === 'transaction' && directUrl === clientUrl) {
    logger.warn(
      'DATABASE_POOL_MODE=transaction without DATABASE_DIRECT_URL: migrations, LISTEN and the job queue go through the pooler, whose transaction mode cannot keep their sessions',
    );
  }
  // Migrations may rewrite whole tables: they run before the timeout of requests is set.
  const migrated = await MikroORM.init<PostgreSqlDriver>(ormOptions(directUrl));
  await migrate(migrated, directUrl);
  let orm = migrated;
  if (directUrl === clientUrl && poolMode === 'session') {
    // The connections opened from here on (the migrations' are closed) start with the settings.
    await orm.reconnect({ driverOptions: requestDriverOptions(routes) });
  } else {
    await migrated.close(true);
    // The database exists (it was just migrated); a pooler need not serve the `postgres` database the check would use.
    orm = await MikroORM.init<PostgreSqlDriver>({ ...ormOptions(clientUrl), ensureDatabase: false, driverOptions: requestDriverOptions(routes) });
  }
  recordRoutes(orm.config, routes);
  return orm;
}

/** Applies pending migrations, one process at a time (a session advisory lock: `url` must give a session of its own). */
async function migrate(orm: MikroORM<PostgreSqlDriver>, url: string): Promise<void> {
  // Waiting for another process's migrations may take long: this connection has no statement timeout.
  const turn = new pg.Client({ connectionString: url });
  await turn.connect();
  try {
    await turn.query(`select pg_advisory_lock(hashtext('platform-migrations'))`);
    const applied = await orm.getMigrator().up();
    if (applied.length) logger.info({ migrations: applied.map((m) => m.name) }, 'applied migrations');
  } finally {
    // Ending the session releases its lock.
    await turn.end();
  }
}

/**
 * How the ORM's statements get the statement timeout and the request settings, so that none a request
 * causes runs unbounded, whatever the filter or the lock it waits on: in session mode as startup
 * parameters of every connection; behind a pooler in transaction mode within every transaction
 * (PgBouncer refuses the startup parameters `options` and `statement_timeout`, and a session setting
 * would reach whichever client's transaction gets the server connection next).
 */
function requestDriverOptions({ poolMode, statementTimeoutMs, connectTimeoutMs, settingsSql }: DatabaseRoutes): Options['driverOptions'] {
  // The pool's wait for a connection (knex's acquireConnectionTimeout) and node-postgres's for a new one
  // are both bounded: an unreachable database is a 503 within DATABASE_CONNECT_TIMEOUT_MS.
  const bounded = { acquireConnectionTimeout: connectTimeoutMs };
  if (poolMode === 'transaction') return { ...bounded, client: transactionPoolDialect(settingsSql), connection: { connectionTimeoutMillis: connectTimeoutMs } };
  return { ...bounded, connection: { statement_timeout: statementTimeoutMs, options: REQUEST_SESSION_OPTIONS, connectionTimeoutMillis: connectTimeoutMs } };
}

/** The statement timeout openDatabase gave the ORM's statements (undefined for an ORM opened otherwise). */
export function statementTimeoutOf(orm: MikroORM): number | undefined {
  return routesOf(orm.config)?.statementTimeoutMs;
}

/** The connect timeout openDatabase gave the ORM's connections (undefined for an ORM opened otherwise). */
export function connectTimeoutOf(orm: MikroORM): number | undefined {
  return routesOf(orm.config)?.connectTimeoutMs;
}

/**
 * `url` whose node-postgres connections start with `statement_timeout`: the pools that serve requests
 * beside the ORM's (the read pool) are bound as the ORM is. node-postgres reads the parameters of a
 * connection string over its other options, and passes this one to PostgreSQL when connecting.
 */
export function withStatementTimeout(url: string, timeoutMs: number | undefined): string {
  if (timeoutMs === undefined) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('statement_timeout', String(timeoutMs));
  return parsed.toString();
}
