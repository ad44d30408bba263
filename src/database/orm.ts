import { MikroORM, ReflectMetadataProvider } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { join } from 'node:path';
import pg from 'pg';
import { resources } from '../model/registry';
import { IdempotencyKey } from '../entities/idempotency-key';
import { projectRoot } from './project-root';
import { addListIndexes } from './list-indexes';
import { CountingLogger } from './query-counter';
import { logger } from '../http/logger';

export function ormOptions(clientUrl: string): Options {
  return defineConfig({
    clientUrl,
    // Every entity is served by a resource of the registry: the ORM maps those, and the internal
    // tables no resource serves (stored idempotent answers).
    entities: [...resources.map((resource) => resource.entity), IdempotencyKey],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    discovery: { onMetadata: addListIndexes },
    forceUtcTimezone: true,
    // Migrations always run compiled (dist/migrations), also under the test runner.
    preferTs: false,
    allowGlobalContext: false,
    loggerFactory: (options) => new CountingLogger(options),
    debug: process.env.LOG_SQL === '1' ? ['query'] : false,
    pool: { min: 0, max: 10 },
    migrations: {
      // Migrations are TypeScript in migrations/ and run compiled from dist/migrations.
      path: join(projectRoot, 'dist', 'migrations'),
      pathTs: join(projectRoot, 'migrations'),
      glob: '!(*.d).js',
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  });
}

/**
 * Connects and applies pending migrations. Processes starting at once on one database take turns (a
 * session advisory lock on a connection of its own): the first migrates, the others find it done.
 */
export async function openDatabase(clientUrl: string): Promise<MikroORM<PostgreSqlDriver>> {
  const orm = await MikroORM.init<PostgreSqlDriver>(ormOptions(clientUrl));
  const turn = new pg.Client({ connectionString: clientUrl });
  await turn.connect();
  try {
    await turn.query(`select pg_advisory_lock(hashtext('platform-migrations'))`);
    const applied = await orm.getMigrator().up();
    if (applied.length) logger.info({ migrations: applied.map((m) => m.name) }, 'applied migrations');
  } finally {
    // Ending the session releases its lock.
    await turn.end();
  }
  return orm;
}
