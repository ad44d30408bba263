import { pageableOf, sortStateOf, summarizePage, type PageResult } from '../engine/page';
import type { Json } from './present';

/** The specification's Page answer, `pageable` and `sort` objects included. */
export function pageBody(result: PageResult<unknown>, content: Json[]): Record<string, unknown> {
  return { content, ...summarizePage(result), pageable: pageableOf(result), sort: sortStateOf(result.sort) };
}
