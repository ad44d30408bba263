import './env';
import 'reflect-metadata';
import { appOptions, createApp } from './app';
import { bootstrapAdministrator } from './auth/bootstrap';
import { loadConfig } from './config/config';
import { resolveDatabase } from './database/database-url';
import { openDatabase } from './database/orm';
import { loadDemoAtStart } from './demo/demo-data';
import { logger } from './http/logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await resolveDatabase(config.databaseUrl, config.dataDir);
  const orm = await openDatabase(database.url);
  await bootstrapAdministrator(orm, config.bootstrapApiKey);
  const { app, services, close } = await createApp(orm, appOptions(config));
  if (process.argv.includes('--demo')) await loadDemoAtStart(orm, services, `http://localhost:${config.port}`);
  const server = app.listen(config.port, () => {
    logger.info({ port: config.port, embeddedDatabase: !config.databaseUrl }, `listening on http://localhost:${config.port}`);
  });

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close();
    await close();
    await orm.close();
    await database.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'could not start');
  process.exit(1);
});
