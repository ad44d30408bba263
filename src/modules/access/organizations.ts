import { BadRequestError } from '../../errors/api-error';
import { Organization } from '../../entities/organization';
import { fieldsOf } from '../../model/fields';
import { checkValue } from '../../engine/input';
import type { ResourceRules } from '../../engine/resource-rules';
import { slugFromName, uniqueSlug } from '../../engine/slugs';
import { OWNERS_TEAM_SLUG } from '../../engine/tenancy';

export const organizationRules: ResourceRules<Organization> = {
  /**
   * An organization's slug is unique across the platform: a slug the caller sends must be free (409
   * otherwise), a slug derived from the name takes the first free numeric suffix.
   */
  async beforeCreate(ctx, values) {
    if (values.slug !== undefined && values.slug !== '') return;
    const derived = await uniqueSlug(ctx, { entity: Organization, within: {} }, slugFromName(values.name, 'organization'));
    const checked = checkValue(
      fieldsOf(Organization).find((f) => f.name === 'slug')!,
      derived,
    );
    if ('issue' in checked) throw BadRequestError.forField('slug', `derived from the name as "${derived}", which ${checked.issue}; send a slug`);
    values.slug = derived;
  },

  /** Every organization starts with its `owners` team; the creator is its first member. */
  async afterCreate(ctx, organization) {
    const system = ctx.asSystem();
    const team = await ctx.services.resource('teams').create(system, {
      name: 'Owners',
      slug: OWNERS_TEAM_SLUG,
      description: 'Manage the organization, its teams and members',
      organizationId: organization.id,
    });
    if (ctx.user) await ctx.services.resource('team-members').create(system, { teamId: team.id, userId: ctx.user.id });
  },
};
