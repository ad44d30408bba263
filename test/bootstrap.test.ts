import { afterAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey } from '../src/modules/access/api-keys';
import { bootstrapAdministrator, BOOTSTRAP_ADMIN_EMAIL } from '../src/auth/bootstrap';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { openDatabase } from '../src/database/orm';

/** Servers started at the same moment on one database (test files, a scaled deployment) bootstrap once. */
const databaseName = `platform_bootstrap_${process.pid}_${Date.now()}`;
const serverUrl = inject('databaseUrl');

afterAll(async () => {
  await dropDatabase(serverUrl, databaseName);
});

describe('the bootstrap administrator', () => {
  it('is created once when several processes bootstrap an empty database at the same moment, each key kept', async () => {
    await ensureDatabase(serverUrl, databaseName);
    const orms = await Promise.all(Array.from({ length: 5 }, () => openDatabase(withDatabase(serverUrl, databaseName))));
    try {
      const keys = orms.map(() => generateApiKey());
      await Promise.all(orms.map((orm, i) => bootstrapAdministrator(orm, keys[i])));
      const connection = orms[0].em.fork().getConnection();
      const [{ admins }] = await connection.execute(`select count(*)::int as admins from platform_user where email = ?`, [BOOTSTRAP_ADMIN_EMAIL]);
      expect(admins).toBe(1);
      const [{ tokens }] = await connection.execute(`select count(*)::int as tokens from access_token where name = 'bootstrap'`);
      expect(tokens).toBe(5);
    } finally {
      await Promise.all(orms.map((orm) => orm.close()));
    }
  });
});
