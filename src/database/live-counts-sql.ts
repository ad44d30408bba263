import type { Resource } from '../model/resource';
import { liveSql, quote, tenantKeyOf } from '../model/tenant-keys';
import { objectName, type TableOf } from './tenant-key-sql';

/** The table of live-row counts (entities/live-row-count.ts). */
export const LIVE_ROW_COUNT = 'live_row_count';

/** Slots per table and organization: writers on different connections add to different rows. */
export const LIVE_COUNT_SLOTS = 8;

/** The organization a row without a tenant key is counted under: no member belongs to it, administrators count it. */
export const NO_TENANT = '00000000-0000-0000-0000-000000000000';

/**
 * The statement summing a table's kept counts (column `count`, a bigint as a count's), over these
 * organizations or, without them, all: text with `?` placeholders, and the values they bind.
 */
export function liveTotalSql(table: string, organizations?: Iterable<string>): { text: string; bindings: string[] } {
  const sum = `select coalesce(sum("rows"), 0)::bigint as "count" from "${LIVE_ROW_COUNT}" where "table_name" = ?`;
  if (!organizations) return { text: sum, bindings: [table] };
  // Bound as an array literal: it holds UUIDs only.
  return { text: `${sum} and "tenant_id" = any(?::uuid[])`, bindings: [table, `{${[...organizations].join(',')}}`] };
}

/** A table whose live rows are counted per organization: every table below an organization. */
export interface CountedTable {
  resource: Resource;
  table: string;
  /** The tenant key column, as SQL (`"tenant_id"`). */
  tenant: string;
}

export function countedTables(resources: Resource[], tableOf: TableOf): CountedTable[] {
  return resources
    .filter((resource) => tenantKeyOf(resource)?.parent)
    .map((resource) => ({ resource, table: tableOf(resource.entity), tenant: quote(tenantKeyOf(resource)!.column) }))
    .sort((a, b) => a.table.localeCompare(b.table));
}

/** Whether the row aliased `alias` is live, as SQL (`true` when nothing hides the table's rows). */
function live(counted: CountedTable, alias: string): string {
  return liveSql(counted.resource, alias) ?? 'true';
}

/** Adds the per-organization deltas a SELECT gives (`tenant`, `delta`) to this connection's slot, in the organizations' order. */
function addDeltas(counted: CountedTable, deltas: string): string {
  return [
    `insert into ${LIVE_ROW_COUNT} as c ("table_name", "tenant_id", "slot", "rows")`,
    `      select '${counted.table}', d.tenant, pg_backend_pid() % ${LIVE_COUNT_SLOTS}, d.delta from (${deltas}) d where d.delta <> 0 order by d.tenant`,
    `      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";`,
  ].join('\n');
}

/**
 * The function and triggers that keep a table's counts, then its counts as they are. Statement-level
 * over the statement's rows (inserted, deleted, or changed between live and hidden): archiving an
 * organization adds to each table's count once, not once per row. The triggers come first, in the
 * migration's transaction: from then on writers wait for it, so no write falls between count and trigger.
 */
function keepCountsSql(counted: CountedTable): string[] {
  const { table, tenant } = counted;
  const key = (alias: string) => `coalesce(${alias}.${tenant}, '${NO_TENANT}')`;
  const fn = quote(objectName(table, 'live_rows'));
  const inserted = `select ${key('n')} as tenant, count(*) as delta from new_rows n where ${live(counted, 'n')} group by 1`;
  const deleted = `select ${key('o')} as tenant, -count(*) as delta from old_rows o where ${live(counted, 'o')} group by 1`;
  const changed =
    `select ${key('n')} as tenant, sum(case when ${live(counted, 'n')} then 1 else -1 end) as delta ` +
    `from new_rows n join old_rows o on o."id" = n."id" where (${live(counted, 'n')}) is distinct from (${live(counted, 'o')}) group by 1`;
  const body = [
    `if tg_op = 'INSERT' then`,
    `  ${addDeltas(counted, inserted)}`,
    `elsif tg_op = 'DELETE' then`,
    `  ${addDeltas(counted, deleted)}`,
    `else`,
    `  ${addDeltas(counted, changed)}`,
    `end if;`,
    `return null;`,
  ];
  const trigger = (suffix: string, event: string, referencing: string) =>
    `create or replace trigger ${quote(objectName(table, suffix))} after ${event} on ${quote(table)} referencing ${referencing} for each statement execute function ${fn}()`;
  return [
    `create or replace function ${fn}() returns trigger language plpgsql as $$\nbegin\n${body.map((l) => `  ${l}`).join('\n')}\nend $$`,
    // A trigger with transition tables fires for one event only.
    trigger('live_rows_i', 'insert', 'new table as new_rows'),
    trigger('live_rows_d', 'delete', 'old table as old_rows'),
    trigger('live_rows_u', 'update', 'new table as new_rows old table as old_rows'),
    ...recountSql(counted),
  ];
}

/** The table's counts recounted from its rows (after rows were written with triggers off, as a bulk load may). */
export function recountSql(counted: CountedTable): string[] {
  const { table, tenant } = counted;
  return [
    `delete from ${LIVE_ROW_COUNT} where "table_name" = '${table}'`,
    `insert into ${LIVE_ROW_COUNT} ("table_name", "tenant_id", "slot", "rows") select '${table}', coalesce(r.${tenant}, '${NO_TENANT}'), 0, count(*) from ${quote(table)} r where ${live(counted, 'r')} group by 2`,
  ];
}

/** The SQL that makes the database count the live rows of the tables `pending` names (all by default). */
export function liveCountSql(resources: Resource[], tableOf: TableOf, pending: (table: string) => boolean = () => true): string[] {
  return countedTables(resources, tableOf)
    .filter((counted) => pending(counted.table))
    .flatMap(keepCountsSql);
}

/** Tables below an organization whose live rows the database does not count yet: the migrations script writes their SQL. */
export async function pendingLiveCounts(execute: (sql: string) => Promise<{ name: string }[]>, resources: Resource[], tableOf: TableOf): Promise<Set<string>> {
  const present = new Set((await execute(`select tgname as name from pg_trigger where not tgisinternal`)).map((t) => t.name));
  return new Set(
    countedTables(resources, tableOf)
      .filter((counted) => ['live_rows_i', 'live_rows_d', 'live_rows_u'].some((suffix) => !present.has(objectName(counted.table, suffix))))
      .map((counted) => counted.table),
  );
}
