import { raw, type RawQueryFragment } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/postgresql';
import { isoFromPostgres } from '../database/read-pool';
import type { PageRequest } from '../query/paging';
import type { SortTerm } from '../query/sort';
import { BoundedMap } from './bounded-map';
import type { RequestContext } from './context';
import { accessKey } from './tenancy';
import type { ResourceWithRules as Resource } from './resource-rules';

/** A statement as the query builder wrote it: `$n` text for the read pool, `?` text for the ORM, values. */
export interface WrittenSql {
  text: string;
  ormText: string;
  bindings: unknown[];
}

/** The statements of one shape of list request, and what they were written for. */
export interface WrittenList {
  statements: WrittenSql[];
  paging: PageRequest;
  sort: SortTerm[];
}

type Row = Record<string, unknown>;

/** List shapes kept per resource; the oldest are forgotten first. */
const MAX_WRITTEN_LISTS = 500;
/** Select lists kept per resource (GraphQL selections vary). */
const MAX_SELECTIONS = 100;

export function sqlOf(query: Knex.QueryBuilder | Knex.Raw): WrittenSql {
  const written = query.toSQL();
  return { text: written.toNative().sql, ormText: written.sql, bindings: [...written.bindings] as unknown[] };
}

/** The longest text of a value of each fixed-width column type (a time as ISO text, a 32-bit integer with its sign). */
const FIXED_WIDTHS: Record<string, number> = { uuid: 36, timestamptz: 24, int: 11, integer: 11, boolean: 5, 'double precision': 24 };

/** The written length of a variable-length column (JSON as its text), null as `null`. */
function variableLength(column: string, type: string): string {
  if (type === 'jsonb' || type === 'json') return `coalesce(octet_length(${column}::text), 4)`;
  return `coalesce(octet_length(${column}), 4)`;
}

/** How a resource's list statements are written once, kept, and run. */
export class ListStatements {
  private readonly written = new BoundedMap<string, WrittenList>(MAX_WRITTEN_LISTS);
  private readonly selections = new BoundedMap<string, RawQueryFragment[]>(MAX_SELECTIONS);

  constructor(private readonly resource: Resource) {}

  /**
   * The statements of a list request, written once for its shape (kind, arguments and caller) and
   * reused while the caller's access stays what it was: the filter, sort and visibility are then neither
   * parsed nor compiled again, only executed with their bound values. The key holds all of the caller's
   * access the statements hold (see `accessKey`): a change of it is a new key, never a stale statement.
   */
  async remember(ctx: RequestContext, kind: string, params: object, write: () => Promise<WrittenList>): Promise<WrittenList> {
    const access = await accessKey(ctx);
    const key = `${kind}\u0000${access}\u0000${JSON.stringify(params)}`;
    let written = this.written.get(key);
    if (!written) {
      written = await write();
      // Access that changed while the statements were written may be in them: they serve this request alone.
      if ((await accessKey(ctx)) === access) this.written.set(key, written);
    }
    return written;
  }

  /**
   * Runs a written statement with its values bound as parameters, on the read pool; in a transaction (or
   * without the pool) through the ORM's connection, times turned into answer text.
   */
  async run(ctx: RequestContext, statement: WrittenSql, values = statement.bindings, prepare = false): Promise<Row[]> {
    const reads = ctx.services.reads;
    if (reads && !ctx.em.isInTransaction()) return reads.run<Row>(statement.text, values, prepare, ctx.reader, ctx.budget);
    const rows = await ctx.em.getConnection().execute<Row[]>(statement.ormText, values, 'all', ctx.em.getTransactionContext());
    const times = this.resource.fields.filter((f) => f.kind === 'dateTime').map((f) => f.name);
    for (const row of rows) for (const name of times) if (typeof row[name] === 'string') row[name] = isoFromPostgres(row[name] as string);
    return rows;
  }

  /** The stored columns asked for (all of them by default) under their property names. */
  selection(ctx: RequestContext, alias: string, columns: string[] | undefined): RawQueryFragment[] {
    const key = columns ? `${alias}:${columns.join(',')}` : alias;
    let selection = this.selections.get(key);
    if (!selection) {
      selection = this.storedFields(ctx, columns).map(({ name, column }) => raw(`"${alias}"."${column}" as "${name}"`));
      this.selections.set(key, selection);
    }
    return selection;
  }

  /**
   * About the bytes one row takes once written out, as SQL over the row (`alias`): each field's name and
   * punctuation as a JSON object spells them, the length of each variable-length column, and the
   * widest text of each fixed-width one. Text lengths are read from the value's header, without
   * decompressing it; no value is converted to text but JSON's.
   */
  encodedSize(ctx: RequestContext, alias: string): string {
    const fields = this.storedFields(ctx, undefined);
    let fixed = 0;
    const variable: string[] = [];
    for (const { name, column, type } of fields) {
      fixed += Buffer.byteLength(`"${name}":"",`);
      const width = FIXED_WIDTHS[type];
      if (width !== undefined) fixed += width;
      else variable.push(variableLength(`"${alias}"."${column}"`, type));
    }
    return `(${[...variable, String(fixed)].join(' + ')})`;
  }

  /** The stored fields asked for (all of them by default), their columns and column types. */
  private storedFields(ctx: RequestContext, columns: string[] | undefined): { name: string; column: string; type: string }[] {
    const properties = ctx.em.getMetadata().get(this.resource.entity.name).properties as Record<
      string,
      { persist?: boolean; fieldNames: string[]; columnTypes?: string[] }
    >;
    const names = (columns ?? this.resource.fields.map((f) => f.name)).filter((name) => properties[name] && properties[name].persist !== false);
    return names.map((name) => ({ name, column: properties[name].fieldNames[0], type: (properties[name].columnTypes?.[0] ?? '').replace(/\(.*$/, '') }));
  }
}
