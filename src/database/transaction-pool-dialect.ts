import { PostgreSqlKnexDialect } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { inSettingsTransaction } from './pool-mode';

/** What knex hands its PostgreSQL client's `_query`: the statement, and where the answer goes. */
interface KnexQuery {
  sql: string;
  bindings?: readonly unknown[];
  response?: unknown;
}

/** knex's private way of running one statement on one of its connections (the dialect's extension point). */
type RunOnKnexConnection = (connection: pg.Client, query: KnexQuery) => Promise<KnexQuery>;

const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;

/**
 * The ORM's (knex's) PostgreSQL client for a pooler in transaction mode: the connections open without
 * session settings, so every statement gets `settingsSql` (localSettingsSql) within its transaction:
 * - a transaction's BEGIN is followed by the settings in the same round trip;
 * - a statement sent outside a transaction without bindings (the ORM writes its values into the text)
 *   is sent as one implicit transaction after the settings, still in one round trip;
 * - one with bindings runs in a transaction of its own that starts with the settings.
 */
export function transactionPoolDialect(settingsSql: string): typeof PostgreSqlKnexDialect {
  const prototype = PostgreSqlKnexDialect.prototype as unknown as { _query: RunOnKnexConnection };
  const runOnConnection = prototype._query;

  class TransactionPoolDialect extends PostgreSqlKnexDialect {
    async _query(connection: pg.Client, query: KnexQuery): Promise<KnexQuery> {
      const run = (statement: KnexQuery) => runOnConnection.call(this, connection, statement);
      if (TRANSACTION_START.test(query.sql)) {
        const started = await run({ ...query, sql: `${query.sql.replace(/;\s*$/, '')}; ${settingsSql}` });
        query.response = (started.response as unknown[])[0];
        return query;
      }
      if (connection.getTransactionStatus() !== 'I') return run(query);
      if (query.bindings?.length) return inSettingsTransaction(connection, settingsSql, () => run(query));
      const answered = await run({ ...query, sql: `${settingsSql}; ${query.sql}` });
      query.response = answersAfterSettings(answered.response);
      return query;
    }
  }
  return TransactionPoolDialect;
}

/** The answer of the statements sent after the settings: one result, or the list of several. */
function answersAfterSettings(response: unknown): unknown {
  const results = (response as unknown[]).slice(1);
  return results.length === 1 ? results[0] : results;
}
