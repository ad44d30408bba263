import type { EntityMetadata } from '@mikro-orm/core';
import { fieldsOf } from '../model/fields';

/** The order every list falls back to (see query/sort.ts): oldest first, the id breaking ties. */
const DEFAULT_ORDER = ['createdOn', 'id'];

/**
 * Indexes that keep list pages cheap however large a table grows, declared here once for every entity:
 * one for the default order, and one per reference for the pages of one parent (a project's tasks),
 * which also serves lookups by that reference alone.
 */
export function addListIndexes(meta: EntityMetadata): void {
  const fields = fieldsOf(meta.class);
  if (meta.abstract || meta.embeddable || !DEFAULT_ORDER.every((name) => fields.some((f) => f.name === name))) return;
  meta.indexes.push({ properties: DEFAULT_ORDER as never });
  for (const field of fields.filter((f) => f.reference)) {
    meta.indexes.push({ properties: [field.name, ...DEFAULT_ORDER] as never });
  }
}
