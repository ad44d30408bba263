import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../src/config/config';
import { connectTimeoutOf, openDatabase } from '../src/database/orm';
import { isConnectionFailure } from '../src/errors/database-unavailable';
import { normalizeError } from '../src/errors/normalize-error';
import { freePort } from './support/server-process';

/**
 * What counts as the database being unreachable (503 with Retry-After, logged once per outage) and what
 * stays a failure of its own: errors of a real node-postgres client, against a port nothing listens on,
 * a connection that hangs, and the test database.
 */
async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('a database that cannot be reached', () => {
  it('is a 503 with Retry-After and the error body when nothing listens on its port', async () => {
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`, connectionTimeoutMillis: 1_000 });
    const error = await failureOf(() => pool.query('select 1'));
    await pool.end();
    expect(isConnectionFailure(error)).toBe(true);
    const refusal = normalizeError(error);
    expect(refusal.status).toBe(503);
    expect(refusal.retryAfter).toBe(5);
    expect(refusal.toBody()).toMatchObject({ error: 'Service Unavailable', status: 503, message: expect.stringContaining('DATABASE_CONNECT_TIMEOUT_MS') });
  });

  it('is a 503 when a connection is not made within the connect timeout', async () => {
    const { createServer } = await import('node:net');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 300 });
    const started = Date.now();
    const error = await failureOf(() => client.connect());
    silent.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(normalizeError(error).status).toBe(503);
  });

  it('is a 503 when the server ends the session (a restart)', async () => {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    client.on('error', () => undefined);
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await admin.end();
    const error = await failureOf(() => client.query('select 1'));
    await client.end().catch(() => undefined);
    expect(isConnectionFailure(error)).toBe(true);
    expect(normalizeError(error).status).toBe(503);
  });

  it("leaves the statement's own failures as they were: a syntax error is no outage (500), a division by zero neither", async () => {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    try {
      const syntax = await failureOf(() => client.query('selec 1'));
      expect(isConnectionFailure(syntax)).toBe(false);
      expect(normalizeError(syntax).status).toBe(500);
      const division = await failureOf(() => client.query(`select 1 from (values (1)) v(x) where x = (select 1/0)`));
      expect(isConnectionFailure(division)).toBe(false);
    } finally {
      await client.end();
    }
    expect(isConnectionFailure(new Error('boom'))).toBe(false);
    expect(isConnectionFailure(undefined)).toBe(false);
    expect(isConnectionFailure({ code: '23505' })).toBe(false);
  });
});

describe('DATABASE_CONNECT_TIMEOUT_MS', () => {
  const saved = process.env.DATABASE_CONNECT_TIMEOUT_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_CONNECT_TIMEOUT_MS;
    else process.env.DATABASE_CONNECT_TIMEOUT_MS = saved;
  });

  it('defaults to 5000 milliseconds and accepts positive integers only, naming the variable', () => {
    delete process.env.DATABASE_CONNECT_TIMEOUT_MS;
    expect(loadConfig().databaseConnectTimeoutMs).toBe(5_000);
    process.env.DATABASE_CONNECT_TIMEOUT_MS = '250';
    expect(loadConfig().databaseConnectTimeoutMs).toBe(250);
    for (const wrong of ['0', '-1', '2.5', 'soon']) {
      process.env.DATABASE_CONNECT_TIMEOUT_MS = wrong;
      expect(() => loadConfig(), wrong).toThrow(/DATABASE_CONNECT_TIMEOUT_MS must be a positive integer/);
    }
  });

  it("bounds the ORM's wait for a connection: a pool whose every connection is taken refuses the next query after it", async () => {
    const orm = await openDatabase(inject('databaseUrl'), { connectTimeoutMs: 400 });
    expect(connectTimeoutOf(orm)).toBe(400);
    const connection = orm.em.getConnection();
    // The pool holds 10: ten transactions hold them all.
    const releases: (() => void)[] = [];
    const holders = Array.from({ length: 10 }, () => connection.transactional(() => new Promise<void>((resolve) => releases.push(resolve))));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const error = await failureOf(() => connection.execute('select 1'));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(normalizeError(error).status).toBe(503);
    for (const release of releases) release();
    await Promise.all(holders);
    await orm.close();
  });
});
