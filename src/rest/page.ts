import { summarizePage, type PageResult } from '../engine/page';
import type { Json } from './present';

/** The specification's Page answer, `pageable` and `sort` objects included. */
export function pageBody(result: PageResult<unknown>, content: Json[]): Record<string, unknown> {
  const summary = summarizePage(result);
  const sorted = result.sort.length > 0;
  const sort = { empty: !sorted, sorted, unsorted: !sorted };
  return {
    content,
    ...summary,
    pageable: {
      offset: result.page * result.pageSize,
      pageNumber: result.page,
      pageSize: result.pageSize,
      paged: true,
      unpaged: false,
      sort,
    },
    sort,
  };
}
