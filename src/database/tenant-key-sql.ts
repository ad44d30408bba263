import type { EntityClass } from '@mikro-orm/core';
import { fieldsOf } from '../model/fields';
import type { Resource } from '../model/resource';
import { hiddenSql, PARENT_HIDDEN, quote, TENANT_ID, tenantKeyOf, type TenantKey } from '../model/tenant-keys';

/** The table an entity is stored in. */
export type TableOf = (entity: EntityClass<object>) => string;

/** The SQL that gives a database the tenant keys of model/tenant-keys.ts, in the order it runs. */
export interface TenantKeySql {
  /** Fills the keys and flags of existing rows, parents before children. */
  backfill: string[];
  /** The functions and triggers that keep them from then on. */
  triggers: string[];
}

interface Keyed {
  resource: Resource;
  key: TenantKey & { parent: NonNullable<TenantKey['parent']> };
  table: string;
  depth: number;
}

/** The name of a database object made for a table (PostgreSQL keeps 63 bytes of a name). */
export function objectName(table: string, suffix: string): string {
  return `${table.slice(0, 63 - suffix.length - 1)}_${suffix}`;
}

/** Resources below an organization, shallowest first. */
function keyedResources(resources: Resource[], tableOf: TableOf): Keyed[] {
  const keyed: Keyed[] = [];
  for (const resource of resources) {
    const key = tenantKeyOf(resource);
    if (!key?.parent) continue;
    keyed.push({
      resource,
      key: key as Keyed['key'],
      table: tableOf(resource.entity),
      depth: resource.scope.kind === 'organization' ? resource.scope.path.split('.').length : 0,
    });
  }
  return keyed.sort((a, b) => a.depth - b.depth || a.table.localeCompare(b.table));
}

/** The resource that serves an entity. */
function resourceFor(resources: Resource[], entity: EntityClass<object>): Resource {
  const resource = resources.find((r) => r.entity === entity);
  if (!resource) throw new Error(`no resource serves ${entity.name}, the parent on a tenancy path`);
  return resource;
}

/**
 * The SQL for the tables `pending` names (every table below an organization by default): their rows'
 * keys, their triggers, and the triggers of their parents (rewritten whole: each lists all its children).
 */
export function tenantKeySql(resources: Resource[], tableOf: TableOf, pending: (table: string) => boolean = () => true): TenantKeySql {
  const keyed = keyedResources(resources, tableOf);
  const selected = keyed.filter((k) => pending(k.table));
  const parents = new Set(selected.map((k) => k.key.parent.entity));
  return {
    backfill: selected.map((k) => backfillSql(k, resources, tableOf)),
    triggers: [
      ...selected.map((k) => keyTriggerSql(k, resources, tableOf)),
      ...parentTriggersSql(keyed, resources, tableOf)
        .filter((t) => parents.has(t.parent))
        .map((t) => t.sql),
    ],
  };
}

/**
 * Tables below an organization whose keys the database does not keep yet: no key trigger, or a parent
 * whose trigger does not reach them. The migrations script writes their SQL into a new migration.
 */
export async function pendingTenantKeys(
  execute: (sql: string) => Promise<{ name: string; source: string }[]>,
  resources: Resource[],
  tableOf: TableOf,
): Promise<Set<string>> {
  const present = await execute(
    `select t.tgname as name, coalesce(p.prosrc, '') as source from pg_trigger t join pg_proc p on p.oid = t.tgfoid where not t.tgisinternal`,
  );
  const triggers = new Set(present.map((t) => t.name));
  const sources = new Map(present.map((t) => [t.name, t.source]));
  return new Set(
    keyedResources(resources, tableOf)
      .filter((k) => {
        const parentTrigger = objectName(tableOf(k.key.parent.entity), 'hide_children');
        return !triggers.has(objectName(k.table, 'tenant_key')) || !sources.get(parentTrigger)?.includes(`update ${quote(k.table)} c`);
      })
      .map((k) => k.table),
  );
}

/** The parent's tenant key column, as the child copies it. */
function parentTenant(parent: Resource): string {
  return `p.${quote(tenantKeyOf(parent)!.column)}`;
}

function backfillSql({ resource, key, table }: Keyed, resources: Resource[], tableOf: TableOf): string {
  const parent = resourceFor(resources, key.parent.entity);
  const sets = [`${quote(PARENT_HIDDEN.column)} = ${hiddenSql(parent, 'p')}`];
  if (key.property === TENANT_ID.property) sets.push(`${quote(TENANT_ID.column)} = ${parentTenant(parent)}`);
  return `update ${quote(table)} c set ${sets.join(', ')} from ${quote(tableOf(parent.entity))} p where p."id" = c.${quote(key.parent.column)} /* ${resource.name} */`;
}

