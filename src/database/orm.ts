import { MikroORM, ReflectMetadataProvider, type EntityMetadata } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { join } from 'node:path';
import pg from 'pg';
import { resources } from '../catalog/registry';
import { IdempotencyKey } from '../entities/idempotency-key';
import { projectRoot } from './project-root';
import { addListIndexes } from './list-indexes';
import { liveIndexes } from './tenant-key-sql';
import { declareTenantKeys } from '../model/tenant-keys';
import { CountingLogger } from './query-counter';
import { REQUEST_SESSION_OPTIONS } from './session-options';
import { logger } from '../logging/logger';
import { DEFAULT_DATABASE_CONNECT_TIMEOUT_MS, DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS } from '../config/config';

export function ormOptions(clientUrl: string): Options {
  declareTenantKeys(resources);
  return defineConfig({
    clientUrl,
    // Every entity is served by a resource of the registry: the ORM maps those, and the internal
    // tables no resource serves (stored idempotent answers).
    entities: [...resources.map((resource) => resource.entity), IdempotencyKey],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    discovery: { onMetadata: addIndexes },
    forceUtcTimezone: true,
    // Migrations always run compiled (dist/migrations), also under the test runner.
    preferTs: false,
    allowGlobalContext: false,
    loggerFactory: (options) => new CountingLogger(options),
    debug: process.env.LOG_SQL === '1' ? ['query'] : false,
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
  /**
   * DATABASE_CONNECT_TIMEOUT_MS (default 5000): longest a request waits for a connection of the ORM's
   * pool, a new one included (the database unreachable answers 503 by then, not after a minute).
   */
  connectTimeoutMs?: number;
}

/**
 * Connects and applies pending migrations. Processes starting at once on one database take turns (a
 * session advisory lock on a connection of its own): the first migrates, the others find it done. Then
 * every connection of the pool starts with the statement timeout.
 */
export async function openDatabase(
  clientUrl: string,
  { statementTimeoutMs = DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS, connectTimeoutMs = DEFAULT_DATABASE_CONNECT_TIMEOUT_MS }: DatabaseOptions = {},
): Promise<MikroORM<PostgreSqlDriver>> {
  // Migrations may rewrite whole tables: they run before the timeout of requests is set.
  const orm = await MikroORM.init<PostgreSqlDriver>(ormOptions(clientUrl));
  // Waiting for another process's migrations may take long: this connection has no statement timeout.
  const turn = new pg.Client({ connectionString: clientUrl });
  await turn.connect();
  try {
    await turn.query(`select pg_advisory_lock(hashtext('platform-migrations'))`);
    const applied = await orm.getMigrator().up();
    if (applied.length) logger.info({ migrations: applied.map((m) => m.name) }, 'applied migrations');
  } finally {
    // Ending the session releases its lock.
    await turn.end();
  }
  // Startup parameters of every connection opened from here on (the migrations' are closed): no
  // statement a request causes runs unbounded, whatever the filter or the lock it waits on.
  // The pool's wait for a connection (knex's acquireConnectionTimeout) and node-postgres's for a new one
  // are both bounded: an unreachable database is a 503 within DATABASE_CONNECT_TIMEOUT_MS.
  await orm.reconnect({
    driverOptions: {
      acquireConnectionTimeout: connectTimeoutMs,
      connection: { statement_timeout: statementTimeoutMs, options: REQUEST_SESSION_OPTIONS, connectionTimeoutMillis: connectTimeoutMs },
    },
  });
  return orm;
}

/** The statement timeout openDatabase gave the ORM's connections (undefined for an ORM opened otherwise). */
export function statementTimeoutOf(orm: MikroORM): number | undefined {
  const driverOptions = orm.config.get('driverOptions') as { connection?: { statement_timeout?: unknown } } | undefined;
  const timeout = driverOptions?.connection?.statement_timeout;
  return typeof timeout === 'number' ? timeout : undefined;
}

/** The connect timeout openDatabase gave the ORM's connections (undefined for an ORM opened otherwise). */
export function connectTimeoutOf(orm: MikroORM): number | undefined {
  const driverOptions = orm.config.get('driverOptions') as { acquireConnectionTimeout?: unknown } | undefined;
  const timeout = driverOptions?.acquireConnectionTimeout;
  return typeof timeout === 'number' ? timeout : undefined;
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
