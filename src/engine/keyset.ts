import { raw } from '@mikro-orm/core';

/**
 * One term of a list's order as SQL: an expression over the row (alias `e0`) with `?` placeholders for
 * its own values, its direction, and whether it can be null. PostgreSQL sorts null after every value
 * ascending and before every value descending (its default), and the keyset conditions below agree.
 */
export interface SortKey {
  text: string;
  bindings: unknown[];
  direction: 'asc' | 'desc';
  nullable: boolean;
}

export interface Fragment {
  text: string;
  bindings: unknown[];
}

/** The column of each key in a keyset batch's rows (the key's value in the last row continues the next batch). */
export const keyColumn = (index: number): string => `__k${index}`;

/** The order clauses of the keys, for the query builder. */
export function keyOrder(keys: SortKey[]): Record<string, 'asc' | 'desc'>[] {
  return keys.map((key) => ({ [raw(key.text, key.bindings) as unknown as string]: key.direction }));
}

/** The keys as selected columns (`__k0`, `__k1` ...). */
export function keyColumns(keys: SortKey[]): ReturnType<typeof raw>[] {
  return keys.map((key, index) => raw(`${key.text} as "${keyColumn(index)}"`, key.bindings));
}

/**
 * The window of the keys' order from the first row to the current one, for running totals over a
 * batch (`sum(...) over ...`); with every key distinct (the id is the last), no two rows are peers.
 */
export function keyWindow(keys: SortKey[]): Fragment {
  return {
    text: `over (order by ${keys.map((key) => `${key.text} ${key.direction}`).join(', ')} rows between unbounded preceding and current row)`,
    bindings: keys.flatMap((key) => key.bindings),
  };
}

/** The order of the keys' columns (`__k0`, `__k1` ...) in a query over a keyset batch. */
export function keyColumnOrder(keys: SortKey[]): string {
  return keys.map((key, index) => `"${keyColumn(index)}" ${key.direction}`).join(', ');
}

/**
 * The rows that come after the row whose key values are `last`, in the keys' order, as a condition for
 * the query builder. Keys of one direction that are never null compare as one row value, which
 * PostgreSQL answers with a range scan of the order's index; others expand term by term.
 */
export function afterLast(keys: SortKey[], last: unknown[]): Record<string, unknown> {
  const condition = keys.every((key) => !key.nullable && key.direction === keys[0].direction) ? asRowValue(keys, last) : termByTerm(keys, last);
  return { [raw(condition.text, condition.bindings) as unknown as string]: [] };
}

function asRowValue(keys: SortKey[], last: unknown[]): Fragment {
  const operator = keys[0].direction === 'asc' ? '>' : '<';
  return {
    text: `(${keys.map((key) => key.text).join(', ')}) ${operator} (${keys.map(() => '?').join(', ')})`,
    bindings: [...keys.flatMap((key) => key.bindings), ...last],
  };
}

/** `k0 after v0 or (k0 = v0 and k1 after v1) or ...`, null-aware. */
function termByTerm(keys: SortKey[], last: unknown[]): Fragment {
  const alternatives: Fragment[] = [];
  for (const [index, key] of keys.entries()) {
    const after = isAfter(key, last[index]);
    if (!after) continue;
    alternatives.push(all([...keys.slice(0, index).map((earlier, j) => isEqual(earlier, last[j])), after]));
  }
  if (alternatives.length === 0) return { text: 'false', bindings: [] };
  return { text: `(${alternatives.map((a) => a.text).join(' or ')})`, bindings: alternatives.flatMap((a) => a.bindings) };
}

function all(parts: Fragment[]): Fragment {
  return { text: `(${parts.map((p) => p.text).join(' and ')})`, bindings: parts.flatMap((p) => p.bindings) };
}

function isEqual(key: SortKey, value: unknown): Fragment {
  if (value === null || value === undefined) return { text: `${key.text} is null`, bindings: key.bindings };
  return { text: `${key.text} = ?`, bindings: [...key.bindings, value] };
}

/** Values of the key that sort after `value`; undefined when none can (null, last ascending). */
function isAfter(key: SortKey, value: unknown): Fragment | undefined {
  const missing = value === null || value === undefined;
  if (key.direction === 'asc') {
    if (missing) return undefined;
    if (!key.nullable) return { text: `${key.text} > ?`, bindings: [...key.bindings, value] };
    return { text: `(${key.text} > ? or ${key.text} is null)`, bindings: [...key.bindings, value, ...key.bindings] };
  }
  if (missing) return { text: `${key.text} is not null`, bindings: key.bindings };
  return { text: `${key.text} < ?`, bindings: [...key.bindings, value] };
}
