import { Property, type EntityClass } from '@mikro-orm/core';
import { fieldsOf } from './fields';
import { snakeCase } from './naming';
import type { Resource } from './resource';

/**
 * Every row of an organization's resource carries that organization's id in a column of its own (the
 * tenant key) and whether a parent on its tenancy path hides it (`parent_hidden`: a deleted project, an
 * archived organization ...), so that tenancy and liveness are conditions on the row's own table,
 * never joins up the path. Both are declared here once from each resource's scope path and kept by the
 * database itself (triggers written by `tenantKeySql`): set from the parent in the inserting statement,
 * refused when a row would change organization, and re-derived for the descendants in the transaction
 * of a parent's delete, archive or restore.
 */
export interface TenantKey {
  /** The property holding the organization id: `id` (an organization), the scope reference itself, or `tenantId`. */
  property: string;
  column: string;
  /** The reference the key and the liveness are copied from (the first hop of the scope path); none for an organization. */
  parent?: { property: string; column: string; entity: EntityClass<object> };
  /** Rows carry `parent_hidden` (every resource below an organization). */
  hideable: boolean;
}

export const TENANT_ID = { property: 'tenantId', column: 'tenant_id' } as const;
export const PARENT_HIDDEN = { property: 'parentHidden', column: 'parent_hidden' } as const;

const keys = new Map<EntityClass<object>, TenantKey | undefined>();

/** The tenant key of a resource (undefined: the resource does not belong to an organization). */
export function tenantKeyOf(resource: Resource): TenantKey | undefined {
  if (!keys.has(resource.entity)) keys.set(resource.entity, deriveTenantKey(resource));
  return keys.get(resource.entity);
}

function deriveTenantKey(resource: Resource): TenantKey | undefined {
  if (resource.scope.kind !== 'organization') return undefined;
  const [first, ...rest] = resource.scope.path.split('.');
  if (first === 'id' && rest.length === 0) return { property: 'id', column: 'id', hideable: false };
  const reference = fieldsOf(resource.entity).find((f) => f.name === first)?.reference;
  if (!reference) throw new Error(`${resource.name}: the scope path ${resource.scope.path} must start with a reference`);
  const parent = { property: first, column: columnOf(first), entity: reference.target() };
  if (rest.length === 0) return { property: first, column: parent.column, parent, hideable: true };
  return { ...TENANT_ID, parent, hideable: true };
}

/** The column MikroORM gives a property (its snake case, as every field here). */
const columnOf = snakeCase;

/**
 * The row is live (`alias` names it): DELETE has not hidden it and no parent hides it, as SQL text. The
 * same text serves the statements and the predicate of the partial indexes, so that the planner can
 * match one to the other. Undefined when nothing can hide the row.
 */
export function liveSql(resource: Resource, alias: string): string | undefined {
  const parts: string[] = [];
  const mode = resource.delete;
  if (mode.kind === 'soft' && mode.hide) {
    const column = `${alias}.${quote(columnOf(mode.field))}`;
    const nullable = fieldsOf(resource.entity).find((f) => f.name === mode.field)?.options.nullable;
    parts.push(nullable ? `${column} is not ${mode.value}` : mode.value ? `not ${column}` : column);
  }
  if (tenantKeyOf(resource)?.hideable) parts.push(`not ${alias}.${quote(PARENT_HIDDEN.column)}`);
  return parts.length ? parts.join(' and ') : undefined;
}

/** The row is hidden, by DELETE or by a parent (`alias` names it), as SQL text: the negation of liveSql. */
export function hiddenSql(resource: Resource, alias: string): string {
  const parts: string[] = [];
  const mode = resource.delete;
  if (mode.kind === 'soft' && mode.hide) {
    const column = `${alias}.${quote(columnOf(mode.field))}`;
    const nullable = fieldsOf(resource.entity).find((f) => f.name === mode.field)?.options.nullable;
    parts.push(nullable ? `${column} is ${mode.value}` : mode.value ? column : `not ${column}`);
  }
  if (tenantKeyOf(resource)?.hideable) parts.push(`${alias}.${quote(PARENT_HIDDEN.column)}`);
  return parts.length === 0 ? 'false' : parts.length === 1 ? parts[0] : `(${parts.join(' or ')})`;
}

export function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

const declared = new Set<EntityClass<object>>();

/**
 * Maps the tenant key and the liveness flag of every resource that needs them (before the ORM discovers
 * its entities). Neither is a field: no answer, body, filter or schema shows them.
 */
export function declareTenantKeys(resources: Resource[]): void {
  for (const resource of resources) {
    const key = tenantKeyOf(resource);
    if (!key || declared.has(resource.entity)) continue;
    declared.add(resource.entity);
    const prototype = resource.entity.prototype as object;
    if (key.property === TENANT_ID.property) {
      Property({ type: 'uuid', fieldName: TENANT_ID.column, nullable: true, hidden: true })(prototype, TENANT_ID.property);
    }
    if (key.hideable) {
      Property({ type: 'boolean', fieldName: PARENT_HIDDEN.column, default: false, hidden: true })(prototype, PARENT_HIDDEN.property);
    }
  }
}
