import { BadRequestError, type FieldIssue } from '../errors/api-error';
import { implicitDefault, INT32, type FieldMeta } from '../model/fields';
import { parseDateTime } from '../model/date-time';
import { shapeIssues } from '../model/json-shapes';
import type { Resource } from '../model/resource';
import { unstorableText, unstorableTextIn } from '../model/text';
import { isUuid } from '../model/uuid';

export type WriteMode = 'create' | 'update';

export interface ParsedInput {
  /** The fields the body wrote, converted to stored values (create: completed with defaults). */
  values: Record<string, unknown>;
  /** The fields the body itself carried, converted (no defaults): what a rule needs to tell which form of a value was sent. */
  sent: Record<string, unknown>;
  /** The optimistic-locking token of an update body, when it carried a non-null one. */
  changeSequence?: number;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The refusal of a value outside a named set, as the GraphQL enums word it: `FOO is not a PipelineStepType; allowed values: ...`. */
export function notAllowedMessage(shown: string, typeName: string, allowed: readonly string[]): string {
  return `${shown} is not a ${typeName}; allowed values: ${allowed.join(', ')}`;
}

/** Why `value` is not one of `allowed` (the `typeName` set), or undefined when it is. */
export function allowedValueIssue(value: unknown, typeName: string, allowed: readonly string[]): string | undefined {
  if (typeof value === 'string' && allowed.includes(value)) return undefined;
  if (value === undefined) return `is required (a ${typeName}); allowed values: ${allowed.join(', ')}`;
  return notAllowedMessage(typeof value === 'string' && value.trim() ? value : JSON.stringify(value), typeName, allowed);
}

export function isWritable(field: FieldMeta, mode: WriteMode): boolean {
  const writable = field.options.writable ?? 'always';
  return writable === 'always' || (writable === 'create' && mode === 'create');
}

/**
 * Reads a create or update body against the resource's field declarations: exactly the fields present
 * are written, null clears nullable fields, server-owned fields are ignored, and every problem is
 * reported at once with the field it concerns.
 */
export function parseInput(resource: Resource, body: unknown, mode: WriteMode): ParsedInput {
  if (!isPlainObject(body)) throw new BadRequestError('request body must be a JSON object');
  const issues: FieldIssue[] = [];
  const values: Record<string, unknown> = {};
  const sent: Record<string, unknown> = {};
  for (const field of resource.fields) {
    if (!isWritable(field, mode)) continue;
    const raw = rawValue(field, body, issues);
    if (raw === undefined) {
      if (mode === 'create') completeOmitted(field, values, issues);
      continue;
    }
    if (raw === null && mode === 'create' && field.options.required) {
      issues.push({ field: field.name, message: 'is required and must not be null' });
      continue;
    }
    const checked = checkValue(field, raw);
    if ('issue' in checked) issues.push(...issuesOf(field, checked));
    else values[field.name] = sent[field.name] = checked.value;
  }
  const changeSequence = mode === 'update' ? readChangeSequence(body, issues) : undefined;
  if (issues.length) throw BadRequestError.forFields(issues);
  return { values, sent, changeSequence };
}

/** A reference may arrive as `teamId` or as the object `team: {id}` (a GET body echoed back). */
function rawValue(field: FieldMeta, body: Record<string, unknown>, issues: FieldIssue[]): unknown {
  if (Object.hasOwn(body, field.name)) return body[field.name];
  const relation = field.reference?.relation;
  if (!relation || !Object.hasOwn(body, relation)) return undefined;
  const object = body[relation];
  if (object === null) return null;
  if (isPlainObject(object) && typeof object.id === 'string') return object.id;
  issues.push({ field: relation, message: 'must be an object with an id, or null' });
  return undefined;
}

function completeOmitted(field: FieldMeta, values: Record<string, unknown>, issues: FieldIssue[]): void {
  if (field.options.required) {
    issues.push({ field: field.name, message: 'is required' });
    return;
  }
  const fallback = implicitDefault(field);
  if (fallback !== undefined) values[field.name] = fallback;
}

function readChangeSequence(body: Record<string, unknown>, issues: FieldIssue[]): number | undefined {
  const raw = body.changeSequence;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= INT32.max) return raw;
  issues.push({ field: 'changeSequence', message: 'must be a non-negative integer or null' });
  return undefined;
}

