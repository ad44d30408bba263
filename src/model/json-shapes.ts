import { registeredEnums } from './enums';
import type { JsonSchema } from './fields';

/**
 * The shapes of JSON fields (`Project.options`, `DataDefinition.taxons` ...) are declared once, as the
 * OpenAPI schema of the field (FieldOptions.schema): the document publishes it, and every write, REST
 * or GraphQL, is checked against it here. A shape that names itself (a taxon's children are taxons) is
 * registered by name and published as a component the schema points at with `$ref`.
 */
const shapes = new Map<string, JsonSchema>();

/** Where a JSON value departs from its shape: the full path of the value, and why. */
export interface ShapeIssue {
  field: string;
  message: string;
}

const COMPONENT_PREFIX = '#/components/schemas/';

/** A named shape, published as `#/components/schemas/<name>`; the returned `$ref` points at it. */
export function defineShape(name: string, schema: JsonSchema): JsonSchema {
  shapes.set(name, schema);
  return { $ref: `${COMPONENT_PREFIX}${name}` };
}

/** The named shapes, for the OpenAPI document's components. */
export function registeredShapes(): [string, JsonSchema][] {
  return [...shapes];
}

/** At most this many issues are reported for one field: enough to fix a body, never an answer the size of the body. */
const MAX_ISSUES = 20;

/**
 * Where `value` departs from `schema`, each issue naming the full path of the value
 * (`options.taskOptions.showNewTask`, `taxons[0].children[1].cardinality`). Keys the schema does not
 * declare are free unless it is closed (`additionalProperties: false`), as are values of schemas without
 * a type; null is accepted where `nullable` says so.
 */
export function shapeIssues(schema: JsonSchema | undefined, value: unknown, path: string): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  if (schema) visit(schema, value, path, issues);
  return issues;
}

function visit(schema: JsonSchema, value: unknown, path: string, issues: ShapeIssue[]): void {
  if (issues.length >= MAX_ISSUES) return;
  const resolved = resolve(schema);
  if (!resolved) return;
  if (value === null) {
    if (resolved.type !== undefined && resolved.nullable !== true) issues.push({ field: path, message: 'must not be null' });
    return;
  }
  const typeIssue = typeMismatch(resolved.type, value) ?? tooShort(resolved, value);
  if (typeIssue) {
    issues.push({ field: path, message: resolved.type === 'string' && resolved.minLength === 1 ? 'must be a non-empty string' : typeIssue });
    return;
  }
  const allowed = resolved.enum as unknown[] | undefined;
  if (allowed && !allowed.includes(value)) {
    issues.push({ field: path, message: `must be one of ${allowed.join(', ')}` });
    return;
  }
  if (Array.isArray(value) && resolved.items) {
    value.forEach((item, i) => visit(resolved.items as JsonSchema, item, `${path}[${i}]`, issues));
    return;
  }
  const properties = resolved.properties as Record<string, JsonSchema> | undefined;
  if (properties && isObject(value)) {
    for (const [key, property] of Object.entries(properties)) {
      if (Object.hasOwn(value, key)) visit(property, value[key], `${path}.${key}`, issues);
    }
    // A closed shape (`additionalProperties: false`) names every key it takes.
    if (resolved.additionalProperties === false) {
      for (const key of Object.keys(value).filter((k) => !Object.hasOwn(properties, k)))
        issues.push({ field: `${path}.${key}`, message: `is not one of ${Object.keys(properties).join(', ')}` });
    }
  }
}

/** The schema a `$ref` names (a named shape or enumeration), or the schema itself. */
function resolve(schema: JsonSchema): JsonSchema | undefined {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.slice(COMPONENT_PREFIX.length);
  const shape = shapes.get(name);
  if (shape) return shape;
  const enumeration = registeredEnums().find((e) => e.name === name);
  if (enumeration) return { type: 'string', enum: [...enumeration.values] };
  throw new Error(`JSON shape ${ref} names no registered shape or enumeration`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why a text is shorter than its shape's `minLength` allows (undefined: it is not, or is no text). */
function tooShort(schema: JsonSchema, value: unknown): string | undefined {
  const min = schema.minLength;
  return typeof value === 'string' && typeof min === 'number' && value.length < min ? `must be at least ${min} characters` : undefined;
}

/** Why `value` is not of the JSON type `type` (undefined: it is, or no type is declared). */
function typeMismatch(type: unknown, value: unknown): string | undefined {
  switch (type) {
    case 'object':
      return isObject(value) ? undefined : 'must be a JSON object';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be a JSON array';
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : 'must be an integer';
    default:
      return undefined;
  }
}
