import { BadRequestError } from '../errors/api-error';
import type { Organization } from '../entities/organization';
import { Organization as OrganizationEntity } from '../entities/organization';
import { fieldsOf } from '../model/fields';
import { checkValue } from './input';
import type { ResourceRules } from './resource-rules';
import { slugFromName, uniqueSlug } from './slugs';

/**
 * An organization's slug is unique across the platform: a slug the caller sends must be free (409
 * otherwise), a slug derived from the name takes the first free numeric suffix.
 */
export const organizationRules: ResourceRules<Organization> = {
  async beforeCreate(ctx, values) {
    if (values.slug !== undefined && values.slug !== '') return;
    const derived = await uniqueSlug(ctx, { entity: OrganizationEntity, within: {} }, slugFromName(values.name, 'organization'));
    const checked = checkValue(fieldsOf(OrganizationEntity).find((f) => f.name === 'slug')!, derived);
    if ('issue' in checked) throw BadRequestError.forField('slug', `derived from the name as "${derived}", which ${checked.issue}; send a slug`);
    values.slug = derived;
  },
};
