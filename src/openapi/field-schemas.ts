import type { FieldMeta, JsonSchema } from '../model/fields';
import { fieldsOf, isAnswered } from '../model/fields';
import type { Resource } from '../model/resource';
import { isWritable, type WriteMode } from '../services/input';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `$ref` siblings are ignored in OpenAPI 3.0, so a nullable reference wraps it in allOf. */
function nullableRef(name: string, nullable: boolean): JsonSchema {
  return nullable ? { allOf: [ref(name)], nullable: true } : ref(name);
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
        return nullableRef(field.enum!.name, o.nullable ?? false);
      case 'json':
        return { ...(o.schema ?? {}) };
    }
  })();
  const schema: JsonSchema = { ...base, description: o.description, writeOnly: o.writeOnly };
  if (o.nullable && field.kind !== 'enum') schema.nullable = true;
  return withoutUndefined(schema);
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
      properties[reference.relation] = nullableRef(reference.target().name, true);
      if (reference.embedRequired) required.push(reference.relation);
    }
  }
  return { type: 'object', description: `${entity.name} as returned by the API`, properties, required };
}

/** `<Entity>CreateRequest` / `<Entity>UpdateRequest`: the fields a body may write, with the specification's required lists. */
export function requestSchema(resource: Resource, mode: WriteMode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (mode === 'update') {
    properties.changeSequence = {
      type: 'integer',
      format: 'int32',
      nullable: true,
      description: 'Optimistic-locking token: a non-null value that is not the current changeSequence is refused with 409',
    };
  }
  for (const field of resource.fields.filter((f) => isWritable(f, mode))) {
    properties[field.name] = fieldSchema(field);
    if (mode === 'create' && field.options.required) required.push(field.name);
    if (field.reference) {
      properties[field.reference.relation] = {
        ...nullableRef(field.reference.target().name, true),
        description: `Alternative to ${field.name}: an object whose id is used`,
      };
    }
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
