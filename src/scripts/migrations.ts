import 'reflect-metadata';
import { loadConfig } from '../config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../database/database-url';
import { openDatabase } from '../database/orm';

/**
 * `create`: generate a migration from the difference between the entities and the migrated schema.
 * `check`: exit 1 when the entities differ from what the committed migrations build.
 * Both run on a scratch database, so that nothing but the migrations shapes the diff.
 */
async function run(command: string): Promise<number> {
  const config = loadConfig();
  const server = await databaseServer(config.databaseUrl, config.dataDir);
  const scratch = `platform_scratch_${process.pid}`;
  await ensureDatabase(server.serverUrl, scratch);
  const orm = await openDatabase(withDatabase(server.serverUrl, scratch));
  try {
    const migrator = orm.getMigrator();
    if (command === 'create') {
      const result = await migrator.createMigration();
      console.log(result.fileName ? `created migrations/${result.fileName}` : 'entities and migrations agree: nothing to create');
      return 0;
    }
    const needed = await migrator.checkMigrationNeeded();
    console.log(needed ? 'entities differ from the committed migrations: run npm run migration:create' : 'migrations are up to date');
    return needed ? 1 : 0;
  } finally {
    await orm.close();
    await dropDatabase(server.serverUrl, scratch);
    await server.stop();
  }
}

run(process.argv[2] ?? 'check').then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
