import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { countStatement } from './query-counter';
import type { PreparedStatement } from './read-pool';
import { DEFAULT_POOL_MODE, inSettingsTransaction, routesOf, statementName } from './pool-mode';

/** What the ORM's query builder (knex) exposes of its connections: `pg` clients, from its pool or held by a transaction. */
interface ConnectionSource {
  acquireConnection(): Promise<pg.ClientBase>;
  releaseConnection(connection: pg.ClientBase): Promise<unknown>;
}

/**
 * Runs a prepared statement (`$n` parameters) on the ORM's connection, inside the EntityManager's
 * transaction when it has one: parsed and planned once per connection, then only executed. Arrays are
 * bound as PostgreSQL array literals, so they may hold only UUIDs (what the statements bind).
 */
export function runPreparedInTransaction<R>(em: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  return runOnConnection<R>(em, statement, values.map(boundUuids));
}

/** A list of UUIDs as the PostgreSQL array literal a `$n::uuid[]` parameter takes; other values as they are. */
export function boundUuids(value: unknown): unknown {
  return Array.isArray(value) ? `{${value.join(',')}}` : value;
}

/**
 * Runs a statement with `$n` parameters, its values bound as they are, on the ORM's connection (the
 * transaction's, when the EntityManager has one) straight through `pg`; named, it is parsed and planned
 * once per connection (in session mode: see statementName). Counted like every statement.
 */
export async function runOnConnection<R>(em: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  const routes = routesOf(em.config);
  const name = statementName(routes?.poolMode ?? DEFAULT_POOL_MODE, statement.name);
  countStatement(statement.text, values, name);
  const transaction = em.getTransactionContext<Knex.Transaction>();
  const source = (transaction ?? em.getKnex()).client as unknown as ConnectionSource;
  const connection = await source.acquireConnection();
  const run = () => connection.query({ name, text: statement.text, values });
  try {
    // A statement on its own behind a pooler in transaction mode: its transaction carries the settings.
    const result = transaction || routes?.poolMode !== 'transaction' ? await run() : await inSettingsTransaction(connection, routes.settingsSql, run);
    return result.rows as R[];
  } finally {
    // A transaction's connection stays with the transaction until it ends.
    if (!transaction) await source.releaseConnection(connection);
  }
}
