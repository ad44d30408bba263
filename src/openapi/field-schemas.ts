import type { FieldMeta, JsonSchema } from '../model/fields';
import { EMBEDDED_COLLECTION_MAX, embeddedCollectionsOf, fieldsOf, isAnswered } from '../model/fields';
import type { Resource } from '../model/resource';
import { isWritable, type WriteMode } from '../engine/input';
import { getMetadataStorage } from 'type-graphql';
import { CHANGE_SEQUENCE_TOKEN, createRequestDescription, relationDescription, updateRequestDescription } from '../model/descriptions';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * `$ref` siblings are ignored in OpenAPI 3.0, so a nullable reference wraps it in allOf; `nullable`
 * only counts beside a `type` (3.0.3), so the wrapper states the target's.
 */
export function nullableRef(name: string, nullable: boolean, type: 'object' | 'string'): JsonSchema {
  return nullable ? { type, nullable: true, allOf: [ref(name)] } : ref(name);
}

/** A description beside a bare `$ref` would be ignored: the reference moves into allOf. */
export function described(schema: JsonSchema, description: string | undefined): JsonSchema {
  if (description === undefined) return schema;
  return '$ref' in schema ? { allOf: [schema], description } : { ...schema, description };
}

/** The OpenAPI schema of one declared field. */
export function fieldSchema(field: FieldMeta): JsonSchema {
  const o = field.options;
  const base = ((): JsonSchema => {
    switch (field.kind) {
      case 'string':
        return { type: 'string', minLength: o.minLength, maxLength: o.maxLength, pattern: o.pattern?.source };
      case 'boolean':
        return { type: 'boolean' };
      case 'int':
        return { type: 'integer', format: 'int32', minimum: o.min, maximum: o.max };
      case 'number':
        return { type: 'number', format: 'double', minimum: o.min, maximum: o.max };
      case 'dateTime':
        return { type: 'string', format: 'date-time' };
      case 'id':
      case 'reference':
        return { type: 'string', format: 'uuid' };
      case 'stringArray':
        return { type: 'array', items: { type: 'string' } };
      case 'enum':
        return nullableRef(field.enum!.name, o.nullable ?? false, 'string');
      case 'json':
        return { ...(o.schema ?? {}) };
    }
  })();
  const schema: JsonSchema = { ...withoutUndefined(base), writeOnly: o.writeOnly };
  // Without a type (free JSON) every value, null included, is already allowed.
  if (o.nullable && field.kind !== 'enum' && schema.type !== undefined) schema.nullable = true;
  return described(withoutUndefined(schema), o.description);
}

function withoutUndefined(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));
}

/** `<Entity>`: every answered field, and each reference's object under its relation name. */
export function entitySchema(entity: Function & { name: string }, fields: FieldMeta[] = fieldsOf(entity as never)): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of fields.filter(isAnswered)) {
    properties[field.name] = fieldSchema(field);
    if (field.options.responseRequired !== false) required.push(field.name);
    const reference = field.reference;
    if (reference?.embed) {
      properties[reference.relation] = { ...nullableRef(reference.target().name, true, 'object'), description: relationDescription(field) };
      if (reference.embedRequired) required.push(reference.relation);
    }
  }
  // Always answered; null only on the rows of another row's embedded collection.
  for (const collection of embeddedCollectionsOf(entity as never)) {
    properties[collection.name] = {
      type: 'array',
      nullable: true,
      items: ref(collection.source.name),
      description: `The ${collection.source.name} rows naming this row in ${collection.field.name} (those the caller may see, oldest first, at most ${EMBEDDED_COLLECTION_MAX}); null inside another row's collection`,
    };
    required.push(collection.name);
  }
  return { type: 'object', description: typeDescription(entity), properties, required };
}

/** The text an entity's GraphQL type declares (`@ObjectType({ description })`), so that both documents show it. */
export function typeDescription(entity: Function): string {
  const declared = getMetadataStorage().objectTypes.find((o) => o.target === entity)?.description;
  if (!declared) throw new Error(`${entity.name} declares no description: give its @ObjectType one`);
  return declared;
}

/** `<Entity>CreateRequest` / `<Entity>UpdateRequest`: the fields a body may write, with the specification's required lists. */
export function requestSchema(resource: Resource, mode: WriteMode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (mode === 'update') {
    properties.changeSequence = { type: 'integer', format: 'int32', nullable: true, description: CHANGE_SEQUENCE_TOKEN };
  }
  // A nested collection's create takes its parent from the path (`{orgId}`), not from the body.
  const parentField = mode === 'create' ? resource.parent?.field : undefined;
  for (const field of resource.fields.filter((f) => isWritable(f, mode) && f.name !== parentField)) {
    properties[field.name] = fieldSchema(field);
    if (mode === 'create' && field.options.required) required.push(field.name);
    if (field.reference) {
      properties[field.reference.relation] = {
        ...nullableRef(field.reference.target().name, true, 'object'),
        description: `Alternative to ${field.name}: an object whose id is used`,
      };
    }
  }
  const description = mode === 'create' ? createRequestDescription(resource.name, resource.path) : updateRequestDescription(resource.name, resource.path);
  return { type: 'object', description, properties, ...(required.length ? { required } : {}) };
}
