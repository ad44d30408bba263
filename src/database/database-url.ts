import pg from 'pg';
import { startEmbeddedPostgres, type RunningDatabase } from './embedded-postgres';

export interface DatabaseTarget {
  url: string;
  stop(): Promise<void>;
  /** Calls `listener` if the embedded PostgreSQL exits on its own (never for DATABASE_URL's server). */
  onUnexpectedExit(listener: () => void): void;
}

/** The database to use: DATABASE_URL as given, or the embedded server with a `platform` database. */
export async function resolveDatabase(databaseUrl: string | undefined, dataDir: string, databaseName = 'platform'): Promise<DatabaseTarget> {
  if (databaseUrl) return { url: databaseUrl, stop: async () => undefined, onUnexpectedExit: () => undefined };
  const server: RunningDatabase = await startEmbeddedPostgres(dataDir);
  await ensureDatabase(server.serverUrl, databaseName);
  return { url: withDatabase(server.serverUrl, databaseName), stop: server.stop, onUnexpectedExit: server.onUnexpectedExit };
}

export function withDatabase(serverUrl: string, databaseName: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

export async function ensureDatabase(serverUrl: string, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [databaseName]);
    if (found.rowCount === 0) await client.query(`create database "${databaseName.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(serverUrl: string, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(`drop database if exists "${databaseName.replace(/"/g, '')}" with (force)`);
  } finally {
    await client.end();
  }
}

/** A database server to create scratch databases on: DATABASE_URL's server, or the embedded one. */
export async function databaseServer(databaseUrl: string | undefined, dataDir: string): Promise<RunningDatabase> {
  if (databaseUrl) return { serverUrl: databaseUrl, stop: async () => undefined, onUnexpectedExit: () => undefined };
  return startEmbeddedPostgres(dataDir);
}
