import type { EntityClass } from '@mikro-orm/core';
import type { RequestContext } from '../engine/context';
import { writableAsJson, type JsonPage, type JsonPageEntry, type JsonRow, type JsonRowEntry } from '../engine/json-pages';
import type { ListParams } from '../engine/read-plan';
import { EMBEDDED_COLLECTION_MAX, embeddedCollectionsOf, fieldsOf, isAnswered } from '../model/fields';
import type { Resource } from '../model/resource';
import { pageBody } from './page';
import { present, presentAll } from './present';

/**
 * REST answers as the database writes them (engine/json-pages.ts): the shape of a presented row (every
 * answered field, then each embedded reference with its own fields and its own references null, as
 * present.ts writes it) and of the specification's Page answer around it. A resource whose answer holds
 * a value the database does not store (a new key's token) has no shape: present.ts answers it.
 */
const rows = new WeakMap<Resource, JsonRow | null>();

/** A row as REST answers it: its JSON text, and the id and version its ETag names. */
export interface RowAnswer {
  json: string;
  id: string;
  changeSequence: number;
}

/**
 * `GET /api/{path}/{id}`: the row the database writes, or (below a parent, or where the database cannot
 * write every value) the row read and presented here; refused alike (400, 404, 403).
 */
export async function rowAnswer(ctx: RequestContext, resource: Resource, id: string, parentId: string | undefined): Promise<RowAnswer> {
  const service = ctx.services.resource(resource.path);
  const shape = parentId === undefined ? presentedRow(ctx, resource) : undefined;
  const written = shape && (await service.versionedItemAsJson(ctx, id, shape));
  if (written) return written;
  const row = await service.get(ctx, id, parentId);
  return { json: JSON.stringify(await present(ctx, resource, row)), id: row.id, changeSequence: row.changeSequence };
}

/** `GET /api/{path}`: the Page answer the database writes, or the page read and presented here. */
export async function pageAnswer(ctx: RequestContext, resource: Resource, params: ListParams): Promise<string> {
  const service = ctx.services.resource(resource.path);
  const shape = presentedPage(ctx, resource, params);
  const written = shape && (await service.pageAsJson(ctx, shape, { kind: 'rest', params }));
  if (written !== undefined) return written;
  const result = await service.list(ctx, params);
  return JSON.stringify(pageBody(result, await presentAll(ctx, resource, result.items)));
}

/** The presented row of `resource` as a shape, or undefined when the database cannot write it. */
function presentedRow(ctx: RequestContext, resource: Resource): JsonRow | undefined {
  let row = rows.get(resource);
  if (row === undefined) {
    row = rowOf(ctx, resource.entity, 'answered') ?? null;
    rows.set(resource, row);
  }
  return row ?? undefined;
}

/** The keys of the Page answer, in its order (rest/page.ts). */
const PAGE_SUMMARY = ['totalElements', 'totalPages', 'number', 'size', 'numberOfElements', 'first', 'last', 'pageable', 'sort'] as const;

/**
 * A list request's Page answer as a shape, or undefined when the database cannot write its rows, or its
 * rows embed references: many rows may embed one row, which present.ts reads and measures once, where
 * the database would write it again for each row that embeds it.
 */
function presentedPage(ctx: RequestContext, resource: Resource, params: ListParams): JsonPage | undefined {
  const content = presentedRow(ctx, resource);
  if (!content || content.entries.some((entry) => 'reference' in entry)) return undefined;
  const entries: JsonPageEntry[] = [{ key: 'content', content }, ...PAGE_SUMMARY.map((summary) => ({ key: summary, summary }))];
  return { params, entries };
}

/**
 * Where a row stands in a REST answer (present.ts): the answered row embeds its references' objects;
 * an embedded object has its references null; both carry their embedded collections, whose rows have
 * their references and collections null.
 */
type Level = 'answered' | 'embedded' | 'collection';

/** The fields of a row of `entity` at `level`, with its embedded references and collections or nulls in their place. */
function rowOf(ctx: RequestContext, entity: EntityClass<object>, level: Level): JsonRow | undefined {
  const fields = fieldsOf(entity);
  const answered = fields.filter(isAnswered);
  if (!answered.every(writableAsJson)) return undefined;
  const entries: JsonRowEntry[] = answered.map((field) => ({ key: field.name, field: field.name }));
  for (const field of fields.filter((f) => f.reference?.embed)) {
    const { relation, target } = field.reference!;
    if (level !== 'answered') {
      entries.push({ key: relation, nothing: true });
      continue;
    }
    const resource = ctx.services.forEntity(target())?.resource;
    const row = resource && rowOf(ctx, target(), 'embedded');
    if (!row) return undefined;
    entries.push({ key: relation, reference: { path: resource.path, foreignKey: field.name, row } });
  }
  for (const collection of embeddedCollectionsOf(entity)) {
    if (level === 'collection') {
      entries.push({ key: collection.name, nothing: true });
      continue;
    }
    const resource = ctx.services.forEntity(collection.source)?.resource;
    const row = resource && rowOf(ctx, collection.source, 'collection');
    if (!row) return undefined;
    const page = { params: { pageSize: EMBEDDED_COLLECTION_MAX }, bare: true, entries: [{ key: 'content', content: row }] };
    entries.push({ key: collection.name, children: { path: resource.path, foreignKey: collection.field.name, page } });
  }
  return { entries };
}
