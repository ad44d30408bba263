import type { DefaultOrder } from '../model/resource';
import type { EntityClass, QueryOrderMap } from '@mikro-orm/core';
import { BadRequestError } from '../errors/api-error';
import { unstorableText } from '../model/text';
import { nest, resolveFieldPath } from './field-path';

/** Most terms a sort may hold, and its longest text (UTF-8 bytes, all `sort` parameters together). */
export const MAX_SORT_TERMS = 32;
export const MAX_SORT_BYTES = 1024;

export interface SortTerm {
  path: string;
  direction: 'asc' | 'desc';
}

/**
 * `name:asc;createdOn:desc`; listings that allow it also take the repeated `sort=name,desc` form.
 * The direction defaults to ascending.
 */
export function parseSort(entity: EntityClass<object>, raw: string | string[] | undefined, allowCommaForm: boolean): SortTerm[] {
  const params = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((p) => p.trim() !== '');
  checkSortBytes(params);
  const terms: SortTerm[] = [];
  for (const param of params) {
    // Refused like filter and query: a term holding such text names no field.
    const unstorable = unstorableText(param);
    if (unstorable) throw BadRequestError.forField('sort', unstorable);
    const commaForm = allowCommaForm && !param.includes(':') && !param.includes(';');
    const pieces = commaForm
      ? [
          param
            .split(',')
            .map((s) => s.trim())
            .join(':'),
        ]
      : param.split(';');
    if (terms.length + pieces.length > MAX_SORT_TERMS) throw BadRequestError.forField('sort', `has more than the limit of ${MAX_SORT_TERMS} terms`);
    for (const piece of pieces) terms.push(parseTerm(entity, piece.trim()));
  }
  return terms;
}

/** Refuses a sort text past MAX_SORT_BYTES before any term is read: each term resolves a field path. */
function checkSortBytes(params: string[]): void {
  let bytes = 0;
  for (const param of params) {
    // Each UTF-16 unit is at least one byte: the length alone refuses most oversized texts without encoding them.
    bytes += param.length > MAX_SORT_BYTES ? param.length : Buffer.byteLength(param, 'utf8');
    if (bytes > MAX_SORT_BYTES) throw BadRequestError.forField('sort', `is longer than the limit of ${MAX_SORT_BYTES} bytes`);
  }
}

function parseTerm(entity: EntityClass<object>, term: string): SortTerm {
  const [path, direction = 'asc', ...rest] = term.split(':').map((s) => s.trim());
  if (!path || rest.length) throw BadRequestError.forField('sort', `malformed sort term "${term}"; use field:asc or field:desc`);
  const lower = direction.toLowerCase();
  if (lower !== 'asc' && lower !== 'desc') throw BadRequestError.forField('sort', `direction of "${path}" must be asc or desc`);
  resolveFieldPath(entity, path, 'sort');
  return { path, direction: lower };
}

/** ORM order clauses for the terms (or the default order), ending with the id so that pages never overlap. */
export function toOrderBy(entity: EntityClass<object>, terms: SortTerm[], order: DefaultOrder = 'oldest-first'): QueryOrderMap<object>[] {
  const clauses = terms.map((t) => nest(resolveFieldPath(entity, t.path, 'sort').properties, t.direction) as QueryOrderMap<object>);
  // Both columns in one direction: the (created_on, id) index serves either order.
  const direction = terms.length === 0 && order === 'newest-first' ? 'desc' : 'asc';
  const defaults = terms.length ? [] : [{ createdOn: direction } as QueryOrderMap<object>];
  return [...clauses, ...defaults, { id: direction } as QueryOrderMap<object>];
}
