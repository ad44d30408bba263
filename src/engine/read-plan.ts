import { raw, type EntityClass, type FindOptions } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/postgresql';
import { liveTotalSql } from '../database/live-counts-sql';
import type { InverseLink } from '../model/fields';
import { resolveFieldPath } from '../query/field-path';
import { parseFilter, type FilterScope, type JoinedRows } from '../query/filter';
import { parsePaging, type PageRequest } from '../query/paging';
import { searchCondition } from '../query/search';
import { parseSort, toOrderBy, type SortTerm } from '../query/sort';
import type { RequestContext } from './context';
import { relatedSortValue } from './item-statement';
import type { SortKey } from './keyset';
import type { ResourceWithRules as Resource } from './resource-rules';
import { and, liveRows, memberships, privateRows, readableOrganizations, viewerOf, visibleRows } from './tenancy';
import { tenantKeyOf } from '../model/tenant-keys';
import { assertPublicPaths } from './user-projection';

/** Raw list parameters as they arrive from a query string or GraphQL arguments. */
export interface ListParams {
  page?: unknown;
  pageSize?: unknown;
  filter?: string | null;
  query?: string | null;
  sort?: string | string[] | null;
  /** Only these properties are needed (GraphQL selections); whole rows when absent. */
  columns?: string[];
  /** The parent row of a nested collection (`/api/organizations/{orgId}/secrets`): only its rows. */
  parentId?: string;
  /** Only rows holding these values (one task group's history): equalities the caller cannot change. */
  match?: Record<string, string>;
}

/**
 * A list read, parsed and checked once for its caller: paging, sort, filter (every value of it), search,
 * parent, tenancy and liveness. Every way of answering the read (a page and its count, the nested pages
 * the database writes as JSON, the resolvers' pages per parent, an export's keyset batches) writes its
 * statements from this plan, so none accepts what another refuses, and once a plan exists no statement
 * written from it fails on the caller's arguments.
 */
export interface ReadPlan {
  paging: PageRequest;
  sort: SortTerm[];
  /** The condition, written anew for each statement: the raw fragments of a subquery serve one statement only. */
  where(): Record<string, unknown>;
  /** The order of the rows aliased `alias` in their statement: the sort terms, else the default order, then the id. */
  orderBy(alias: string): FindOptions<object>['orderBy'];
  /** The same order as keys over the row aliased `alias` (an export's keyset). */
  keys(alias: string): SortKey[];
  /** A statement counting the rows (column `count`), counted rows aliased `alias`. */
  count(alias: string): Knex.QueryBuilder | Knex.Raw;
}

/** Raw SQL with `?` placeholders and the values they bind. */
interface BoundSql {
  text: string;
  bindings: unknown[];
}

/** The plan of a list read of `resource` by the caller: a bad argument, or a path they may not read, is refused here (400, 403). */
export async function planRead(ctx: RequestContext, resource: Resource, params: ListParams): Promise<ReadPlan> {
  const { entity } = resource;
  const paging = parsePaging(resource.paging, params.page, params.pageSize);
  const sort = parseSort(entity, params.sort ?? undefined, resource.paging === 'one-based');
  const filter = parseFilter(entity, params.filter ?? undefined);
  assertPublicPaths(ctx, entity, filter?.fields ?? [], sort);
  const fixed = and(
    params.parentId === undefined ? undefined : { [parentField(resource)]: params.parentId.toLowerCase() },
    params.match,
    await visibleRows(ctx, resource),
    liveRows(resource),
    searchCondition(resource.fields, params.query ?? undefined),
  );
  const joined = filter && (await visibleRelatedRows(ctx, filter.relations));
  const scope: FilterScope | undefined = joined && { joined, exists: (link, condition) => existsClause(ctx, joined, link, condition) };
  const where = () => and(fixed, filter?.condition(scope!) as Record<string, unknown> | undefined);
  const related = await relatedSorts(ctx, resource, sort);
  const everyLiveRow = params.parentId === undefined && !params.match && !filter && !params.query?.trim();
  const liveTotal = everyLiveRow ? await keptLiveTotal(ctx, resource) : undefined;
  return {
    where,
    paging,
    sort,
    count: (alias) => liveTotal?.() ?? ctx.em.createQueryBuilder(entity, alias).count().where(where()).getKnexQuery(),
    orderBy: (alias) => orderClauses(resource, sort, related, alias) as FindOptions<object>['orderBy'],
    keys: (alias) => sortKeys(ctx, resource, sort, related, alias),
  };
}

/**
 * When a read is every live row in the caller's reach (no filter, search or parent) of a table whose
 * live rows the database counts per organization (database/live-counts-sql.ts), the statement that sums
 * those counts: a few rows per organization, where a count would read every row. Undefined otherwise,
 * and when the resource's privacy hides some of those rows from the caller.
 */
async function keptLiveTotal(ctx: RequestContext, resource: Resource): Promise<(() => Knex.Raw) | undefined> {
  if (!tenantKeyOf(resource)?.parent || privateRows(ctx, resource)) return undefined;
  const table = ctx.em.getMetadata().get(resource.entity.name).tableName;
  const { text, bindings } = liveTotalSql(table, ctx.isAdmin ? undefined : await readableOrganizations(ctx, resource));
  return () => ctx.em.getKnex().raw(text, bindings);
}

/** The field naming a nested collection's parent row (`organizationId` below `organizations/{orgId}`). */
export function parentField(resource: Resource): string {
  if (!resource.parent) throw new Error(`${resource.path} is not served below a parent`);
  return resource.parent.field;
}

