import { generateApiKey, hashApiKey, keyPrefix } from './api-keys';
import type { AccessToken } from '../../entities/access-token';
import { BadRequestError, ConflictError, ForbiddenError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';

/**
 * An API key belongs to the caller unless an administrator names another user. The plain key exists
 * only in the create answer; the database keeps its SHA-256 and first 8 characters.
 */
export const accessTokenRules: ResourceRules<AccessToken> = {
  async beforeCreate(ctx, values) {
    const caller = ctx.user?.id;
    if (values.userId && values.userId !== caller && !ctx.isAdmin)
      throw new ForbiddenError('only platform administrators may create API keys for another user');
    values.userId ??= caller;
    if (!values.userId) throw BadRequestError.forField('userId', 'is required');
    if (values.expiresAt && values.expiresAt.getTime() <= Date.now()) throw BadRequestError.forField('expiresAt', 'must be in the future');
    // The server's own keys (the bootstrap administrator's) are not a caller minting budget.
    if (ctx.actor.kind === 'user') await assertBelowKeyCap(ctx, values.userId);
    const key = generateApiKey();
    Object.assign(values, { token: key, tokenHash: hashApiKey(key), tokenPrefix: keyPrefix(key) });
  },
};

/**
 * Every key has a rate budget of its own, so keys must not be free: a user holds at most
 * MAX_API_KEYS_PER_USER live (unexpired) keys, whoever creates them. Keys are deleted, not flagged, when
 * revoked. Creates for one user take turns (a transaction lock), so concurrent ones cannot overshoot.
 */
async function assertBelowKeyCap(ctx: RequestContext, userId: string): Promise<void> {
  const max = ctx.services.maxApiKeysPerUser;
  const connection = ctx.em.getConnection();
  const tx = ctx.em.getTransactionContext();
  await connection.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`api-keys:${userId}`], 'all', tx);
  const [row] = await connection.execute<{ live: string }[]>(
    'select count(*) as live from access_token where user_id = ? and (expires_at is null or expires_at > now())',
    [userId],
    'all',
    tx,
  );
  const live = Number(row?.live ?? 0);
  if (live >= max) {
    throw new ConflictError(`the user already holds ${live} live API keys, the limit of MAX_API_KEYS_PER_USER (${max}): delete a key before creating another`);
  }
}
