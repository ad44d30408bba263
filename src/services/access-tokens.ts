import { generateApiKey, hashApiKey, keyPrefix } from '../auth/api-keys';
import type { AccessToken } from '../entities/access-token';
import { BadRequestError, ForbiddenError } from '../errors/api-error';
import type { ResourceRules } from './resource-rules';

/**
 * An API key belongs to the caller unless an administrator names another user. The plain key exists
 * only in the create answer; the database keeps its SHA-256 and first 8 characters.
 */
export const accessTokenRules: ResourceRules<AccessToken> = {
  async beforeCreate(ctx, values) {
    const caller = ctx.user?.id;
    if (values.userId && values.userId !== caller && !ctx.isAdmin) throw new ForbiddenError('only platform administrators may create API keys for another user');
    values.userId ??= caller;
    if (!values.userId) throw BadRequestError.forField('userId', 'is required');
    if (values.expiresAt && values.expiresAt.getTime() <= Date.now()) throw BadRequestError.forField('expiresAt', 'must be in the future');
    const key = generateApiKey();
    Object.assign(values, { token: key, tokenHash: hashApiKey(key), tokenPrefix: keyPrefix(key) });
  },
};