/**
 * An inverse filter's condition (`memberTask.title=='x'`) as one correlated `EXISTS` over the live rows
 * of the referring entity the caller may see: the database answers it on the reference's index, and no
 * referring row is ever loaded. `[::alias::]` is the ORM's placeholder for the filtered row's alias,
 * filled in by each statement that uses the clause (the page and its count).
 */
function existsClause(ctx: RequestContext, joined: JoinedRows, link: InverseLink, condition: Record<string, unknown>): Record<string, unknown> {
  const source = ctx.services.forEntity(link.source)?.resource;
  const correlated = and(condition, { [link.field.name]: raw('[::alias::].id') }, source && liveRows(source), joined(link.source));
  const inner = ctx.em.createQueryBuilder(link.source, 'inv0').select(raw('1')).where(correlated).getKnexQuery().toSQL();
  return { [raw(`exists (${inner.sql})`, [...inner.bindings])]: [] };
}

/** What a filter may look at through each relation it follows: only rows the caller may see. */
async function visibleRelatedRows(ctx: RequestContext, relations: EntityClass<object>[]): Promise<JoinedRows> {
  const allowed = new Map<EntityClass<object>, Record<string, unknown> | undefined>();
  for (const entity of relations) {
    const service = ctx.services.forEntity(entity);
    allowed.set(entity, service ? await visibleRows(ctx, service.resource) : undefined);
  }
  return (entity) => allowed.get(entity);
}

/** A sort term through references, as the value the caller may see for the row aliased `alias`. */
interface RelatedSort {
  value(alias: string): BoundSql;
  /** Whether the value hides related rows from the caller: an order by the ORM's own join would not. */
  hides: boolean;
}

/**
 * Each sort term through references as the related row's value, or null where that row (or one on the
 * way to it) is deleted or not the caller's to see, as filters do: the order reveals nothing of rows
 * they may not read. Written for the alias of the sorted rows in each statement.
 */
async function relatedSorts(ctx: RequestContext, resource: Resource, sort: SortTerm[]): Promise<Map<number, RelatedSort>> {
  const related = new Map<number, RelatedSort>();
  const viewer = viewerOf(ctx);
  const resourceOf = (entity: EntityClass<object>) => ctx.services.forEntity(entity)?.resource;
  const terms = sort.map((term, index) => ({ term, index, ...resolveFieldPath(resource.entity, term.path, 'sort') })).filter((t) => t.relations.length > 0);
  if (terms.length === 0) return related;
  const mine = viewer === 'member' ? await memberships(ctx) : { member: new Set<string>(), owner: new Set<string>() };
  // Bound as array literals: they hold UUIDs only.
  const callerValues: Record<string, unknown> = {
    organizations: `{${[...mine.member].join(',')}}`,
    owned: `{${[...mine.owner].join(',')}}`,
    user: ctx.user?.id ?? null,
  };
  for (const { index, relations, properties } of terms) {
    const hops = relations.map((relation) => ({ property: relation.properties[relation.properties.length - 1], target: relation.target }));
    const path = { hops, property: properties[properties.length - 1] };
    // Administrators see every related row but those private to other users; the server, every row.
    const hides = viewer === 'member' || (viewer === 'admin' && relations.some((relation) => resourceOf(relation.target)?.privacy));
    const value = (alias: string): BoundSql => {
      const bindings: unknown[] = [];
      const written = relatedSortValue(path, { entity: resource.entity, alias }, ctx.em.getMetadata(), resourceOf, viewer);
      const text = written.text.replace(/\{(organizations|owned|user)\}/g, (_, name: string) => {
        bindings.push(callerValues[name]);
        return '?';
      });
      return { text, bindings };
    };
    related.set(index, { value, hides });
  }
  return related;
}

/** The order clauses of the sort terms (then the default order and the id), related values as the caller may see them. */
function orderClauses(resource: Resource, sort: SortTerm[], related: Map<number, RelatedSort>, alias: string): unknown[] {
  const clauses: unknown[] = toOrderBy(resource.entity, sort, resource.order);
  for (const [index, { value, hides }] of related) {
    if (!hides) continue;
    const { text, bindings } = value(alias);
    clauses[index] = { [raw(text, bindings)]: sort[index].direction };
  }
  return clauses;
}

/** The list's order (the sort terms, else the default order, then the id) as keys over the row aliased `alias`. */
function sortKeys(ctx: RequestContext, resource: Resource, sort: SortTerm[], related: Map<number, RelatedSort>, alias: string): SortKey[] {
  const meta = ctx.em.getMetadata().get(resource.entity.name);
  const own = (property: string, direction: 'asc' | 'desc'): SortKey => ({
    text: `"${alias}"."${meta.properties[property].fieldNames[0]}"`,
    bindings: [],
    direction,
    nullable: !!meta.properties[property].nullable,
  });
  const keys: SortKey[] = [];
  for (const [index, term] of sort.entries()) {
    const value = related.get(index)?.value;
    keys.push(
      value
        ? { ...value(alias), direction: term.direction, nullable: true }
        : own(resolveFieldPath(resource.entity, term.path, 'sort').properties[0], term.direction),
    );
  }
  const direction = sort.length === 0 && resource.order === 'newest-first' ? 'desc' : 'asc';
  if (sort.length === 0) keys.push(own('createdOn', direction));
  keys.push(own('id', direction));
  return keys;
}
