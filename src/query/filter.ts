import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import { parse } from '@rsql/parser';
import type { ComparisonNode, ExpressionNode, LogicNode } from '@rsql/ast';
import { BadRequestError } from '../errors/api-error';
import { parseDateTime } from '../model/date-time';
import { INT32, inverseFiltersOf, type FieldMeta, type InverseLink } from '../model/fields';
import { unstorableText } from '../model/text';
import { isUuid } from '../model/uuid';
import { nest, resolveFieldPath, type ResolvedPath } from './field-path';

type Condition = Record<string, unknown>;

/** The rows of a related entity a filter may look at (undefined: all of them). */
export type JoinedRows = (entity: EntityClass<object>) => Condition | undefined;

/** What the filter needs from the database side: visibility, and the subquery of an inverse filter. */
export interface FilterScope {
  /** A comparison through a relation only matches related rows `joined` allows. */
  joined: JoinedRows;
  /** `EXISTS`: one of the rows of `link.source` that refer to the filtered row meets `condition`. */
  exists(link: InverseLink, condition: Condition): Condition;
}

export interface ParsedFilter<T> {
  /** The entities the expression reaches through dotted paths and inverse filters. */
  relations: EntityClass<object>[];
  condition(scope: FilterScope): FilterQuery<T>;
}

/** A comparison's field: on the filtered entity, or through an inverse filter (`memberTask.title`) on the rows referring to it. */
interface Resolved {
  path: ResolvedPath;
  link?: InverseLink;
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
  const resolved: Resolutions = new Map(collectComparisons(ast).map((node) => [node, resolveComparison(entity, node.left.selector)]));
  const reached = [...resolved.values()].flatMap(({ path, link }) => [...(link ? [link.source] : []), ...path.relations.map((r) => r.target)]);
  return {
    relations: [...new Set(reached)],
    condition: (scope) => translate(ast, resolved, scope) as FilterQuery<T>,
  };
}

function resolveComparison(entity: EntityClass<object>, selector: string): Resolved {
  const [first, ...rest] = selector.split('.');
  const link = inverseFiltersOf(entity).find((l) => l.name === first);
  if (!link) return { path: resolveFieldPath(entity, selector, 'filter') };
  if (rest.length === 0) throw BadRequestError.forField('filter', `"${first}" names a collection; name one of its fields (${first}.<field>)`);
  return { link, path: resolveFieldPath(link.source, rest.join('.'), 'filter', selector) };
}

function collectComparisons(node: ExpressionNode): ComparisonNode[] {
  if (node.type !== 'LOGIC') return [node as ComparisonNode];
  const logic = node as LogicNode;
  return [...collectComparisons(logic.left), ...collectComparisons(logic.right)];
}

type Resolutions = Map<ComparisonNode, Resolved>;

/**
 * The condition of a node. The largest subtrees whose comparisons all go through one inverse filter
 * become one `EXISTS` each, so that `memberTask.a;memberTask.b` asks for one task meeting both.
 */
function translate(node: ExpressionNode, resolved: Resolutions, scope: FilterScope, inside?: InverseLink): Condition {
  if (!inside) {
    const link = sharedLink(node, resolved);
    if (link) return scope.exists(link, translate(node, resolved, scope, link));
  }
  if (node.type === 'LOGIC') {
    const logic = node as LogicNode;
    const operator = logic.operator === ';' || logic.operator === 'and' ? '$and' : '$or';
    return { [operator]: [translate(logic.left, resolved, scope, inside), translate(logic.right, resolved, scope, inside)] };
  }
  const comparison = node as ComparisonNode;
  const { path } = resolved.get(comparison)!;
  const guards = path.relations
    .map(({ properties, target }) => {
      const allowed = scope.joined(target);
      return allowed ? nest(properties, allowed) : undefined;
    })
    .filter((guard): guard is Condition => guard !== undefined);
  const condition = translateComparison(comparison, path);
  return guards.length ? { $and: [condition, ...guards] } : condition;
}

/** The inverse filter every comparison below `node` goes through, if they share one. */
function sharedLink(node: ExpressionNode, resolved: Resolutions): InverseLink | undefined {
  const links = collectComparisons(node).map((c) => resolved.get(c)!.link);
  const [first] = links;
  return first && links.every((l) => l?.name === first.name) ? first : undefined;
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
      // The column cannot hold it: PostgreSQL would fail the statement rather than compare.
      if (field.kind === 'int' && (number < INT32.min || number > INT32.max)) throw invalid('a 32-bit integer');
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
