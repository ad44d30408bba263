import type { EntityClass } from '@mikro-orm/core';
import { EMBEDDED_COLLECTION_MAX, embeddedCollectionsOf, fieldsOf, isAnswered, type FieldMeta } from '../model/fields';
import type { Resource } from '../model/resource';
import type { RequestContext } from '../engine/context';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Row = Record<string, unknown>;

/**
 * How many levels of referenced objects a REST answer embeds: `Project.organization` is an object, its
 * own references are ids (and null objects). Deeper graphs are what GraphQL is for. Embedded
 * collections (`Project.documentStatuses`) are arrays on every answered row and embedded object; the
 * rows in them carry ids, their references and collections null.
 */
const EMBED_DEPTH = 1;

/** The depth of the rows of an embedded collection: no references, no collections. */
const IN_COLLECTION = -1;

/** The JSON of one entity: every declared field (write-only ones excepted), times as ISO text, referenced objects embedded. */
export async function present(ctx: RequestContext, resource: Resource, entity: object): Promise<Json> {
  return (await presentAll(ctx, resource, [entity]))[0];
}

/** The JSON of many entities; each reference of each level is fetched once, in one batched statement. */
export function presentAll(ctx: RequestContext, resource: Resource, entities: object[]): Promise<Json[]> {
  return presentRows(ctx, resource.entity, entities as Row[], EMBED_DEPTH);
}

async function presentRows(ctx: RequestContext, entity: EntityClass<object>, rows: Row[], depth: number): Promise<Json[]> {
  const fields = fieldsOf(entity);
  const out = rows.map((row) => scalars(row, fields));
  const references = fields.filter((field) => field.reference?.embed);
  await Promise.all([
    ...references.map(async (field) => {
      const { relation, target } = field.reference!;
      // A row read by its prepared statement arrives with its embedded objects already.
      const missing = depth > 0 ? rows.filter((row) => !(relation in row)).map((row) => row[field.name]) : [];
      const embedded = missing.length ? await embeddedById(ctx, target(), missing, depth - 1) : new Map<string, Json>();
      rows.forEach((row, i) => {
        out[i][relation] = depth <= 0 ? null : relation in row ? (row[relation] as Json) : (embedded.get(row[field.name] as string) ?? null);
      });
    }),
    ...embeddedCollectionsOf(entity).map(async (collection) => {
      // A row read by its prepared statement arrives with its embedded collections already.
      const missing = depth === IN_COLLECTION ? [] : rows.filter((row) => !(collection.name in row));
      const embedded = missing.length ? await collectionRows(ctx, collection.source, collection.field.name, missing) : new Map<string, Json[]>();
      rows.forEach((row, i) => {
        if (depth === IN_COLLECTION) out[i][collection.name] = null;
        else out[i][collection.name] = collection.name in row ? (row[collection.name] as Json) : (embedded.get(row.id as string) ?? []);
      });
    }),
  ]);
  return out;
}

/**
 * The rows of `source` naming each of `rows` in `foreignKey` (as its list would show them to the caller,
 * oldest first, at most EMBEDDED_COLLECTION_MAX per row), presented, by the id they name: one batched
 * statement for every row of the level.
 */
async function collectionRows(ctx: RequestContext, source: EntityClass<object>, foreignKey: string, rows: Row[]): Promise<Map<string, Json[]>> {
  const ids = [...new Set(rows.map((row) => row.id).filter((id): id is string => typeof id === 'string'))];
  const service = ctx.services.forEntity(source);
  if (!service || ids.length === 0) return new Map();
  const pages = await ctx.loaders.children(service, foreignKey, { pageSize: EMBEDDED_COLLECTION_MAX }).loadMany(ids);
  const failed = pages.find((page) => page instanceof Error);
  if (failed) throw failed;
  const byParent = new Map<string, Json[]>();
  await Promise.all(
    ids.map(async (id, i) => {
      const page = pages[i] as { items: object[] };
      byParent.set(id, await presentRows(ctx, source, page.items as Row[], IN_COLLECTION));
    }),
  );
  return byParent;
}

/** The referenced rows (visible to the caller), presented, by id. */
async function embeddedById(ctx: RequestContext, entity: Parameters<typeof fieldsOf>[0], values: unknown[], depth: number): Promise<Map<string, Json>> {
  const ids = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  if (ids.length === 0) return new Map();
  const loaded = await ctx.loaders.byId(entity as never).loadMany(ids);
  // A read that failed (the request's budget spent, the database gone) fails the answer, never empties a reference.
  const failed = loaded.find((row) => row instanceof Error);
  if (failed) throw failed;
  const found = loaded.filter((row): row is Row => row !== null);
  const presented = await presentRows(ctx, entity as EntityClass<object>, found, depth);
  return new Map(found.map((row, i) => [row.id as string, presented[i]]));
}

/** The keys of a presented row, in their order: the answered fields, then the embedded objects, then the embedded collections. */
export function presentedFieldNames(resource: Resource): string[] {
  return [
    ...resource.fields.filter(isAnswered).map((field) => field.name),
    ...resource.fields.filter((field) => field.reference?.embed).map((field) => field.reference!.relation),
    ...embeddedCollectionsOf(resource.entity).map((collection) => collection.name),
  ];
}

function scalars(row: Row, fields: FieldMeta[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const field of fields) {
    if (!isAnswered(field)) continue;
    const value = row[field.name];
    out[field.name] = value === undefined || value === null ? null : value instanceof Date ? value.toISOString() : (value as Json);
  }
  return out;
}
