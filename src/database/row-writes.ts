import { ReferenceKind, Utils, type EntityClass, type EntityMetadata } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundUuids, runOnConnection } from './prepared-in-transaction';
import type { PreparedStatement } from './read-pool';

/**
 * The hot writes of one row (an UPDATE of the changed columns, an INSERT of a new row) as prepared
 * statements with bound parameters, written from the ORM's metadata: the same table, columns and
 * values (converted by the ORM's types) as `em.nativeUpdate` and `em.insert` send, without building a
 * query for every request. They run on the EntityManager's connection, inside its transaction when it
 * has one. Entities that are not plain columns (see `isPlain`) keep going through the ORM.
 */

/** How many distinct write texts are prepared by name (per process, and so per connection at most). */
const MAX_NAMED_TEXTS = 200;
/** The statements written so far, by kind, table and columns. */
const written = new Map<string, PreparedStatement>();

/** The statement of `key` (its kind, table and columns), written by `write` the first time. */
function statementOf(key: string, write: () => string): PreparedStatement {
  let statement = written.get(key);
  if (!statement) {
    // Beyond MAX_NAMED_TEXTS, unnamed: planned anew each time (as the ORM's own statements are).
    statement = { name: written.size < MAX_NAMED_TEXTS ? `write-${written.size}` : '', text: write() };
    if (statement.name) written.set(key, statement);
  }
  return statement;
}

/**
 * Whether every property of the entity is one column holding a plain value: scalars, and references
 * held as the id they name (`mapToPk`); none written through an SQL expression, versioned or generated.
 * Other entities are read and written by the ORM itself.
 */
const plainEntities = new WeakMap<EntityMetadata, boolean>();

function isPlain(meta: EntityMetadata): boolean {
  let plain = plainEntities.get(meta);
  if (plain === undefined) {
    plain =
      meta.primaryKeys.length === 1 &&
      meta.props.every(
        (prop) =>
          (prop.kind === ReferenceKind.SCALAR || (prop.kind === ReferenceKind.MANY_TO_ONE && prop.mapToPk && !prop.customType)) &&
          prop.fieldNames?.length === 1 &&
          !prop.hasConvertToDatabaseValueSQL &&
          !prop.version &&
          !(prop.generated && !prop.primary),
      );
    plainEntities.set(meta, plain);
  }
  return plain;
}

/**
 * The columns and database values of `values` (property names), converted as the ORM converts written
 * data (its types; JSON of untyped objects); undefined when one is not a stored property or not a plain value.
 */
function columnValues(em: EntityManager, meta: EntityMetadata, values: Record<string, unknown>): [string, unknown][] | undefined {
  const platform = em.getPlatform();
  const columns: [string, unknown][] = [];
  for (const name of Object.keys(values).sort()) {
    const prop = meta.properties[name];
    let value = values[name];
    if (!prop || prop.persist === false || platform.isRaw(value)) return undefined;
    if (prop.customType) value = prop.customType.convertToDatabaseValue(value, platform, { fromQuery: true, key: name, mode: 'query-data' });
    else if (Array.isArray(value) || Utils.isPlainObject(value)) value = JSON.stringify(value);
    if (platform.isRaw(value)) return undefined;
    columns.push([prop.fieldNames[0], value]);
  }
  return columns;
}

async function run<R = unknown>(em: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  try {
    return await runOnConnection<R>(em, statement, values);
  } catch (error) {
    // The same exceptions as the ORM's own writes (unique, foreign key and not-null violations ...).
    throw em.getDriver().convertException(error as Error);
  }
}

/** UPDATE of the given properties of the row whose primary key is `id`. */
export async function updateRow(em: EntityManager, entity: EntityClass<object>, id: string, values: Record<string, unknown>): Promise<void> {
  const meta = em.getMetadata().get(entity.name);
  const columns = isPlain(meta) ? columnValues(em, meta, values) : undefined;
  if (!columns) {
    await em.nativeUpdate(entity, { [meta.primaryKeys[0]]: id }, values);
    return;
  }
  if (columns.length === 0) return;
  const statement = statementOf(`update ${meta.tableName} ${columns.map(([column]) => column).join()}`, () => {
    const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
    const assignments = columns.map(([column], index) => `${quote(column)} = $${index + 2}`);
    const key = meta.properties[meta.primaryKeys[0]].fieldNames[0];
    return `update ${quote(meta.tableName)} set ${assignments.join(', ')} where ${quote(key)} = $1`;
  });
  await run(em, statement, [id, ...columns.map(([, value]) => value)]);
}

