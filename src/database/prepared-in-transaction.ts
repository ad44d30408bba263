import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { countStatement } from './query-counter';
import type { PreparedStatement } from './read-pool';

/**
 * Runs a prepared statement (`$n` parameters) on the ORM's connection, inside the EntityManager's
 * transaction when it has one: parsed and planned once per connection, then only executed. Arrays are
 * bound as PostgreSQL array literals, so they may hold only UUIDs (what the statements bind).
 */
export async function runPreparedInTransaction<R>(em: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  countStatement(statement.text, values);
  const bound: Knex.RawBinding[] = [];
  // The query builder's placeholders are `?`, numbered again in order when sent.
  const text = statement.text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = values[Number(n) - 1];
    bound.push((Array.isArray(value) ? `{${value.join(',')}}` : value) as Knex.RawBinding);
    return '?';
  });
  const query = em.getKnex().raw(text, bound).options({ name: statement.name });
  const transaction = em.getTransactionContext<Knex.Transaction>();
  const result = (await (transaction ? query.transacting(transaction) : query)) as { rows: R[] };
  return result.rows;
}
