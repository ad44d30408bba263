import type { Assistant, DataForm } from '../../entities/index';
import { Assistant as AssistantEntity, DataForm as DataFormEntity } from '../../entities/index';
import type { ResourceRules } from '../../engine/resource-rules';
import { scopedSlugRules, slugFromName, uniqueSlug } from '../../engine/slugs';

const assistantSlugs = scopedSlugRules<Assistant>({ entity: AssistantEntity, source: 'name', scopeField: 'projectId', fallback: 'assistant' });

/**
 * An assistant's slug is unique within its project (-1, -2 suffixes), and (spec "Update/create" rule 9)
 * a rename whose body carries no slug re-derives the slug from the new name, suffixed when taken. A
 * slug the body sends wins over the name, also when the name changes in the same body.
 */
export const assistantRules: ResourceRules<Assistant> = {
  beforeCreate: assistantSlugs.beforeCreate,
  async beforeUpdate(ctx, entity, changes, sent) {
    if (changes.name !== undefined && !Object.hasOwn(sent, 'slug')) {
      const base = slugFromName(changes.name, 'assistant');
      changes.slug = await uniqueSlug(ctx, { entity: AssistantEntity, within: { projectId: entity.projectId }, exceptId: entity.id }, base);
      return;
    }
    await assistantSlugs.beforeUpdate!(ctx, entity, changes, sent);
  },
};

const dataFormSlugs = scopedSlugRules<DataForm>({ entity: DataFormEntity, source: 'name', scopeField: 'organizationId', fallback: 'data-form' });

/** A data form's slug is unique within its organization; `orgSlug` is the organization's slug, set on create. */
export const dataFormRules: ResourceRules<DataForm> = {
  async beforeCreate(ctx, values, sent) {
    const row = (await ctx.em
      .getConnection()
      .execute('select slug from organization where id = ?', [values.organizationId], 'get', ctx.em.getTransactionContext())) as { slug: string } | undefined;
    // An unknown organization is left to the reference check, which answers 400 naming organizationId.
    if (row) values.orgSlug = row.slug;
    await dataFormSlugs.beforeCreate!(ctx, values, sent);
  },
  beforeUpdate: dataFormSlugs.beforeUpdate,
};
