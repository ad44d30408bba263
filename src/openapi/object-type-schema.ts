import { Float, getMetadataStorage, ID, Int } from 'type-graphql';
import { registeredEnums } from '../model/enums';
import type { JsonSchema } from '../model/fields';
import { DateTimeScalar, JSONScalar } from '../model/scalars';
import { described, nullableRef } from './field-schemas';

/**
 * OpenAPI components read from a type-graphql object type (a domain operation's answer that is not an
 * entity), so that the GraphQL class stays the one declaration of that shape: each field becomes a
 * property, non-nullable fields are required, and object-typed and enum fields refer to their own component.
 */

const SCALARS = new Map<unknown, JsonSchema>([
  [ID, { type: 'string', format: 'uuid' }],
  [String, { type: 'string' }],
  [Boolean, { type: 'boolean' }],
  [Int, { type: 'integer', format: 'int32' }],
  [Float, { type: 'number', format: 'double' }],
  [DateTimeScalar, { type: 'string', format: 'date-time' }],
  [JSONScalar, {}],
]);

/** The components of `type` (named `name`) and of every object type its fields reach, into `schemas`. */
export function addObjectTypeSchemas(schemas: Record<string, JsonSchema>, type: Function, name = objectTypeName(type)): void {
  if (schemas[name]) return;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  schemas[name] = { type: 'object', ...describedBy(type), properties, required };
  for (const field of getMetadataStorage().fields.filter((f) => f.target === type)) {
    // getType() is also what records whether the field is a list (typeOptions.array).
    const fieldType = field.getType();
    const { nullable, array } = field.typeOptions;
    const enumeration = enumReference(fieldType);
    let schema = SCALARS.get(fieldType) ?? enumeration ?? referenceTo(schemas, fieldType as Function);
    if (array) schema = { type: 'array', items: schema };
    if (nullable && '$ref' in schema) schema = nullableRef(refName(schema), true, enumeration ? 'string' : 'object');
    // Without a type (JSON) every value, null included, is already allowed.
    else if (nullable && schema.type !== undefined) schema = { ...schema, nullable: true };
    properties[field.schemaName] = described(schema, field.description || undefined);
    if (!nullable) required.push(field.schemaName);
  }
}

function refName(schema: JsonSchema): string {
  return String(schema.$ref).replace('#/components/schemas/', '');
}

/** A registered enumeration's component (written with the others by the document). */
function enumReference(type: unknown): JsonSchema | undefined {
  const definition = registeredEnums().find((d) => d.graphql === type);
  return definition && { $ref: `#/components/schemas/${definition.name}` };
}

function referenceTo(schemas: Record<string, JsonSchema>, type: Function): JsonSchema {
  const name = objectTypeName(type);
  addObjectTypeSchemas(schemas, type, name);
  return { $ref: `#/components/schemas/${name}` };
}

function objectTypeName(type: Function): string {
  const declared = getMetadataStorage().objectTypes.find((o) => o.target === type);
  if (!declared) throw new Error(`${type.name} is not a type-graphql object type`);
  return declared.name;
}

function describedBy(type: Function): JsonSchema {
  const description = getMetadataStorage().objectTypes.find((o) => o.target === type)?.description;
  return description ? { description } : {};
}
