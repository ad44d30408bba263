import { fieldsOf, isAnswered, type FieldMeta } from '../model/fields';
import type { Resource } from '../model/resource';
import type { RequestContext } from '../engine/context';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Row = Record<string, unknown>;

/**
 * How many levels of referenced objects a REST answer embeds: `Project.organization` is an object, its
 * own references are ids (and null objects). Deeper graphs are what GraphQL is for.
 */
const EMBED_DEPTH = 1;

/** The JSON of one entity: every declared field (write-only ones excepted), times as ISO text, referenced objects embedded. */
export async function present(ctx: RequestContext, resource: Resource, entity: object): Promise<Json> {
  return (await presentAll(ctx, resource, [entity]))[0];
}

/** The JSON of many entities; each reference of each level is fetched once, in one batched statement. */
export function presentAll(ctx: RequestContext, resource: Resource, entities: object[]): Promise<Json[]> {
  return presentRows(ctx, resource.fields, entities as Row[], EMBED_DEPTH);
}

async function presentRows(ctx: RequestContext, fields: FieldMeta[], rows: Row[], depth: number): Promise<Json[]> {
  const out = rows.map((row) => scalars(row, fields));
  const references = fields.filter((field) => field.reference?.embed);
  await Promise.all(
    references.map(async (field) => {
      const { relation, target } = field.reference!;
      // A row read by its prepared statement arrives with its embedded objects already.
      const missing = depth > 0 ? rows.filter((row) => !(relation in row)).map((row) => row[field.name]) : [];
      const embedded = missing.length ? await embeddedById(ctx, target(), missing, depth - 1) : new Map<string, Json>();
      rows.forEach((row, i) => {
        out[i][relation] = depth === 0 ? null : relation in row ? (row[relation] as Json) : (embedded.get(row[field.name] as string) ?? null);
      });
    }),
  );
  return out;
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
  const presented = await presentRows(ctx, fieldsOf(entity), found, depth);
  return new Map(found.map((row, i) => [row.id as string, presented[i]]));
}

/** The keys of a presented row, in their order: the answered fields, then the embedded objects. */
export function presentedFieldNames(resource: Resource): string[] {
  return [
    ...resource.fields.filter(isAnswered).map((field) => field.name),
    ...resource.fields.filter((field) => field.reference?.embed).map((field) => field.reference!.relation),
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
