import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { visit } from 'jsonc-parser';
import { BadRequestError } from '../errors/api-error';
import { BODY_LIMIT, requireJsonContent } from '../http/request-body';

/** A route's JSON body: its media type checked, its bytes read up to `limit` (413 beyond), then parsed strictly (`jsonBody`). */
export function readJsonBody(limit: string = BODY_LIMIT): RequestHandler[] {
  return [requireJsonContent(), express.raw({ type: () => true, limit }), jsonBody];
}

/** Deepest nesting of arrays and objects accepted in a body. */
export const MAX_JSON_DEPTH = 64;

/**
 * Parses the raw request body as strict JSON and refuses a body that repeats a field, exactly or in
 * another letter case (`name` and `Name`), or any object that repeats a key exactly: JSON.parse alone
 * would silently keep the last one. Keys of nested free-form objects may differ in case only.
 */
export function jsonBody(req: Request, _res: Response, next: NextFunction): void {
  const raw: unknown = req.body;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  if (text.trim() === '') {
    req.body = undefined;
    return next();
  }
  if (nestingDepth(text) > MAX_JSON_DEPTH) return next(new BadRequestError(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
  try {
    req.body = JSON.parse(text);
  } catch (error) {
    return next(new BadRequestError(`request body is not valid JSON: ${(error as Error).message}`));
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate) return next(BadRequestError.forField(duplicate.path, `repeats the key "${duplicate.key}" (field names are compared without regard to case)`));
  next();
}

/** How deep brackets nest in a text: every bracket, and value brackets (see `nestingOf`). */
export interface Nesting {
  depth: number;
  valueDepth: number;
}

/** The deepest nesting of brackets outside strings, counted without recursion. */
function nestingDepth(text: string): number {
  return nestingOf(text).depth;
}

/**
 * The one measure of nesting, for JSON bodies and GraphQL documents alike, in a single pass without
 * recursion: `depth` counts every `{ [ (` outside strings and comments; `valueDepth` only the `{ [`
 * opened inside parentheses, which in a GraphQL document are the literal values of arguments and
 * variable defaults (selection sets never stand inside parentheses). Valid JSON has no comments, block
 * strings or parentheses, so its `depth` is that of its objects and arrays.
 */
export function nestingOf(text: string): Nesting {
  // Per open bracket: 0 plain, 1 a value level, 2 a parenthesis.
  const open: number[] = [];
  let depth = 0;
  let deepestValue = 0;
  let values = 0;
  let parentheses = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      if (text.startsWith('"""', i)) {
        // A GraphQL block string: only \""" escapes its end.
        for (i += 3; i < text.length && !text.startsWith('"""', i); i++) if (text.startsWith('\\"""', i)) i += 3;
        i += 2;
      } else {
        for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92 /* \\ */) i++;
      }
    } else if (c === 35 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
    } else if (c === 123 || c === 91 || c === 40 /* { [ ( */) {
      const kind = c === 40 ? 2 : parentheses > 0 ? 1 : 0;
      open.push(kind);
      depth = Math.max(depth, open.length);
      if (kind === 2) parentheses++;
      if (kind === 1) deepestValue = Math.max(deepestValue, ++values);
    } else if ((c === 125 || c === 93 || c === 41) /* } ] ) */ && open.length) {
      const kind = open.pop();
      if (kind === 2) parentheses--;
      if (kind === 1) values--;
    }
  }
  return { depth, valueDepth: deepestValue };
}

/**
 * How deep objects and arrays nest in a parsed JSON value (a scalar: 0), counted as `nestingDepth` counts
 * them in its text, without recursion; the walk stops once the depth passes `stopAbove`.
 */
export function valueDepth(value: unknown, stopAbove = Infinity): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length) {
    const [current, level] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (level > deepest && (deepest = level) > stopAbove) break;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push([child, level + 1]);
    }
  }
  return deepest;
}

function findDuplicateKey(text: string): { key: string; path: string } | undefined {
  const open: Set<string>[] = [];
  let found: { key: string; path: string } | undefined;
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (property, _offset, _length, _line, _column, pathSupplier) => {
      const keys = open[open.length - 1];
      const folded = open.length === 1 ? property.toLowerCase() : property;
      if (!found && keys.has(folded)) found = { key: property, path: [...pathSupplier(), property].join('.') };
      keys.add(folded);
    },
  });
  return found;
}
