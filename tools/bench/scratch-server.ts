import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/core';
import { appOptions, createApp } from '../../src/app';
import { generateApiKey } from '../../src/modules/access/api-keys';
import { bootstrapAdministrator } from '../../src/auth/bootstrap';
import { loadConfig, type AppConfig } from '../../src/config/config';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../../src/database/database-url';
import { openDatabase } from '../../src/database/orm';
import type { Api } from './http';

/**
 * Runs `work` against this server listening on loopback, on a scratch database of its own (on
 * DATABASE_URL's server or the embedded one) that is dropped afterwards, also when `work` fails.
 */
export async function onScratchServer(name: string, work: (api: Api, orm: MikroORM, config: AppConfig) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const server = await databaseServer(config.databaseUrl, config.dataDir);
  const scratch = `platform_${name}_${process.pid}`;
  await ensureDatabase(server.serverUrl, scratch);
  const orm = await openDatabase(withDatabase(server.serverUrl, scratch));
  const adminKey = generateApiKey();
  await bootstrapAdministrator(orm, adminKey);
  const app = await createApp(orm, appOptions(config));
  const listener: Server = app.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  app.attachSubscriptions(listener);
  try {
    await work({ base: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, key: adminKey }, orm, config);
  } finally {
    listener.closeAllConnections();
    listener.close();
    await app.close();
    await orm.close();
    await dropDatabase(server.serverUrl, scratch);
    await server.stop();
  }
}

/** The script's end: exit 0, or print the failure and exit 1. */
export function exitWhenDone(run: Promise<void>): void {
  run.then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
