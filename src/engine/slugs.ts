import type { EntityClass } from '@mikro-orm/core';
import { slugify } from '../model/naming';
import type { ResourceRules } from './resource-rules';
import type { RequestContext } from './context';

export interface SlugScope {
  entity: EntityClass<object>;
  /** Column values the slug must be unique within, e.g. `{ organizationId }`. */
  within: Record<string, unknown>;
  /** The row being renamed, whose own slug does not collide with itself. */
  exceptId?: string;
}

/** Longest slug stored; suffixes are made to fit inside it. */
export const SLUG_MAX_LENGTH = 100;

/**
 * The first free slug among `base`, `base-1`, `base-2`, ... within the scope, each at most
 * SLUG_MAX_LENGTH characters (the base is shortened to make room for the suffix). Deleted rows keep
 * their slugs. A transaction-scoped advisory lock makes concurrent writers in one scope take turns.
 */
export async function uniqueSlug(ctx: RequestContext, scope: SlugScope, base: string): Promise<string> {
  const lockKey = `${scope.entity.name}:${JSON.stringify(scope.within)}`;
  await ctx.em.getConnection().execute('select pg_advisory_xact_lock(hashtext(?))', [lockKey], 'all', ctx.em.getTransactionContext());
  const stem = base.slice(0, SLUG_MAX_LENGTH - 8);
  const rows = (await ctx.em.find(scope.entity, { ...scope.within, slug: { $like: `${stem.replace(/[\\%_]/g, '\\$&')}%` } } as never, {
    fields: ['id', 'slug'] as never,
  })) as { id: string; slug: string }[];
  const taken = new Set(rows.filter((r) => r.id !== scope.exceptId).map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let suffix = 1; ; suffix += 1) {
    const candidate = withSuffix(base, suffix);
    if (!taken.has(candidate)) return candidate;
  }
}

function withSuffix(base: string, suffix: number): string {
  const tail = `-${suffix}`;
  return `${base.slice(0, SLUG_MAX_LENGTH - tail.length).replace(/-+$/, '')}${tail}`;
}

/** The slug a name gives (at most SLUG_MAX_LENGTH characters), or `fallback` when the name has no usable characters. */
export function slugFromName(name: unknown, fallback: string): string {
  const slug = typeof name === 'string' ? slugify(name).slice(0, SLUG_MAX_LENGTH).replace(/-+$/, '') : '';
  return slug || fallback;
}

export interface ScopedSlugOptions {
  entity: EntityClass<object>;
  /** The field a missing slug is derived from. */
  source: string;
  /** The field naming the scope the slug is unique within. */
  scopeField: string;
  /** Extra conditions on the rows that count, e.g. only live ones. */
  among?: Record<string, unknown>;
  fallback: string;
}

type SlugRow = { id: string; slug: string } & Record<string, unknown>;

/**
 * Rules for a slug unique within a scope: on create (slug sent or derived from `source`) and on rename,
 * a colliding slug gets the first free numeric suffix; re-saving under its own slug changes nothing.
 */
export function scopedSlugRules<T extends object>(options: ScopedSlugOptions): ResourceRules<T> {
  const within = (row: Record<string, unknown>) => ({ [options.scopeField]: row[options.scopeField], ...options.among });
  return {
    async beforeCreate(ctx, values) {
      const row = values as Record<string, unknown>;
      const base = (row.slug as string) || slugFromName(row[options.source], options.fallback);
      row.slug = await uniqueSlug(ctx, { entity: options.entity, within: within(row) }, base);
    },
    async beforeUpdate(ctx, entity, changes) {
      const row = entity as unknown as SlugRow;
      const changed = changes as Record<string, unknown>;
      if (changed.slug === undefined) return;
      const base = (changed.slug as string) || slugFromName(changed[options.source] ?? row[options.source], options.fallback);
      changed.slug = await uniqueSlug(ctx, { entity: options.entity, within: within(row), exceptId: row.id }, base);
    },
  };
}
