import type { OrganizationSecret } from '../../entities/organization-secret';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';

/** The sealed form of a written value; the plain one never reaches the database or an answer. */
function seal(ctx: RequestContext, values: Partial<OrganizationSecret>): void {
  if (typeof values.value !== 'string') return;
  if (!ctx.services.secrets) throw new Error('organization secrets need a secrets key (SECRETS_KEY)');
  values.sealedValue = ctx.services.secrets.seal(values.value);
  delete values.value;
}

/** A secret's value is stored encrypted (SECRETS_KEY) and is never returned. */
export const organizationSecretRules: ResourceRules<OrganizationSecret> = {
  async beforeCreate(ctx, values) {
    seal(ctx, values);
  },
  async beforeUpdate(ctx, _entity, changes) {
    seal(ctx, changes);
  },
};
