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
  /** Each comparison's field as written, the entity it is read on (the filtered one, or an inverse filter's source) and its path there. */
  fields: FilterField[];
  condition(scope: FilterScope): FilterQuery<T>;
}

export interface FilterField {
  selector: string;
  entity: EntityClass<object>;
  path: ResolvedPath;
}

/** A comparison's field: on the filtered entity, or through an inverse filter (`memberTask.title`) on the rows referring to it. */
interface Resolved {
  path: ResolvedPath;
  link?: InverseLink;
}

/** Longest filter text accepted, in UTF-8 bytes. */
export const MAX_FILTER_BYTES = 8192;
/** Most comparisons a filter may hold. */
export const MAX_FILTER_COMPARISONS = 200;
/** Longest `=like=` value accepted, in characters: PostgreSQL cannot cancel a match inside one value, whose cost grows with the pattern. */
export const MAX_LIKE_CHARACTERS = 256;
/** Deepest nesting of parentheses a filter may hold (value lists such as `=in=(...)` included). */
export const MAX_FILTER_NESTING = 32;

/**
 * Reads the filter language (RSQL `;`/`,` and the `and`/`or` words, parentheses, == != =like= =in=
 * =out= > >= < <= =gt= =ge= =lt= =le= =isnull=). It becomes a MikroORM condition whose values are bound
 * as parameters by the ORM; nothing is concatenated into SQL.
 *
 * The size of what a caller may ask for is bounded (MAX_FILTER_BYTES, MAX_FILTER_COMPARISONS,
 * MAX_FILTER_NESTING) and checked by one linear pass before the text is parsed, so that a refused filter
 * costs no more than reading it. Nothing below walks the expression by recursion proportional to its
 * length: chains of one operator are flattened into one list.
 */
export function parseFilter<T extends object>(entity: EntityClass<T>, text: string | undefined): ParsedFilter<T> | undefined {
  if (!text || !text.trim()) return undefined;
  checkSize(text);
  // Values are compared in the database, which cannot hold such text: refused rather than altered.
  const unstorable = unstorableText(text);
  if (unstorable) throw BadRequestError.forField('filter', unstorable);
  let ast: ExpressionNode;
  try {
    ast = parse(text);
  } catch (error) {
    throw BadRequestError.forField('filter', `malformed expression: ${(error as Error).message}`);
  }
  const comparisons = comparisonsOf(ast);
  // The pass before parsing counts exactly these; counted again on the tree so the bound never rests on it alone.
  if (comparisons.length > MAX_FILTER_COMPARISONS) throw tooManyComparisons();
  const resolved: Resolutions = new Map(comparisons.map((node) => [node, resolveComparison(entity, node.left.selector)]));
  const reached = [...resolved.values()].flatMap(({ path, link }) => [...(link ? [link.source] : []), ...path.relations.map((r) => r.target)]);
  // Every value is checked now, whatever the statements later written from the filter read of it.
  for (const node of comparisons) translateComparison(node, resolved.get(node)!.path);
  const shared = sharedLinks(ast, resolved);
  return {
    relations: [...new Set(reached)],
    fields: [...resolved].map(([node, { path, link }]) => ({ selector: node.left.selector, entity: link ? link.source : entity, path })),
    condition: (scope) => translate(ast, { resolved, shared, scope }) as FilterQuery<T>,
  };
}

const tooManyComparisons = () => BadRequestError.forField('filter', `has more than the limit of ${MAX_FILTER_COMPARISONS} comparisons`);

/**
 * Refuses a filter longer than MAX_FILTER_BYTES, with more than MAX_FILTER_COMPARISONS comparisons or
 * parentheses nested deeper than MAX_FILTER_NESTING, in one pass over the text. Comparisons are counted
 * by their operators, found as the parser's lexer finds them: outside quoted values, every comparison
 * operator starts with one of `= ! < >`, which cannot occur in an unquoted value.
 */
function checkSize(text: string): void {
  // Each UTF-16 unit is at least one byte: the length alone refuses most oversized texts without encoding them.
  if (text.length > MAX_FILTER_BYTES || Buffer.byteLength(text, 'utf8') > MAX_FILTER_BYTES) {
    throw BadRequestError.forField('filter', `is longer than the limit of ${MAX_FILTER_BYTES} bytes`);
  }
  let comparisons = 0;
  let depth = 0;
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (char === '"' || char === "'") {
      at = afterQuoted(text, at);
    } else if (char === '(') {
      if (++depth > MAX_FILTER_NESTING) throw BadRequestError.forField('filter', `nests parentheses deeper than the limit of ${MAX_FILTER_NESTING}`);
      at += 1;
    } else if (char === ')') {
      depth = Math.max(0, depth - 1);
      at += 1;
    } else if (char === '=' || char === '!' || char === '<' || char === '>') {
      if (++comparisons > MAX_FILTER_COMPARISONS) throw tooManyComparisons();
      at = afterOperator(text, at);
    } else {
      at += 1;
    }
  }
}

