import type { EntityClass } from '@mikro-orm/core';
import { BadRequestError } from '../errors/api-error';
import { fieldsOf, type FieldMeta } from '../model/fields';

export interface ResolvedPath {
  /** The scalar field the path ends on. */
  field: FieldMeta;
  /** Property names to nest a condition under, e.g. ['organizationId', 'slug']. */
  properties: string[];
  /** Each relation the path goes through: where it is reached from the root, and what it holds. */
  relations: { properties: string[]; target: EntityClass<object> }[];
}

/**
 * Resolves `name`, `organizationId` or a dotted relation path such as `organization.slug` against the
 * declared fields; anything else is a 400 naming the parameter (and the path as the caller wrote it, `shown`).
 */
export function resolveFieldPath(entity: EntityClass<object>, path: string, parameter: string, shown = path): ResolvedPath {
  const segments = path.split('.');
  const properties: string[] = [];
  const relations: ResolvedPath['relations'] = [];
  let fields = fieldsOf(entity);
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    const field = fields.find((f) => f.name === segment) ?? fields.find((f) => f.reference?.relation === segment);
    if (!field) throw BadRequestError.forField(parameter, `unknown field "${shown}"`);
    properties.push(field.name);
    if (last) {
      if (field.reference && field.name !== segment) throw BadRequestError.forField(parameter, `"${shown}" is an object; name one of its fields`);
      if (field.options.filterable === false) throw BadRequestError.forField(parameter, `field "${shown}" cannot be used here`);
      return { field, properties, relations };
    }
    if (!field.reference) throw BadRequestError.forField(parameter, `"${segment}" in "${shown}" is not a relation`);
    relations.push({ properties: [...properties], target: field.reference.target() });
    fields = fieldsOf(field.reference.target());
  }
  throw BadRequestError.forField(parameter, `unknown field "${shown}"`);
}

/** `{a: {b: leaf}}` from ['a', 'b']. */
export function nest(properties: string[], leaf: unknown): Record<string, unknown> {
  return properties.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), leaf as Record<string, unknown>);
}