/**
 * An UPDATE sent as one statement (a transaction in itself outside one) to the row a guard admits: the
 * guard's condition on the row's own columns (`$1` the id, `$2`... its other values, arrays of UUIDs).
 */
export interface GuardedUpdate {
  guard: { name: string; table: string; alias: string; condition: string };
  guardValues: unknown[];
  /** Written only when one of them differs from the row. */
  changes: Record<string, unknown>;
  /** Written with the changes, not compared (a time of update). */
  stamps: Record<string, unknown>;
  /** Raised by one with the changes (a change sequence). */
  increments: string[];
  /** What the row must hold to be written (a change sequence the caller names). */
  expected: Record<string, unknown>;
}

/**
 * `update ... where <guard> and <expected> and <a change differs> returning *`: the row as written, or
 * none when the guard, `expected` or the absence of a difference left it alone (the caller tells which);
 * undefined, and nothing sent, when the entity or a value is not a plain column.
 */
export async function updateGuarded(em: EntityManager, entity: EntityClass<object>, update: GuardedUpdate): Promise<Record<string, unknown>[] | undefined> {
  const meta = em.getMetadata().get(entity.name);
  if (!isPlain(meta)) return undefined;
  const [changes, stamps, expected] = [update.changes, update.stamps, update.expected].map((values) => columnValues(em, meta, values));
  if (!changes?.length || !stamps || !expected) return undefined;
  const increments = update.increments.map((name) => meta.properties[name].fieldNames[0]);
  const columns = (list: [string, unknown][]) => list.map(([column]) => column).join();
  const key = `guarded ${update.guard.name} ${columns(changes)}/${columns(stamps)}/${increments.join()}/${columns(expected)}`;
  const statement = statementOf(key, () => {
    const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
    const { table, alias, condition } = update.guard;
    const at = (list: [string, unknown][], offset: number) => list.map(([column], index) => ({ column: quote(column), parameter: `$${offset + index + 1}` }));
    const changed = at(changes, update.guardValues.length);
    const stamped = at(stamps, update.guardValues.length + changes.length);
    const held = at(expected, update.guardValues.length + changes.length + stamps.length);
    const assignments = [
      ...[...changed, ...stamped].map(({ column, parameter }) => `${column} = ${parameter}`),
      ...increments.map((column) => `${quote(column)} = ${alias}.${quote(column)} + 1`),
    ];
    const conditions = [
      condition,
      ...held.map(({ column, parameter }) => `${alias}.${column} = ${parameter}`),
      `(${changed.map(({ column, parameter }) => `${alias}.${column} is distinct from ${parameter}`).join(' or ')})`,
    ];
    return `update ${table} ${alias} set ${assignments.join(', ')} where ${conditions.join(' and ')} returning ${alias}.*`;
  });
  const values = [...update.guardValues.map(boundUuids), ...[...changes, ...stamps, ...expected].map(([, value]) => value)];
  return run<Record<string, unknown>>(em, statement, values);
}

/**
 * A statement sent with an INSERT, in the same round trip (`with inserted as (insert ...) <sql>`): its
 * parameters are `$1`, `$2` ... of its own, and `key` names its text (it is prepared once).
 */
export interface FollowingStatement {
  key: string;
  sql: string;
  params: unknown[];
}

