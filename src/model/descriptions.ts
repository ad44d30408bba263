import type { FieldMeta } from './fields';

/**
 * The texts of the parts GraphQL and OpenAPI generate rather than declare field by field (pages,
 * list arguments, references, request types): written once here, so that both show the same words.
 */

/** The fields of every page, GraphQL's `{Name}Page` and REST's page answer alike. */
export const PAGE_FIELDS = {
  content: 'The rows of this page, in the order of the sort',
  totalElements: 'How many rows match the filter and query, over all pages',
  totalPages: 'How many pages of this size the matching rows fill',
  number: 'Index of this page, 0-based (also on listings whose page argument is 1-based)',
  size: 'The page size asked for (pageSize, or its default)',
  numberOfElements: 'How many rows this page holds',
  first: 'Whether this is the first page',
  last: 'Whether this is the last page (also true when nothing matches)',
} as const;

/** A page type's own text. */
export function pageDescription(listName: string): string {
  return `One page of ${listName}, with the counts of all matching rows`;
}

/** The arguments of every list: GraphQL's list queries and REST's list query parameters. */
export const LIST_ARGUMENTS = {
  page: 'Page index: 0-based, default 0; 1-based, default 1, on the data-forms and assistants listings',
  pageSize: 'Rows per page: default 10, at most 100; default 20, 1-1000 on the data-forms and assistants listings',
  filter:
    "Filter expression: field==value, !=, =like=, =in=(...), >, >=, <, <=, =isnull=true|false; strings single-quoted; combine with and / or (; and , in the RSQL form), e.g. name=='x' and priority>2",
  query: 'Free-text search over the searchable fields (typically name and description)',
  sort: 'field:direction pairs separated by ; (direction asc or desc, default asc)',
} as const;

/** The optimistic-locking token of every update request. */
export const CHANGE_SEQUENCE_TOKEN =
  'Optimistic-locking token: a non-null value that is not the current changeSequence is refused (409 CONFLICT); omit it or send null to skip the check';

/** A reference served as its object (`Project.organization` for `organizationId`). */
export function relationDescription(field: FieldMeta): string {
  return `The ${field.reference!.target().name} that ${field.name} names, as an object, or null`;
}

/** The create and update request types of a resource (GraphQL input types, OpenAPI request schemas). */
export function createRequestDescription(name: string, path: string): string {
  return `The body of create${name} (POST /api/${path}): the fields it may write; those omitted take their defaults`;
}

export function updateRequestDescription(name: string, path: string): string {
  return `The body of update${name} (PUT /api/${path}/{id}): exactly the fields present are written, omitted ones are left unchanged, null clears a nullable field`;
}
