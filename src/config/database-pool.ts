/**
 * DATABASE_POOL_MODE: what sits between the server and PostgreSQL on DATABASE_URL.
 * - `session` (default): each connection is a server session of its own for as long as it is open
 *   (PostgreSQL itself, or a pooler in session mode). Connections start with the request settings and
 *   keep named prepared statements.
 * - `transaction`: a pooler in transaction mode (PgBouncer) hands each transaction to whichever server
 *   connection is free, so nothing may outlive a transaction: no named prepared statements and no
 *   session settings; the settings are given to every transaction instead.
 */
export const POOL_MODES = ['session', 'transaction'] as const;
export type PoolMode = (typeof POOL_MODES)[number];
export const DEFAULT_POOL_MODE: PoolMode = 'session';

export function isPoolMode(value: string): value is PoolMode {
  return (POOL_MODES as readonly string[]).includes(value);
}
