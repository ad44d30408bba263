import pg from 'pg';
import type { PoolUsage } from './pool-usage';
import { countedFailure, countStatement } from './query-counter';
import { DEFAULT_POOL_MODE, inSettingsTransaction, isReusable, statementName, type PoolMode } from './pool-mode';
import { localSettingsSql, requestSettings, startupOptions } from './session-options';

/** A prepared statement: parsed and planned once per connection, then only executed. */
export interface PreparedStatement {
  name: string;
  text: string;
}

const TIMESTAMPTZ = 1184;
/** How many distinct list texts are prepared by name (per process, and so per connection at most). */
export const MAX_NAMED_TEXTS = 200;
/** `2026-11-25 10:00:00.12+00`, as PostgreSQL writes a timestamptz(3) in a UTC session (`10000-…`, `0001-… BC` beyond the common years). */
const PG_UTC = /^(\d{4,})(-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00( BC)?$/;

/**
 * PostgreSQL's text of a UTC time to the answer's ISO 8601 text (as Date#toISOString writes it), without
 * a `Date` in between: a year outside 0000-9999 in the expanded form (`+010000`); PostgreSQL's 1 BC is
 * year 0, 2 BC year -1.
 */
export function isoFromPostgres(text: string): string {
  const match = PG_UTC.exec(text);
  if (!match) return new Date(text).toISOString();
  const [, written, monthDay, time, fraction = '', bc] = match;
  const year = bc ? 1 - Number(written) : Number(written);
  const yearText = year >= 0 && year <= 9999 ? String(year).padStart(4, '0') : `${year < 0 ? '-' : '+'}${String(Math.abs(year)).padStart(6, '0')}`;
  return `${yearText}${monthDay}T${time}.${fraction.padEnd(3, '0').slice(0, 3)}Z`;
}

/**
 * Where the hot reads go: the read pool, or the primary and its replicas (read-replicas.ts). `reader` is
 * the user on whose behalf a request reads (undefined for the server's own work), so that a user's
 * reads see their own writes.
 */
export interface Reads {
  query<R>(statement: PreparedStatement, values: unknown[], reader?: string, budget?: ReadBudget): Promise<R[]>;
  run<R>(text: string, values: unknown[], prepare?: boolean, reader?: string, budget?: ReadBudget): Promise<R[]>;
  usage(): PoolUsage;
  close(): Promise<void>;
}

const types = new pg.TypeOverrides();
types.setTypeParser(TIMESTAMPTZ, isoFromPostgres);

/**
 * What a request may spend on its reads (engine/request-budget.ts): a statement runs holding one of the
 * request's connections, and every value is counted as it is read, so that a refusal stops the reading
 * of the rows (pg drops the rows after a parser's error and answers the error at the statement's end).
 */
export interface ReadBudget {
  lease<R>(work: () => Promise<R>): Promise<R>;
  spend(bytes: number): void;
}

/** The pool's type parsers, each value counted against `budget` before it is parsed. */
function countedTypes(budget: ReadBudget): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      const parse = types.getTypeParser(oid, format) as unknown as (value: string) => unknown;
      return (value: string) => {
        budget.spend(value.length);
        return parse(value);
      };
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** Runs `query` within `budget`, when there is one. */
function withinBudget<R>(budget: ReadBudget | undefined, query: (types?: pg.CustomTypesConfig) => Promise<R>): Promise<R> {
  return budget ? budget.lease(() => query(countedTypes(budget))) : query();
}

/** How a read pool connects (besides its URL and size). */
export interface ReadPoolOptions extends Pick<pg.PoolConfig, 'connectionTimeoutMillis'> {
  /** DATABASE_POOL_MODE of the URL (default session). */
  poolMode?: PoolMode;
  /**
   * The statement timeout of each read in transaction mode (in session mode the URL carries it, see
   * withStatementTimeout).
   */
  statementTimeoutMs?: number;
}

/** Times are read in UTC (isoFromPostgres), whatever the server's default. */
const READ_SETTINGS = { TimeZone: 'UTC' };

/**
 * The connections of the hot read statements (one row by id with its embedded references): named
 * prepared statements with bound parameters, times read as answer text. The ORM keeps its own pool for
 * writes, transactions and everything else. Behind a pooler in transaction mode (see pool-mode.ts) the
 * statements go unnamed, each in a transaction of its own that starts with the settings.
 */
export class ReadPool implements Reads {
  private readonly pool: pg.Pool;
  private readonly poolMode: PoolMode;
  /** Transaction mode: the statement that gives each read's transaction the settings. */
  private readonly settingsSql?: string;
  /** Names given to the texts of `run`. */
  private readonly names = new Map<string, string>();

  constructor(
    url: string,
    max: number,
    private readonly maxNamedTexts = MAX_NAMED_TEXTS,
    { poolMode = DEFAULT_POOL_MODE, statementTimeoutMs, ...poolOptions }: ReadPoolOptions = {},
  ) {
    this.poolMode = poolMode;
    if (poolMode === 'transaction') {
      this.settingsSql = localSettingsSql(requestSettings(statementTimeoutMs, READ_SETTINGS));
      this.pool = new pg.Pool({ connectionString: url, max, types, ...poolOptions });
    } else {
      this.pool = new pg.Pool({ connectionString: url, max, types, options: startupOptions(requestSettings(undefined, READ_SETTINGS)), ...poolOptions });
    }
    // An idle connection that fails is dropped by the pool; the next query opens another.
    this.pool.on('error', () => undefined);
  }

  async query<R>(statement: PreparedStatement, values: unknown[], _reader?: string, budget?: ReadBudget): Promise<R[]> {
    const name = statementName(this.poolMode, statement.name);
    countStatement(statement.text, values, name);
    const result = await withinBudget(budget, (types) => this.execute({ name, text: statement.text, values, types })).catch(countedFailure);
    return result.rows as R[];
  }

  /**
   * A statement with bound parameters whose text the request decides (a list's filter and sort), planned
   * for its values each time. With `prepare`, the first `maxNamedTexts` texts become named prepared
   * statements, planned once per connection (beyond them, since every name stays prepared on every
   * connection that used it, texts are planned anew each time): for statements whose best plan does not
   * depend much on the values (list pages and their counts, nested pages), whose planning costs as much as
   * their execution. PostgreSQL still plans the first executions of each for their values, and keeps a
   * generic plan only where it costs no more. In transaction mode no text is named.
   */
  async run<R>(text: string, values: unknown[], prepare = false, _reader?: string, budget?: ReadBudget): Promise<R[]> {
    const named = prepare && this.poolMode === 'session';
    let name = named ? this.names.get(text) : undefined;
    if (named && name === undefined && this.names.size < this.maxNamedTexts) {
      name = `list-${this.names.size}`;
      this.names.set(text, name);
    }
    countStatement(text, values, name);
    const result = await withinBudget(budget, (types) => this.execute({ name, text, values, types })).catch(countedFailure);
    return result.rows as R[];
  }

  /** One statement: on any connection of the pool in session mode, in a transaction with the settings in transaction mode. */
  private execute(query: pg.QueryConfig & { types?: pg.CustomTypesConfig }): Promise<pg.QueryResult> {
    return this.settingsSql === undefined ? this.pool.query(query) : this.executeWithSettings(query, this.settingsSql);
  }

  private async executeWithSettings(query: pg.QueryConfig & { types?: pg.CustomTypesConfig }, settingsSql: string): Promise<pg.QueryResult> {
    const client = await this.pool.connect();
    let reusable = true;
    try {
      return await inSettingsTransaction(client, settingsSql, () => client.query(query));
    } catch (error) {
      reusable = isReusable(client);
      throw error;
    } finally {
      // A connection left inside a transaction is dropped rather than lent to the next read.
      client.release(!reusable);
    }
  }

  /** Connections lent out now (opened and not idle), and queries waiting for one. */
  usage(): PoolUsage {
    return { inUse: this.pool.totalCount - this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
