import { tmpdir } from 'node:os';
import pg from 'pg';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect, inject } from 'vitest';
import { createApp, type App, type AppOptions } from '../../src/app';
import { jwtSettingsFromEnv } from '../../src/auth/jwt';
import { generateApiKey } from '../../src/modules/access/api-keys';
import { bootstrapAdministrator } from '../../src/auth/bootstrap';
import { openDatabase } from '../../src/database/orm';
import { dropDatabase, ensureDatabase, withDatabase } from '../../src/database/database-url';
import { queryCounter, type RecordedStatement } from '../../src/database/query-counter';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface TestServer {
  url: string;
  /** The bootstrap administrator's API key. */
  adminKey: string;
  orm: MikroORM;
  /** The application's services (its read pool's usage, its settings). */
  services: App['services'];
  /** A JSON request; `body` is sent as JSON unless it is already a string. */
  request<T = any>(method: string, path: string, options?: { body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<Answer<T>>;
  /** A GraphQL request as the administrator (or `key`), accepting GRAPHQL_ACCEPT. */
  graphql<T = any>(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<Answer<{ data?: T; errors?: any[] }>>;
  /** A GraphQL operation that must succeed (HTTP 200, no errors): its data. */
  graphqlData<T = any>(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<T>;
  /** The SQL statements sent while `work` runs. */
  countQueries(work: () => Promise<unknown>): Promise<number>;
  /** The text of the SQL statements sent while `work` runs. */
  recordQueries(work: () => Promise<unknown>): Promise<RecordedStatement[]>;
  /** Statements PostgreSQL could not run as written (a defect) so far in this process. */
  failedStatements(): number;
  /**
   * The statements of the attempt (of three) that sent the fewest: suites share the database, and a
   * write of another suite makes every server drop its cached credentials, so one attempt may also
   * look them up again. `work` gets the attempt's number.
   */
  fewestQueries(work: (attempt: number) => Promise<unknown>): Promise<RecordedStatement[]>;
  close(): Promise<void>;
}

/** The key every test server seals organization secrets with (servers of one run share a database). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);

/** Where test servers write data-lake records unless a suite names its own folder. */
export const TEST_DATA_LAKE_DIR = join(tmpdir(), `platform-test-lake-${process.pid}`);

/** Limits high enough that suites which are not about rate limiting never meet them. */
const UNLIMITED = { perMinute: 1_000_000, burstPerSecond: 1_000_000, userPerMinute: 1_000_000 };
/** Every test server's bootstrap adds a key to the shared administrator: suites not about the cap never meet it. */
const UNLIMITED_API_KEYS = 1_000_000;

/**
 * The real application on a random port against the run's PostgreSQL database (or `databaseUrl`), its
 * statements under `statementTimeoutMs` (else DATABASE_STATEMENT_TIMEOUT_MS's default).
 */
export async function startServer({
  databaseUrl,
  statementTimeoutMs,
  ...options
}: Partial<AppOptions> & { databaseUrl?: string; statementTimeoutMs?: number } = {}): Promise<TestServer> {
  const orm = await openDatabase(databaseUrl ?? inject('databaseUrl'), { statementTimeoutMs });
  const adminKey = generateApiKey();
  await bootstrapAdministrator(orm, adminKey);
  const app = await createApp(orm, {
    rateLimits: UNLIMITED,
    maxApiKeysPerUser: UNLIMITED_API_KEYS,
    jwt: jwtSettingsFromEnv(),
    secretsKey: TEST_SECRETS_KEY,
    dataLake: { kind: 'file', dir: TEST_DATA_LAKE_DIR },
    ...options,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  app.attachSubscriptions(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = requester(url, adminKey);

  return {
    url,
    adminKey,
    orm,
    services: app.services,
    request,
    graphql: (query, variables, key) => request('POST', '/graphql', { body: { query, variables }, key }),
    async graphqlData(query, variables, key) {
      const answer = await request('POST', '/graphql', { body: { query, variables }, key });
      expect(answer.body?.errors, JSON.stringify(answer.body)).toBeUndefined();
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data;
    },
    async countQueries(work) {
      const before = queryCounter.total;
      await work();
      return queryCounter.total - before;
    },
    failedStatements: () => queryCounter.failed,
    async recordQueries(work) {
      const recorded: RecordedStatement[] = [];
      queryCounter.recorded = recorded;
      try {
        await work();
      } finally {
        queryCounter.recorded = undefined;
      }
      return recorded;
    },
    async fewestQueries(work) {
      let fewest: RecordedStatement[] | undefined;
      for (let attempt = 0; attempt < 3; attempt++) {
        const recorded = await this.recordQueries(() => work(attempt));
        if (!fewest || recorded.length < fewest.length) fewest = recorded;
      }
      return fewest!;
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await orm.close();
    },
  };
}

/**
 * What requests to /graphql accept unless they say otherwise: GraphQL over HTTP's own media type, under
 * which a request error answers 4xx (served as application/json it answers 200; see graphql-http.test.ts).
 */
export const GRAPHQL_ACCEPT = 'application/graphql-response+json';

/** JSON requests to the server at `url`, as `defaultKey` unless a request names another key (or null: none). */
export function requester(url: string, defaultKey: string): TestServer['request'] {
  return async (method, path, options = {}) => {
    const key = options.key === undefined ? defaultKey : options.key;
    const accept =
      path.startsWith('/graphql') && !Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'accept') ? { accept: GRAPHQL_ACCEPT } : {};
    const headers: Record<string, string> = { 'content-type': 'application/json', ...accept, ...(key ? { 'x-api-key': key } : {}), ...options.headers };
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const response = await fetch(`${url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed as any, headers: response.headers, text };
  };
}

/** A unique suffix so that tests sharing the run's database never collide. */
export function unique(prefix = 't'): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A test server on a database of the suite's own (dropped by `close`), and a client of that database. */
export interface ServerOnOwnDatabase {
  server: TestServer;
  db: pg.Client;
  close(): Promise<void>;
}

/**
 * A server on a new database on the run's PostgreSQL server, for suites whose totals or plans other
 * suites' rows would disturb.
 */
export async function startServerOnOwnDatabase(prefix: string, options: Parameters<typeof startServer>[0] = {}): Promise<ServerOnOwnDatabase> {
  const serverUrl = withDatabase(inject('databaseUrl'), 'postgres');
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  await ensureDatabase(serverUrl, name);
  const databaseUrl = withDatabase(serverUrl, name);
  const server = await startServer({ ...options, databaseUrl });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  return {
    server,
    db,
    async close() {
      await db.end();
      await server.close();
      await dropDatabase(serverUrl, name);
    },
  };
}
