import 'reflect-metadata';
import { loadConfig } from '../config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../database/database-url';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../database/orm';
import { projectRoot } from '../database/project-root';
import { pendingTenantKeys, tenantKeySql, type TableOf } from '../database/tenant-key-sql';
import { liveCountSql, pendingLiveCounts } from '../database/live-counts-sql';
import { resources } from '../catalog/registry';

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
    const tableOf: TableOf = (entity) => orm.getMetadata().get(entity.name).tableName;
    const pending = await pendingTenantKeys((sql) => orm.em.getConnection().execute(sql), resources, tableOf);
    const uncounted = await pendingLiveCounts((sql) => orm.em.getConnection().execute(sql), resources, tableOf);
    const needed = await migrator.checkMigrationNeeded();
    const behind = needed || pending.size > 0 || uncounted.size > 0;
    if (command === 'create') {
      if (!behind) {
        console.log('entities and migrations agree: nothing to create');
        return 0;
      }
      const result = await migrator.createMigration(undefined, !needed);
      const sql = tenantKeySql(resources, tableOf, (table) => pending.has(table));
      const counts = liveCountSql(resources, tableOf, (table) => uncounted.has(table));
      appendToUp(join(projectRoot, 'migrations', result.fileName), [...sql.backfill, ...sql.triggers, ...counts]);
      console.log(`created migrations/${result.fileName}`);
      return 0;
    }
    if (pending.size) console.log(`tables whose tenant keys the migrations do not keep: ${[...pending].join(', ')}`);
    if (uncounted.size) console.log(`tables whose live rows the migrations do not count: ${[...uncounted].join(', ')}`);
    console.log(behind ? 'entities differ from the committed migrations: run npm run migration:create' : 'migrations are up to date');
    return behind ? 1 : 0;
  } finally {
    await orm.close();
    await dropDatabase(server.serverUrl, scratch);
    await server.stop();
  }
}

/** Adds statements at the end of a generated migration's `up`. */
function appendToUp(file: string, statements: string[]): void {
  if (statements.length === 0) return;
  const text = readFileSync(file, 'utf8');
  const escape = (sql: string) => sql.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
  const lines = [
    '    // Tenant keys, liveness flags and live-row counts of the tables below an organization, kept by the database.',
    ...statements.map((sql) => `    this.addSql(\`${escape(sql)};\`);`),
  ];
  const down = text.indexOf('  override async down()');
  const end = text.lastIndexOf('  }', down === -1 ? text.length : down);
  writeFileSync(file, `${text.slice(0, end)}${lines.join('\n')}\n${text.slice(end)}`);
}

run(process.argv[2] ?? 'check').then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
