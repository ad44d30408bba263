import { BadRequestError, type FieldIssue } from '../errors/api-error';
import type { DomainOperation } from '../model/operation';
import { unstorableText, unstorableTextIn } from '../model/text';
import { isUuid } from '../model/uuid';
import { isPlainObject } from './input';

/**
 * The body of a domain operation checked against its declared arguments: a JSON object when sent
 * (`null`, `""` and `[]` are bodies, not objects: 400 naming what was sent), each declared argument of
 * its kind (400 naming it; without a body, the required ones are named as missing). Undeclared keys
 * are left for the operation (a DocumentStatus body carries more than the `id` read from it).
 */
export function parseOperationInput(operation: DomainOperation, given: unknown): Record<string, unknown> {
  if (given === undefined && bodyIsTheInput(operation)) throw new BadRequestError('request body is required: a JSON object');
  const body = given === undefined ? {} : given;
  if (!isPlainObject(body)) throw new BadRequestError(`request body must be a JSON object, not ${kindOfJson(body)}`);
  const issues: FieldIssue[] = [];
  for (const argument of operation.body) {
    const value = body[argument.name];
    if (value === undefined || value === null) {
      if (argument.required) issues.push({ field: argument.name, message: 'is required' });
      continue;
    }
    const problem = kindProblem(argument.kind, value);
    if (problem) issues.push({ field: argument.name, message: problem });
  }
  if (issues.length) throw BadRequestError.forFields(issues);
  return body;
}

/** A required body that declares no argument is the input whole (a step error's details): there is nothing to name as missing. */
function bodyIsTheInput(operation: DomainOperation): boolean {
  return operation.method !== 'get' && !operation.bodyOptional && operation.body.length === 0;
}

/** What a JSON value is, as a refusal names it. */
function kindOfJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function kindProblem(kind: DomainOperation['body'][number]['kind'], value: unknown): string | undefined {
  switch (kind) {
    case 'id':
      return typeof value === 'string' && isUuid(value) ? undefined : 'must be a UUID';
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      return unstorableText(value);
    case 'stringArray':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return 'must be an array of strings';
      return unstorableTextIn(value);
    case 'json':
      return isPlainObject(value) ? undefined : 'must be a JSON object';
    case 'jsonArray':
      return Array.isArray(value) ? undefined : 'must be an array';
    case 'jsonValue':
      return undefined;
  }
}
