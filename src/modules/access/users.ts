import type { PlatformUser } from '../../entities/platform-user';
import { ForbiddenError } from '../../errors/api-error';
import type { ResourceRules } from '../../engine/resource-rules';

/**
 * Fields only platform administrators change: a user cannot grant themselves roles, reactivate
 * themselves, or take another identity's email (emails identify the bootstrap administrator and
 * bearer-token sign-ins).
 */
const ADMIN_ONLY: (keyof PlatformUser)[] = ['security', 'active', 'email'];

export const userRules: ResourceRules<PlatformUser> = {
  async beforeUpdate(ctx, _user, changes) {
    if (ctx.isAdmin) return;
    const refused = ADMIN_ONLY.filter((field) => field in changes);
    if (refused.length) throw new ForbiddenError(`only platform administrators may change ${refused.join(', ')}`);
  },
};