/** `sql` with its parameters `$1`, `$2` ... renumbered to follow `offset` others. */
export function shiftParameters(sql: string, offset: number): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/** INSERT of one row with the given properties, and `then` in the same statement when given. */
export async function insertRow(em: EntityManager, entity: EntityClass<object>, values: Record<string, unknown>, then?: FollowingStatement): Promise<void> {
  const meta = em.getMetadata().get(entity.name);
  const columns = isPlain(meta) ? columnValues(em, meta, values) : undefined;
  if (!columns || columns.length === 0) {
    await em.insert(entity, values);
    if (then)
      await run(
        em,
        statementOf(`then ${then.key}`, () => then.sql),
        then.params,
      );
    return;
  }
  const names = columns.map(([column]) => column).join();
  const statement = statementOf(`insert ${meta.tableName} ${names}${then ? ` then ${then.key}` : ''}`, () => {
    const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
    const placeholders = columns.map((_, index) => `$${index + 1}`);
    const insert = `insert into ${quote(meta.tableName)} (${columns.map(([column]) => quote(column)).join(', ')}) values (${placeholders.join(', ')})`;
    return then ? `with inserted as (${insert}) ${shiftParameters(then.sql, columns.length)}` : insert;
  });
  await run(em, statement, [...columns.map(([, value]) => value), ...(then?.params ?? [])]);
}

/** A row to insert, with the statement that follows it (an event's job), if any. */
export interface RowInsert {
  entity: EntityClass<object>;
  values: Record<string, unknown>;
  then?: FollowingStatement;
}

/**
 * Several rows inserted by one statement (`with w0 as (insert ...), w1 as (insert ...) select ...`), a
 * transaction in itself: all are written or none, in one round trip. The statements that follow them
 * run in it too. Where an entity is not plain columns, the rows go one by one in a transaction.
 */
export async function insertRows(em: EntityManager, rows: RowInsert[]): Promise<void> {
  if (rows.length === 1) return insertRow(em, rows[0].entity, rows[0].values, rows[0].then);
  const written = rows.map(({ entity, values, then }) => {
    const meta = em.getMetadata().get(entity.name);
    return { meta, then, columns: isPlain(meta) ? columnValues(em, meta, values) : undefined };
  });
  if (written.some(({ columns }) => !columns?.length)) {
    await em.transactional(async (tx) => {
      for (const row of rows) await insertRow(tx as EntityManager, row.entity, row.values, row.then);
    });
    return;
  }
  const key = written.map(({ meta, columns, then }) => `${meta.tableName} ${columns!.map(([column]) => column).join()}${then ? ` then ${then.key}` : ''}`);
  const statement = statementOf(`insert rows ${key.join(' + ')}`, () => {
    const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
    const parts: string[] = [];
    const following: string[] = [];
    let offset = 0;
    for (const [index, { meta, columns, then }] of written.entries()) {
      const placeholders = columns!.map((_, n) => `$${offset + n + 1}`);
      parts.push(
        `w${index} as (insert into ${quote(meta.tableName)} (${columns!.map(([column]) => quote(column)).join(', ')}) values (${placeholders.join(', ')}))`,
      );
      offset += columns!.length;
      if (!then) continue;
      // Referenced by the final select, so that it runs (a CTE no one reads is skipped).
      parts.push(`f${index} as (${shiftParameters(then.sql, offset)})`);
      following.push(`(select count(*) from f${index})`);
      offset += then.params.length;
    }
    return `with ${parts.join(', ')} select ${following.join(' + ') || '1'}`;
  });
  await run(
    em,
    statement,
    written.flatMap(({ columns, then }) => [...columns!.map(([, value]) => value), ...(then?.params ?? [])]),
  );
}

/**
 * A row read with the table's columns (`select *`), as the entity's properties with the values the ORM
 * hydrates (times as dates, JSON parsed ...), without making it a managed entity: for rows that are
 * read to be compared and answered, not flushed.
 */
export function storedRow<T extends object>(em: EntityManager, entity: EntityClass<T>, row: Record<string, unknown>): T {
  const meta = em.getMetadata().get(entity.name);
  if (!isPlain(meta)) return em.map(entity, row as never);
  const platform = em.getPlatform();
  const data = em.getDriver().mapResult(row, meta) as Record<string, unknown>;
  for (const prop of meta.props) {
    const value = data[prop.name];
    if (value === null || value === undefined) continue;
    if (prop.customType) data[prop.name] = prop.customType.convertToJSValue(value, platform, { mode: 'serialization' });
    else if (prop.runtimeType === 'boolean') data[prop.name] = !!value;
  }
  return data as T;
}