/** Past the quoted value starting at `start`: its closing quote is the first one not escaped by a backslash (as the lexer reads it). */
function afterQuoted(text: string, start: number): number {
  const quote = text[start];
  let end = start;
  for (;;) {
    end = text.indexOf(quote, end + 1);
    // Unclosed: the parser refuses it.
    if (end === -1) return text.length;
    let backslashes = 0;
    while (text[end - 1 - backslashes] === '\\' && end - 1 - backslashes > start) backslashes += 1;
    if (backslashes % 2 === 0) return end + 1;
  }
}

/** Past the comparison operator at `start`: `==`, `!=`, `<=`, `>=`, `<`, `>` or `=word=`. */
function afterOperator(text: string, start: number): number {
  if (text[start] !== '=') return text[start + 1] === '=' ? start + 2 : start + 1;
  if (text[start + 1] === '=') return start + 2;
  let end = start + 1;
  while (end < text.length && text[end] >= 'a' && text[end] <= 'z') end += 1;
  return text[end] === '=' ? end + 1 : start + 1;
}

function resolveComparison(entity: EntityClass<object>, selector: string): Resolved {
  const [first, ...rest] = selector.split('.');
  const link = inverseFiltersOf(entity).find((l) => l.name === first);
  if (!link) return { path: resolveFieldPath(entity, selector, 'filter') };
  if (rest.length === 0) throw BadRequestError.forField('filter', `"${first}" names a collection; name one of its fields (${first}.<field>)`);
  return { link, path: resolveFieldPath(link.source, rest.join('.'), 'filter', selector) };
}

const isLogic = (node: ExpressionNode): node is LogicNode => node.type === 'LOGIC';

/** `$and` or `$or`, whichever spelling the expression used. */
const logicOf = (node: LogicNode): '$and' | '$or' => (node.operator === ';' || node.operator === 'and' ? '$and' : '$or');

/** The comparisons of the expression, left to right (with a stack: a chain of thousands is no deeper than one). */
function comparisonsOf(root: ExpressionNode): ComparisonNode[] {
  const found: ComparisonNode[] = [];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (isLogic(node)) stack.push(node.right, node.left);
    else found.push(node as ComparisonNode);
  }
  return found;
}

type Resolutions = Map<ComparisonNode, Resolved>;

/** For every node, the inverse filter all the comparisons below it go through, if they share one (undefined otherwise). */
type SharedLinks = Map<ExpressionNode, InverseLink | undefined>;

/** Every node's shared inverse filter, children before parents (with a stack). */
function sharedLinks(root: ExpressionNode, resolved: Resolutions): SharedLinks {
  const shared: SharedLinks = new Map();
  const stack = [root];
  while (stack.length) {
    const node = stack[stack.length - 1];
    if (!isLogic(node)) {
      shared.set(node, resolved.get(node as ComparisonNode)!.link);
      stack.pop();
    } else if (shared.has(node.left) && shared.has(node.right)) {
      const left = shared.get(node.left);
      const right = shared.get(node.right);
      shared.set(node, left && right && left.name === right.name ? left : undefined);
      stack.pop();
    } else {
      stack.push(node.right, node.left);
    }
  }
  return shared;
}

interface Translation {
  resolved: Resolutions;
  shared: SharedLinks;
  scope: FilterScope;
}

/**
 * The condition of a node. The largest subtrees whose comparisons all go through one inverse filter
 * become one `EXISTS` each, so that `memberTask.a;memberTask.b` asks for one task meeting both. A chain
 * of one operator becomes one `$and`/`$or` list: only a change of operator (which takes parentheses,
 * bounded by MAX_FILTER_NESTING) or an `EXISTS` adds a level, to this recursion and to the condition.
 */
function translate(node: ExpressionNode, translation: Translation, inside?: InverseLink): Condition {
  const { resolved, shared, scope } = translation;
  if (!inside) {
    const link = shared.get(node);
    if (link) return scope.exists(link, translate(node, translation, link));
  }
  if (isLogic(node)) {
    const operator = logicOf(node);
    return { [operator]: operandsOf(node, operator, inside ? undefined : shared).map((operand) => translate(operand, translation, inside)) };
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

/**
 * The operands of the chain of `operator` at `node`, left to right: its subtrees of the same operator are
 * opened, except (outside an inverse filter, `shared` given) those that become an `EXISTS` of their own.
 */
function operandsOf(node: LogicNode, operator: '$and' | '$or', shared?: SharedLinks): ExpressionNode[] {
  const operands: ExpressionNode[] = [];
  const stack: ExpressionNode[] = [node.right, node.left];
  while (stack.length) {
    const next = stack.pop()!;
    if (isLogic(next) && logicOf(next) === operator && !shared?.get(next)) stack.push(next.right, next.left);
    else operands.push(next);
  }
  return operands;
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
    if (raw.length > MAX_LIKE_CHARACTERS) {
      throw BadRequestError.forField('filter', `the =like= value of "${node.left.selector}" is longer than the limit of ${MAX_LIKE_CHARACTERS} characters`);
    }
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
