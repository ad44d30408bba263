import type { NextFunction, Request, Response } from 'express';
import { visit } from 'jsonc-parser';
import { BadRequestError } from '../errors/api-error';

/** Largest request body accepted, in bytes. */
export const BODY_LIMIT = '1mb';
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

/** The deepest nesting of brackets outside strings, counted without recursion. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) deepest = Math.max(deepest, ++depth);
    else if (c === 125 || c === 93 /* } ] */) depth--;
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
