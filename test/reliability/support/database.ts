import pg from 'pg';
import { inject } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../../../src/database/database-url';

/** A database of a suite's own on the run's server, so that what it counts is its own doing alone. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const serverUrl = inject('databaseUrl');
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  await ensureDatabase(serverUrl, name);
  return { url: withDatabase(serverUrl, name), drop: () => dropDatabase(serverUrl, name) };
}

/** Per table (`schema.table`): its row count and the sum of its rows' hashes. */
export type Fingerprint = Record<string, string>;

/** Columns a read may write (the last use of an API key): not part of a fingerprint. */
const READ_STAMPS = new Set(['last_used_at']);

/**
 * A fingerprint of a whole database: per table, its row count and a sum of hashes of its rows (every
 * column but READ_STAMPS); the job queue's tables by count. Equal before and after a request that was
 * refused: it wrote nothing anywhere.
 */
export class Fingerprinter {
  private constructor(
    private readonly client: pg.Client,
    private readonly statement: string,
  ) {}

  static async open(url: string): Promise<Fingerprinter> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const columns = await client.query<{ table_schema: string; table_name: string; column_name: string }>(
      `select c.table_schema, c.table_name, c.column_name from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
        where c.table_schema in ('public', 'graphile_worker') and c.table_name <> 'mikro_orm_migrations'
        order by c.table_schema, c.table_name, c.ordinal_position`,
    );
    const tables = new Map<string, string[]>();
    for (const row of columns.rows) {
      const key = `${row.table_schema}.${row.table_name}`;
      if (!tables.has(key)) tables.set(key, []);
      if (!READ_STAMPS.has(row.column_name)) tables.get(key)!.push(`"${row.column_name}"`);
    }
    const parts = [...tables].map(([key, names]) => {
      const [schema, table] = key.split('.');
      const hash = schema === 'public' ? `coalesce(sum(hashtext(row(${names.join(', ')})::text)::bigint), 0)` : '0';
      return `select '${key}' as name, count(*) || ':' || ${hash} as print from "${schema}"."${table}"`;
    });
    return new Fingerprinter(client, parts.join(' union all '));
  }

  async take(): Promise<Fingerprint> {
    const result = await this.client.query<{ name: string; print: string }>(this.statement);
    return Object.fromEntries(result.rows.map((r) => [r.name, r.print]));
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
