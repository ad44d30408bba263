import type pg from 'pg';
import { DEFAULT_POOL_MODE, type PoolMode } from '../config/database-pool';

export { DEFAULT_POOL_MODE, type PoolMode };

/** Where each kind of work connects, as openDatabase was told. */
export interface DatabaseRoutes {
  poolMode: PoolMode;
  /** DATABASE_URL: requests' statements (the ORM and the read pool). */
  url: string;
  /** DATABASE_DIRECT_URL (default DATABASE_URL): what needs a session of its own (LISTEN, the job queue and its locks, migrations). */
  directUrl: string;
  /** DATABASE_STATEMENT_TIMEOUT_MS of requests' statements. */
  statementTimeoutMs?: number;
  /** DATABASE_CONNECT_TIMEOUT_MS: longest a request waits for a connection. */
  connectTimeoutMs?: number;
  /** The statement that gives a transaction the request settings and the statement timeout (localSettingsSql). */
  settingsSql: string;
}

/** The routes of each opened ORM, by its configuration (which its EntityManagers share). */
const routesByConfig = new WeakMap<object, DatabaseRoutes>();

export function recordRoutes(ormConfig: object, routes: DatabaseRoutes): void {
  routesByConfig.set(ormConfig, routes);
}

/** The routes of the ORM (or EntityManager) whose configuration is `ormConfig`; undefined for an ORM opened otherwise. */
export function routesOf(ormConfig: object): DatabaseRoutes | undefined {
  return routesByConfig.get(ormConfig);
}

/** The pool mode of the ORM whose configuration is `ormConfig` (session for an ORM opened otherwise). */
export function poolModeOf(ormConfig: object): PoolMode {
  return routesOf(ormConfig)?.poolMode ?? DEFAULT_POOL_MODE;
}

/**
 * The name a prepared statement is sent with. A named statement lives in the server session that parsed
 * it: in transaction mode the next execution may reach another session, where the name is unknown, so
 * statements go unnamed there (parsed and planned at each execution).
 */
export function statementName(mode: PoolMode, name: string | undefined): string | undefined {
  return mode === 'transaction' || !name ? undefined : name;
}

/**
 * Runs `work` (statements on `client`) in a transaction that starts with `settingsSql` (SET LOCAL
 * settings, see localSettingsSql): in transaction mode, the way a statement that would run on its own
 * gets the settings a session would have given it. Rolled back when `work` fails; the client is then
 * back outside any transaction unless the connection itself failed (see `isReusable`).
 */
export async function inSettingsTransaction<R>(client: pg.ClientBase, settingsSql: string, work: () => Promise<R>): Promise<R> {
  // BEGIN and the settings in one round trip (a simple query may hold several statements).
  await client.query(`begin; ${settingsSql}`);
  try {
    const result = await work();
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** False for a connection left inside a transaction (a rollback that could not be sent): the pool must drop it. */
export function isReusable(client: pg.ClientBase): boolean {
  return (client as pg.Client).getTransactionStatus?.() === 'I';
}
