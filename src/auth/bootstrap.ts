import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccessToken } from '../entities/access-token';
import { PLATFORM_ADMIN, PlatformUser } from '../entities/platform-user';
import { logger } from '../logging/logger';
import { resources } from '../catalog/registry';
import { RequestContext } from '../engine/context';
import { Services } from '../engine/services';
import { modules } from '../modules';
import { generateApiKey, hashApiKey, keyPrefix } from '../modules/access/api-keys';

export const BOOTSTRAP_ADMIN_EMAIL = 'admin@localhost';

/**
 * Makes sure someone can call the API: with BOOTSTRAP_API_KEY, the administrator `admin@localhost`
 * exists and that string is one of its keys; on an empty database without it, a key is generated and
 * printed once.
 */
export async function bootstrapAdministrator(orm: MikroORM, configuredKey: string | undefined): Promise<void> {
  const system = new RequestContext(orm.em.fork() as EntityManager, { kind: 'system' }, new Services(resources, modules));
  await system.transaction(async (tx) => {
    // Servers starting at once on one database take turns: the later one finds the administrator made.
    await tx.em.getConnection().execute(`select pg_advisory_xact_lock(hashtext('platform-bootstrap-administrator'))`, [], 'all', tx.em.getTransactionContext());
    if (!configuredKey && (await tx.em.count(PlatformUser, {})) > 0) return;
    const admin = await ensureAdministrator(tx);
    const key = configuredKey ?? generateApiKey();
    await ensureApiKey(tx, admin.id, key);
    if (!configuredKey) {
      // Printed once, on the first start of an empty database; only its hash is stored.
      process.stdout.write(`\nAdministrator ${BOOTSTRAP_ADMIN_EMAIL} created. API key (shown once):\n  ${key}\n\n`);
    }
    logger.info({ email: BOOTSTRAP_ADMIN_EMAIL }, 'bootstrap administrator ready');
  });
}

/** admin@localhost, active and holding the PLATFORM_ADMIN role. */
async function ensureAdministrator(tx: RequestContext): Promise<PlatformUser> {
  const users = tx.services.resource('users');
  const existing = await tx.em.findOne(PlatformUser, { email: BOOTSTRAP_ADMIN_EMAIL });
  if (!existing) {
    return (await users.create(tx, {
      email: BOOTSTRAP_ADMIN_EMAIL,
      firstName: 'Platform',
      lastName: 'Administrator',
      security: { roles: [PLATFORM_ADMIN] },
    })) as PlatformUser;
  }
  const roles = [...new Set([...(existing.security?.roles ?? []), PLATFORM_ADMIN])];
  return (await users.update(tx, existing.id, { active: true, security: { ...existing.security, roles } })) as PlatformUser;
}

/** The key is stored like any other (only its hash); the configured text replaces the generated one. */
async function ensureApiKey(tx: RequestContext, userId: string, key: string): Promise<void> {
  if ((await tx.em.count(AccessToken, { tokenHash: hashApiKey(key) })) > 0) return;
  const created = await tx.services.resource('access-tokens').create(tx, { name: 'bootstrap', userId });
  await tx.em.nativeUpdate(AccessToken, { id: created.id }, { tokenHash: hashApiKey(key), tokenPrefix: keyPrefix(key) });
}