/**
 * Before a row is inserted, or its parent reference changes: its key and flag copied from the parent,
 * read FOR SHARE so that a parent's concurrent delete either waits for this insert (and then finds the
 * row to hide) or is waited for (and its outcome copied). A row never changes organization.
 */
function keyTriggerSql({ key, table }: Keyed, resources: Resource[], tableOf: TableOf): string {
  const parent = resourceFor(resources, key.parent.entity);
  const fn = quote(objectName(table, 'tenant_key'));
  const fk = `new.${quote(key.parent.column)}`;
  const tenant = key.property === TENANT_ID.property ? `new.${quote(TENANT_ID.column)}` : undefined;
  const refuse = `raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'`;
  const body = [
    `if ${fk} is null then`,
    `  parent_tenant := null; hidden := false;`,
    `else`,
    `  select ${parentTenant(parent)}, ${hiddenSql(parent, 'p')} into parent_tenant, hidden from ${quote(tableOf(parent.entity))} p where p."id" = ${fk} for share;`,
    `end if;`,
    ...(tenant
      ? [`if tg_op = 'UPDATE' and parent_tenant <> old.${quote(TENANT_ID.column)} then ${refuse}; end if;`, `${tenant} := parent_tenant;`]
      : [`if tg_op = 'UPDATE' and ${fk} <> old.${quote(key.column)} then ${refuse}; end if;`]),
    `new.${quote(PARENT_HIDDEN.column)} := coalesce(hidden, false);`,
    `return new;`,
  ];
  return [
    `create or replace function ${fn}() returns trigger language plpgsql as $$\ndeclare parent_tenant uuid; hidden boolean;\nbegin\n${body.map((l) => `  ${l}`).join('\n')}\nend $$`,
    `create or replace trigger ${quote(objectName(table, 'tenant_key'))} before insert or update of ${quote(key.parent.column)} on ${quote(table)} for each row execute function ${fn}()`,
  ].join(';\n');
}

/**
 * After an update of a parent table: where a row's hidden state changed (deleted, archived, restored,
 * or hidden by its own parent), its children's flags follow in the same transaction; their own
 * triggers carry it further down. Statement-level, so that archiving a large organization updates each
 * child table once, not once per row.
 */
function parentTriggersSql(keyed: Keyed[], resources: Resource[], tableOf: TableOf): { parent: EntityClass<object>; sql: string }[] {
  const parents = [...new Set(keyed.map((k) => k.key.parent.entity))];
  return parents.map((entity) => {
    const parent = resourceFor(resources, entity);
    const table = tableOf(entity);
    const fn = quote(objectName(table, 'hide_children'));
    const changed = `select n."id", ${hiddenSql(parent, 'n')} as hidden from new_rows n join old_rows o on o."id" = n."id" where ${hiddenSql(parent, 'n')} <> ${hiddenSql(parent, 'o')}`;
    const updates = keyed
      .filter((k) => k.key.parent.entity === entity)
      .map(
        (k) =>
          `  with h as (${changed}) update ${quote(k.table)} c set ${quote(PARENT_HIDDEN.column)} = h.hidden from h where c.${quote(k.key.parent.column)} = h."id" and c.${quote(PARENT_HIDDEN.column)} <> h.hidden;`,
      );
    const sql = [
      `create or replace function ${fn}() returns trigger language plpgsql as $$\nbegin\n  if not exists (${changed}) then return null; end if;\n${updates.join('\n')}\n  return null;\nend $$`,
      `create or replace trigger ${quote(objectName(table, 'hide_children'))} after update on ${quote(table)} referencing new table as new_rows old table as old_rows for each statement execute function ${fn}()`,
    ].join(';\n');
    return { parent: entity, sql };
  });
}

/**
 * A tenant's live rows in the default order: a member's pages and their index-only counts, as one range
 * of the index for the equalities tenancy.ts writes. (Administrators page on the default order's index,
 * database/list-indexes.ts: nearly every row is live.)
 */
export function liveIndexes(resource: Resource): { properties: string[] }[] {
  const key = tenantKeyOf(resource);
  if (!key?.parent || !fieldsOf(resource.entity).some((f) => f.name === 'createdOn')) return [];
  const mode = resource.delete;
  const live = [...(mode.kind === 'soft' && mode.hide ? [mode.field] : []), PARENT_HIDDEN.property, 'createdOn', 'id'];
  return [{ properties: [key.property, ...live] }];
}
