import pg from 'pg';
import type { PoolUsage } from './pool-usage';
import { countedFailure, countStatement } from './query-counter';
import { REQUEST_SESSION_OPTIONS } from './session-options';

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

/**
 * The connections of the hot read statements (one row by id with its embedded references): named
 * prepared statements with bound parameters, times read as answer text. The ORM keeps its own pool for
 * writes, transactions and everything else.
 */
export class ReadPool implements Reads {
  private readonly pool: pg.Pool;
  /** Names given to the texts of `run`. */
  private readonly names = new Map<string, string>();

  constructor(
    url: string,
    max: number,
    private readonly maxNamedTexts = MAX_NAMED_TEXTS,
    poolOptions: Pick<pg.PoolConfig, 'connectionTimeoutMillis'> = {},
  ) {
    this.pool = new pg.Pool({ connectionString: url, max, types, options: `-c TimeZone=UTC ${REQUEST_SESSION_OPTIONS}`, ...poolOptions });
    // An idle connection that fails is dropped by the pool; the next query opens another.
    this.pool.on('error', () => undefined);
  }

  async query<R>(statement: PreparedStatement, values: unknown[], _reader?: string, budget?: ReadBudget): Promise<R[]> {
    countStatement(statement.text, values, statement.name);
    const result = await withinBudget(budget, (types) => this.pool.query({ name: statement.name, text: statement.text, values, types })).catch(countedFailure);
    return result.rows as R[];
  }

  /**
   * A statement with bound parameters whose text the request decides (a list's filter and sort), planned
   * for its values each time. With `prepare`, the first `maxNamedTexts` texts become named prepared
   * statements, planned once per connection (beyond them, since every name stays prepared on every
   * connection that used it, texts are planned anew each time): for statements whose best plan does not
   * depend much on the values (list pages and their counts, nested pages), whose planning costs as much as
   * their execution. PostgreSQL still plans the first executions of each for their values, and keeps a
   * generic plan only where it costs no more.
   */
  async run<R>(text: string, values: unknown[], prepare = false, _reader?: string, budget?: ReadBudget): Promise<R[]> {
    let name = prepare ? this.names.get(text) : undefined;
    if (prepare && name === undefined && this.names.size < this.maxNamedTexts) {
      name = `list-${this.names.size}`;
      this.names.set(text, name);
    }
    countStatement(text, values, name);
    const result = await withinBudget(budget, (types) => this.pool.query({ name, text, values, types })).catch(countedFailure);
    return result.rows as R[];
  }

  /** Connections lent out now (opened and not idle), and queries waiting for one. */
  usage(): PoolUsage {
    return { inUse: this.pool.totalCount - this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
