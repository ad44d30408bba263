import type { FieldMeta } from '../model/fields';
import type { ListParams } from './read-plan';

/**
 * A page, its rows and their nested pages as the answer shows them, key by key in answer order, for
 * the database to write as one JSON text. Keys are names (GraphQL response keys: letters, digits and
 * underscores), so they are written into the statement as they are.
 */
export interface JsonPage {
  params: Omit<ListParams, 'columns'>;
  entries: JsonPageEntry[];
  /** Written as the bare array of its one `content` entry, not as a page object (a REST answer's embedded collection). */
  bare?: boolean;
}

/**
 * The summary values of a page (see page.ts: `summarizePage`), and the objects that describe its request
 * (`pageable`, `sort`: the paging and whether it is sorted, as REST answers them).
 */
export type PageSummaryField = 'totalElements' | 'totalPages' | 'number' | 'size' | 'numberOfElements' | 'first' | 'last' | 'pageable' | 'sort';

/** The summary values that need the page's count; the others follow from its arguments. */
export const COUNTED_SUMMARY = new Set<PageSummaryField>(['totalElements', 'totalPages', 'numberOfElements', 'last']);

export type JsonPageEntry = { key: string; summary: PageSummaryField } | { key: string; literal: string } | { key: string; content: JsonRow };

export interface JsonRow {
  entries: JsonRowEntry[];
}

/**
 * A stored field, a fixed text (a type name), null (a reference REST does not embed at this depth), the page of a to-many relation (the child resource's
 * rows naming the row in `foreignKey`), or the row a reference names (the row's `foreignKey` holds its
 * id; null when absent or not the caller's to see).
 */
export type JsonRowEntry =
  | { key: string; field: string }
  | { key: string; literal: string }
  | { key: string; nothing: true }
  | { key: string; children: { path: string; foreignKey: string; page: JsonPage } }
  | { key: string; reference: { path: string; foreignKey: string; row: JsonRow } };

/** The columns a row's entries read: its id, its fields, the foreign keys of its references. */
export function columnsOf(row: JsonRow): string[] {
  const columns = row.entries.flatMap((e) => ('field' in e ? [e.field] : 'reference' in e ? [e.reference.foreignKey] : []));
  return [...new Set(['id', ...columns])];
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Only names (GraphQL keys and type names) are written into the statement, so nothing needs escaping. */
function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`not a name: ${name}`);
  return name;
}

/** A member's name as it opens the member in JSON text (`"name":`). */
export const memberName = (name: string) => `"${checkedName(name)}":`;

/** A fixed name as a JSON string in SQL text (`'"Project"'`). */
export const nameText = (name: string) => `'"${checkedName(name)}"'`;

/** Members `[memberName, SQL of the value's JSON text]` as the SQL text of one compact JSON object (`{"a":1,"b":"x"}`). */
export function objectText(members: [string, string][]): string {
  if (members.length === 0) return `'{}'`;
  return `${members.map(([name, value], i) => `'${i === 0 ? '{' : ','}${name}' || ${value}`).join(' || ')} || '}'`;
}

/** Kinds whose stored value the database writes as the answer's JSON does (times: ISO 8601 in UTC with milliseconds). */
const JSON_KINDS = new Set<FieldMeta['kind']>(['id', 'string', 'boolean', 'int', 'number', 'dateTime', 'json', 'enum', 'stringArray', 'reference']);

/** Whether the database holds the field (a write-once value such as a new key's `token` it does not) and writes it as the answer does. */
export function writableAsJson(field: FieldMeta): boolean {
  return field.options.persist !== false && JSON_KINDS.has(field.kind);
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * A time as the answer writes it (ECMAScript's Date#toISOString): ISO 8601 in UTC, truncated to
 * milliseconds. A year outside 0001-9999 is written by `json_answer_time` (a migration's function) in the
 * expanded form (`+010000-01-01T04:59:59.000Z`), which `new Date()` reads back; the statement holds only
 * the common case, so that it stays short to start (every expression is set up on each execution).
 */
export function isoTime(value: string): string {
  return `(case when ${value} >= '0001-01-01T00:00:00Z' and ${value} < '10000-01-01T00:00:00Z' then to_char(${value} at time zone 'UTC', ${ISO}) else json_answer_time(${value}) end)`;
}

/** The pattern and replacement of `answerJson`. No `?` in them: the statement passes through the query builder, which binds `?`. */
const COMPACT_JSON = String.raw`'("([^"\\]|\\.)*")|([,:]) ', '\1\3', 'g'`;

/** A member name that is an array index (`"10": `), as jsonb's text writes it: no string holds `": ` unescaped. */
const INDEX_NAME = String.raw`'"(0|[1-9][0-9]{0,9})": '`;

/**
 * A stored JSON value (`jsonb`) as JSON.stringify writes it: compact, without the space PostgreSQL puts
 * after each `,` and `:` between members and elements (strings are matched whole, escapes included, and
 * kept as they are). A value holding a member named by an array index is written by
 * `json_answer_text` (a migration's function), which also puts such members first, as JavaScript does.
 */
export function answerJson(value: string): string {
  return `(case when ${value}::text ~ ${INDEX_NAME} then json_answer_text(${value}) else regexp_replace(${value}::text, ${COMPACT_JSON}) end)`;
}

/**
 * A field's value as JSON text, read from the column `"alias"."name"` of a page's rows: compact, as the
 * answer writes it (PostgreSQL's json functions put spaces after colons and commas).
 */
export function jsonValue(field: FieldMeta, alias: string): string {
  const column = `"${alias}"."${field.name}"`;
  switch (field.kind) {
    case 'dateTime':
      return `coalesce('"' || ${isoTime(column)} || '"', 'null')`;
    case 'number':
      return `coalesce(to_json(${column}::float8)::text, 'null')`;
    case 'json':
      return `coalesce(${answerJson(column)}, 'null')`;
    case 'int':
    case 'boolean':
      return `coalesce(${column}::text, 'null')`;
    default:
      return `coalesce(to_json(${column})::text, 'null')`;
  }
}
