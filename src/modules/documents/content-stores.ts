import type { EntityClass } from '@mikro-orm/core';
import type { DocumentFamily } from '../../entities/index';
import type { ContentMetadata, ContentStoreEntity } from '../../entities/content-store';
import type { ResourceRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';

const KEYS = ['indexed', 'documentProperties', 'labelExpressions'] as const;

/**
 * The values a write leaves in the three flat columns, from what the body sent and what the row holds
 * (`base`: the current row on update, the defaults on create):
 * - a key sent flat (`indexed`, `documentProperties`, `labelExpressions`) takes that value;
 * - otherwise a key present in a sent `contentMetadata` takes the nested value;
 * - otherwise the key keeps `base`'s value.
 * So when a body sends both forms, the flat keys win for the keys they carry, and `contentMetadata`
 * only fills in the others. Other keys of `contentMetadata`, and nested values of the wrong type, were
 * refused with the body (its declared shape is closed). `contentMetadata` is then rebuilt from the
 * three results, so the stored object and the flat columns always hold the same values.
 */
export function syncedContentMetadata(sent: Record<string, unknown>, base: Record<string, unknown>): ContentMetadata {
  const nested = sent.contentMetadata as Record<string, unknown> | undefined;
  const result: Record<string, unknown> = {};
  for (const key of KEYS) {
    if (Object.hasOwn(sent, key)) result[key] = sent[key];
    else if (nested && Object.hasOwn(nested, key)) result[key] = nested[key];
    else result[key] = base[key];
  }
  return result as unknown as ContentMetadata;
}

/**
 * A document or data store's rules: its slug unique within the organization, and `contentMetadata`
 * kept in step with the flat `indexed`, `documentProperties` and `labelExpressions` (see
 * syncedContentMetadata for which form wins).
 */
export function contentStoreRules<T extends ContentStoreEntity>(entity: EntityClass<T>, fallback: string): ResourceRules<T> {
  const slugs = scopedSlugRules<T>({ entity, source: 'name', scopeField: 'organizationId', fallback });
  return {
    async beforeCreate(ctx, values, sent) {
      const row = values as Record<string, unknown>;
      const synced = syncedContentMetadata(sent as Record<string, unknown>, row);
      Object.assign(row, synced, { contentMetadata: synced });
      await slugs.beforeCreate!(ctx, values, sent);
    },
    async beforeUpdate(ctx, entity, changes, sent) {
      const body = sent as Record<string, unknown>;
      if (body.contentMetadata !== undefined || KEYS.some((key) => Object.hasOwn(body, key))) {
        const synced = syncedContentMetadata(body, entity as unknown as Record<string, unknown>);
        // Everything is put in `changes`; the service drops what equals the stored values.
        Object.assign(changes as Record<string, unknown>, synced, { contentMetadata: synced });
      }
      await slugs.beforeUpdate!(ctx, entity, changes, sent);
    },
  };
}

/** A family's `storeRef`, `<organization slug>/<store slug>`, fixed at create (its store never changes). */
export const documentFamilyRules: ResourceRules<DocumentFamily> = {
  async beforeCreate(ctx, values) {
    const row = (await ctx.em
      .getConnection()
      .execute(
        'select o.slug as organization, s.slug as store from document_store s join organization o on o.id = s.organization_id where s.id = ?',
        [values.documentStoreId],
        'get',
        ctx.em.getTransactionContext(),
      )) as { organization: string; store: string } | undefined;
    // An unknown store is left to the reference check, which answers 400 naming documentStoreId.
    if (row) values.storeRef = `${row.organization}/${row.store}`;
  },
};
