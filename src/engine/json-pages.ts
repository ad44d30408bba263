import type { FieldMeta } from '../model/fields';
import type { ListParams } from './resource-service';

/**
 * A page, its rows and their nested pages as the answer shows them, key by key in answer order, for
 * the database to write as one JSON text. Keys are names (GraphQL response keys: letters, digits and
 * underscores), so they are written into the statement as they are.
 */
export interface JsonPage {
  params: Omit<ListParams, 'columns'>;
  entries: JsonPageEntry[];
}

/** The summary values of a page (see page.ts: `summarizePage`). */
export type PageSummaryField = 'totalElements' | 'totalPages' | 'number' | 'size' | 'numberOfElements' | 'first' | 'last';

/** The summary values that need the page's count; the others follow from its arguments. */
export const COUNTED_SUMMARY = new Set<PageSummaryField>(['totalElements', 'totalPages', 'numberOfElements', 'last']);

export type JsonPageEntry = { key: string; summary: PageSummaryField } | { key: string; literal: string } | { key: string; content: JsonRow };

export interface JsonRow {
  entries: JsonRowEntry[];
}

/**
 * A stored field, a fixed text (a type name), the page of a to-many relation (the child resource's
 * rows naming the row in `foreignKey`), or the row a reference names (the row's `foreignKey` holds its
 * id; null when absent or not the caller's to see).
 */
export type JsonRowEntry =
  | { key: string; field: string }
  | { key: string; literal: string }
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

/**
 * A field's value as JSON text, read from the column `"alias"."name"` of a page's rows: compact, as the
 * answer writes it (PostgreSQL's json functions put spaces after colons and commas). A stored JSON value
 * keeps the text PostgreSQL gives it.
 */
export function jsonValue(field: FieldMeta, alias: string): string {
  const column = `"${alias}"."${field.name}"`;
  switch (field.kind) {
    case 'dateTime':
      // Truncated to milliseconds, as the answer's times are.
      return `coalesce('"' || to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
    case 'number':
      return `coalesce(to_json(${column}::float8)::text, 'null')`;
    case 'int':
    case 'boolean':
    case 'json':
      return `coalesce(${column}::text, 'null')`;
    default:
      return `coalesce(to_json(${column})::text, 'null')`;
  }
}
