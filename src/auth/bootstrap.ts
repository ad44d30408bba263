import type { MikroORM } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { AccessToken } from '../entities/access-token';
import { PLATFORM_ADMIN, PlatformUser } from '../entities/platform-user';
import { fieldsOf, implicitDefault } from '../model/fields';
import { logger } from '../http/logger';
import { generateApiKey, hashApiKey, keyPrefix } from './api-keys';

export const BOOTSTRAP_ADMIN_EMAIL = 'admin@localhost';

/**
 * Makes sure someone can call the API: with BOOTSTRAP_API_KEY, the administrator `admin@localhost`
 * exists and that string is one of its keys; on an empty database without it, a key is generated and
 * printed once.
 */
export async function bootstrapAdministrator(orm: MikroORM, configuredKey: string | undefined): Promise<void> {
  const em = orm.em.fork();
  await em.transactional(async (tx) => {
    if (!configuredKey && (await tx.count(PlatformUser, {})) > 0) return;
    const admin = (await tx.findOne(PlatformUser, { email: BOOTSTRAP_ADMIN_EMAIL })) ?? createAdmin(tx.create.bind(tx));
    admin.active = true;
    admin.security = { ...admin.security, roles: [...new Set([...(admin.security?.roles ?? []), PLATFORM_ADMIN])] };
    const key = configuredKey ?? generateApiKey();
    if (!(await tx.findOne(AccessToken, { tokenHash: hashApiKey(key) }))) {
      tx.create(AccessToken, { ...stamp(), name: 'bootstrap', userId: admin.id, tokenHash: hashApiKey(key), tokenPrefix: keyPrefix(key) });
    }
    if (!configuredKey) {
      // Printed once, on the first start of an empty database; only its hash is stored.
      process.stdout.write(`\nAdministrator ${BOOTSTRAP_ADMIN_EMAIL} created. API key (shown once):\n  ${key}\n\n`);
    }
    logger.info({ email: BOOTSTRAP_ADMIN_EMAIL }, 'bootstrap administrator ready');
  });
}

function stamp() {
  const now = new Date();
  return { id: randomUUID(), uuid: randomUUID(), createdOn: now, updatedOn: now, changeSequence: 0 };
}

function createAdmin(create: (entity: typeof PlatformUser, data: Partial<PlatformUser>) => PlatformUser): PlatformUser {
  const defaults = Object.fromEntries(
    fieldsOf(PlatformUser)
      .map((f) => [f.name, implicitDefault(f)] as const)
      .filter(([, v]) => v !== undefined),
  );
  return create(PlatformUser, { ...defaults, ...stamp(), email: BOOTSTRAP_ADMIN_EMAIL, firstName: 'Platform', lastName: 'Administrator', searchText: 'platform administrator' });
}
