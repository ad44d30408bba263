import { BadRequestError } from '../errors/api-error';
import type { Paging } from '../model/resource';

export interface PageRequest {
  /** Zero-based page index, whatever the listing's own convention. */
  page: number;
  pageSize: number;
}

interface PagingRules {
  firstPage: number;
  defaultSize: number;
  maxSize: number;
}

/** General lists are 0-indexed (10 by default, at most 100); the data-forms and assistants listings 1-indexed (20, 1-1000). */
const RULES: Record<Paging, PagingRules> = {
  'zero-based': { firstPage: 0, defaultSize: 10, maxSize: 100 },
  'one-based': { firstPage: 1, defaultSize: 20, maxSize: 1000 },
};

/** The rows a page of such a listing holds when the request names no pageSize. */
export const defaultPageSize = (paging: Paging): number => RULES[paging].defaultSize;

export function parsePaging(paging: Paging, page: unknown, pageSize: unknown): PageRequest {
  const rules = RULES[paging];
  const pageNumber = readInteger('page', page, rules.firstPage, rules.firstPage, 2147483647);
  const size = readInteger('pageSize', pageSize, rules.defaultSize, 1, rules.maxSize);
  return { page: pageNumber - rules.firstPage, pageSize: size };
}

function readInteger(name: string, raw: unknown, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(value)) throw BadRequestError.forField(name, 'must be an integer');
  if (value < min || value > max) throw BadRequestError.forField(name, `must be between ${min} and ${max}`);
  return value;
}
