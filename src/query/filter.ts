import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import { parse } from '@rsql/parser';
import type { ComparisonNode, ExpressionNode, LogicNode } from '@rsql/ast';
import { BadRequestError } from '../errors/api-error';
import { parseDateTime } from '../model/date-time';
import type { FieldMeta } from '../model/fields';
import { unstorableText } from '../model/text';
import { isUuid } from '../model/uuid';
import { nest, resolveFieldPath, type ResolvedPath } from './field-path';

type Condition = Record<string, unknown>;

/** The rows of a related entity a filter may look at (undefined: all of them). */
export type JoinedRows = (entity: EntityClass<object>) => Condition | undefined;

export interface ParsedFilter<T> {
  /** The entities the expression reaches through dotted paths. */
  relations: EntityClass<object>[];
  /** The ORM condition; a comparison through a relation only matches related rows `joined` allows. */
  condition(joined: JoinedRows): FilterQuery<T>;
}

/**
 * Reads the filter language (RSQL `;`/`,` and the `and`/`or` words, parentheses, == != =like= =in=
 * =out= > >= < <= =gt= =ge= =lt= =le= =isnull=). It becomes a MikroORM condition whose values are bound
 * as parameters by the ORM; nothing is concatenated into SQL.
 */
export function parseFilter<T extends object>(entity: EntityClass<T>, text: string | undefined): ParsedFilter<T> | undefined {
  if (!text || !text.trim()) return undefined;
  // Values are compared in the database, which cannot hold such text: refused rather than altered.
  const unstorable = unstorableText(text);
  if (unstorable) throw BadRequestError.forField('filter', unstorable);
  let ast: ExpressionNode;
  try {
    ast = parse(text);
  } catch (error) {
    throw BadRequestError.forField('filter', `malformed expression: ${(error as Error).message}`);
  }
  const comparisons = collectComparisons(ast).map((node) => ({ node, path: resolveFieldPath(entity, node.left.selector, 'filter') }));
  const resolved = new Map(comparisons.map(({ node, path }) => [node, path]));
  return {
    relations: [...new Set(comparisons.flatMap(({ path }) => path.relations.map((r) => r.target)))],
    condition: (joined) => translate(ast, resolved, joined) as FilterQuery<T>,
  };
}

function collectComparisons(node: ExpressionNode): ComparisonNode[] {
  if (node.type !== 'LOGIC') return [node as ComparisonNode];
  const logic = node as LogicNode;
  return [...collectComparisons(logic.left), ...collectComparisons(logic.right)];
}

type Resolved = Map<ComparisonNode, ResolvedPath>;

function translate(node: ExpressionNode, resolved: Resolved, joined: JoinedRows): Condition {
  if (node.type === 'LOGIC') {
    const logic = node as LogicNode;
    const operator = logic.operator === ';' || logic.operator === 'and' ? '$and' : '$or';
    return { [operator]: [translate(logic.left, resolved, joined), translate(logic.right, resolved, joined)] };
  }
  const comparison = node as ComparisonNode;
  const path = resolved.get(comparison)!;
  const guards = path.relations
    .map(({ properties, target }) => {
      const allowed = joined(target);
      return allowed ? nest(properties, allowed) : undefined;
    })
    .filter((guard): guard is Condition => guard !== undefined);
  const condition = translateComparison(comparison, path);
  return guards.length ? { $and: [condition, ...guards] } : condition;
}

const COMPARISONS: Record<string, string> = {
  '==': '$eq',
  '!=': '$ne',
  '>': '$gt',
  '=gt=': '$gt',
  '>=': '$gte',
  '=ge=': '$gte',
  '<': '$lt',
  '=lt=': '$lt',
  '<=': '$lte',
  '=le=': '$lte',
};

function translateComparison(node: ComparisonNode, { field, properties }: ResolvedPath): Condition {
  const raw = node.right.value;
  const operator = node.operator;
  if (operator === '=isnull=') {
    if (raw !== 'true' && raw !== 'false') throw BadRequestError.forField('filter', `=isnull= takes true or false`);
    return nest(properties, raw === 'true' ? { $eq: null } : { $ne: null });
  }
  if (operator === '=in=' || operator === '=out=') {
    const list = (Array.isArray(raw) ? raw : [raw]).map((v) => coerce(field, v, node.left.selector));
    return nest(properties, { [operator === '=in=' ? '$in' : '$nin']: list });
  }
  if (Array.isArray(raw)) throw BadRequestError.forField('filter', `${operator} takes a single value`);
  if (operator === '=like=') {
    if (field.kind !== 'string') throw BadRequestError.forField('filter', `=like= applies to text fields, not "${node.left.selector}"`);
    return nest(properties, { $ilike: likePattern(raw) });
  }
  const mapped = COMPARISONS[operator];
  if (!mapped) throw BadRequestError.forField('filter', `unknown operator ${operator}`);
  return nest(properties, { [mapped]: coerce(field, raw, node.left.selector) });
}

/** `*` is the wildcard; SQL's own wildcards in the value are matched literally. */
function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

function coerce(field: FieldMeta, value: string, path: string): unknown {
  const invalid = (expected: string) => BadRequestError.forField('filter', `"${path}" expects ${expected}, got "${value}"`);
  switch (field.kind) {
    case 'boolean':
      if (value === 'true' || value === 'false') return value === 'true';
      throw invalid('true or false');
    case 'int':
    case 'number': {
      const number = Number(value);
      if (value.trim() === '' || !Number.isFinite(number) || (field.kind === 'int' && !Number.isInteger(number))) throw invalid('a number');
      return number;
    }
    case 'dateTime': {
      const date = parseDateTime(value);
      if (!date) throw invalid('an ISO 8601 date-time');
      return date;
    }
    case 'id':
    case 'reference':
      if (!isUuid(value)) throw invalid('a UUID');
      return value.toLowerCase();
    case 'enum':
      if (!field.enum!.values.includes(value)) throw invalid(`one of ${field.enum!.values.join(', ')}`);
      return value;
    default:
      return value;
  }
}
