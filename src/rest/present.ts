import { fieldsOf, type FieldMeta } from '../model/fields';
import type { Resource } from '../model/resource';
import type { RequestContext } from '../services/context';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * How many levels of referenced objects a REST answer embeds: `Project.organization` is an object, its
 * own references are ids (and null objects). Deeper graphs are what GraphQL is for.
 */
const EMBED_DEPTH = 1;

/** The JSON of one entity: every declared field, dates as ISO text, referenced objects embedded. */
export function present(ctx: RequestContext, resource: Resource, entity: object): Promise<Json> {
  return presentEntity(ctx, entity, resource.fields, EMBED_DEPTH);
}

export function presentAll(ctx: RequestContext, resource: Resource, entities: object[]): Promise<Json[]> {
  // Issued together so that each relation of each level is fetched in one batched statement.
  return Promise.all(entities.map((entity) => present(ctx, resource, entity)));
}

async function presentEntity(ctx: RequestContext, entity: object, fields: FieldMeta[], depth: number): Promise<Json> {
  const row = entity as Record<string, unknown>;
  const out: Record<string, Json> = {};
  for (const field of fields) out[field.name] = toJson(row[field.name]);
  await Promise.all(
    fields
      .filter((field) => field.reference?.embed)
      .map(async (field) => {
        const reference = field.reference!;
        const id = row[field.name];
        const target = depth > 0 && typeof id === 'string' ? await ctx.loaders.byId(reference.target()).load(id) : null;
        out[reference.relation] = target ? await presentEntity(ctx, target, fieldsOf(reference.target()), depth - 1) : null;
      }),
  );
  return out;
}

function toJson(value: unknown): Json {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  return value as Json;
}