/** A refused value; `nested` names the values inside a JSON field that depart from its shape, by full path. */
type Checked = { value: unknown } | { issue: string; nested?: FieldIssue[] };

/** The issues of a refused value: each nested one under its own path, or the field's. */
function issuesOf(field: FieldMeta, checked: { issue: string; nested?: FieldIssue[] }): FieldIssue[] {
  return checked.nested?.length ? checked.nested : [{ field: field.name, message: checked.issue }];
}

/** Validates and converts one written value; shared by bodies and rule-derived values. */
export function checkValue(field: FieldMeta, raw: unknown): Checked {
  if (raw === null) return field.options.nullable ? { value: null } : { issue: 'must not be null' };
  const value = field.options.normalize ? field.options.normalize(raw) : raw;
  switch (field.kind) {
    case 'string':
      return checkString(field, value);
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { issue: 'must be a boolean' };
    case 'int':
      return checkNumber(field, value, true);
    case 'number':
      return checkNumber(field, value, false);
    case 'dateTime':
      return checkDateTime(value);
    case 'id':
    case 'reference':
      return isUuid(value) ? { value: value.toLowerCase() } : { issue: 'must be a UUID' };
    case 'enum':
      return typeof value === 'string' && field.enum!.values.includes(value) ? { value } : { issue: `must be one of ${field.enum!.values.join(', ')}` };
    case 'stringArray':
      return checkStringArray(value);
    case 'json':
      return checkJson(field, value);
  }
}

function checkString(field: FieldMeta, value: unknown): Checked {
  if (typeof value !== 'string') return { issue: 'must be a string' };
  const unstorable = unstorableText(value);
  if (unstorable) return { issue: unstorable };
  const { minLength, maxLength, pattern } = field.options;
  if (minLength !== undefined && value.length < minLength) return { issue: `must be at least ${minLength} characters` };
  if (maxLength !== undefined && value.length > maxLength) return { issue: `must be at most ${maxLength} characters` };
  if (pattern && !pattern.test(value)) return { issue: `must match ${pattern.source}` };
  return { value };
}

function checkStringArray(value: unknown): Checked {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return { issue: 'must be an array of strings' };
  const unstorable = unstorableTextIn(value);
  return unstorable ? { issue: unstorable } : { value };
}

function checkNumber(field: FieldMeta, value: unknown, integer: boolean): Checked {
  if (typeof value !== 'number' || !Number.isFinite(value)) return { issue: 'must be a number' };
  if (integer && (!Number.isInteger(value) || value < INT32.min || value > INT32.max)) return { issue: 'must be a 32-bit integer' };
  const { min, max } = field.options;
  if (min !== undefined && value < min) return { issue: `must be at least ${min}` };
  if (max !== undefined && value > max) return { issue: `must be at most ${max}` };
  return { value };
}

function checkDateTime(value: unknown): Checked {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return { value };
  const date = typeof value === 'string' ? parseDateTime(value) : undefined;
  return date ? { value: date } : { issue: 'must be an ISO 8601 date-time' };
}

/** A JSON field's value checked against the shape its schema declares, nested values included. */
function checkJson(field: FieldMeta, value: unknown): Checked {
  const nested = shapeIssues(field.options.schema, value, field.name);
  if (nested.length) {
    const top = nested.find((issue) => issue.field === field.name);
    return top ? { issue: top.message } : { issue: nested.map((i) => `${i.field} ${i.message}`).join('; '), nested };
  }
  const unstorable = unstorableTextIn(value);
  return unstorable ? { issue: unstorable } : { value };
}
