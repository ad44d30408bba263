import type { TestProject } from 'vitest/node';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../../src/database/database-url';
import { openDatabase } from '../../src/database/orm';
import 'reflect-metadata';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/**
 * One fresh database per run, on DATABASE_URL's server or on the embedded PostgreSQL (under
 * .data/test-postgres), migrated once with the committed migrations and dropped at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await databaseServer(process.env.DATABASE_URL, '.data/test');
  const name = `platform_test_${Date.now()}_${process.pid}`;
  await ensureDatabase(server.serverUrl, name);
  const url = withDatabase(server.serverUrl, name);
  const orm = await openDatabase(url);
  await orm.close();
  project.provide('databaseUrl', url);
  return async () => {
    await dropDatabase(server.serverUrl, name);
    await server.stop();
  };
}
