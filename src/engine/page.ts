import type { SortTerm } from '../query/sort';

/** One page of a listing as the services produce it; the adapters shape it for REST and GraphQL. */
export interface PageResult<T> {
  items: T[];
  totalElements: number;
  /** Zero-based. */
  page: number;
  pageSize: number;
  sort: SortTerm[];
}

export interface PageSummary {
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  numberOfElements: number;
  first: boolean;
  last: boolean;
}

export function summarizePage(result: PageResult<unknown>): PageSummary {
  const totalPages = Math.ceil(result.totalElements / result.pageSize);
  return {
    totalElements: result.totalElements,
    totalPages,
    number: result.page,
    size: result.pageSize,
    numberOfElements: result.items.length,
    first: result.page === 0,
    last: result.page >= totalPages - 1,
  };
}

/** Whether a page is sorted, as the specification's Page answer says it (`sort`). */
export interface SortState {
  empty: boolean;
  sorted: boolean;
  unsorted: boolean;
}

export function sortStateOf(sort: readonly SortTerm[]): SortState {
  const sorted = sort.length > 0;
  return { empty: !sorted, sorted, unsorted: !sorted };
}

/** The paging a page was read with, as the specification's Page answer says it (`pageable`). */
export function pageableOf({ page, pageSize, sort }: Pick<PageResult<unknown>, 'page' | 'pageSize' | 'sort'>) {
  return { offset: page * pageSize, pageNumber: page, pageSize, paged: true, unpaged: false, sort: sortStateOf(sort) };
}
