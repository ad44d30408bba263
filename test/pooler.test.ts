import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../src/config/config';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { openDatabase } from '../src/database/orm';
import { runOnConnection } from '../src/database/prepared-in-transaction';
import { poolModeOf, routesOf } from '../src/database/pool-mode';
import { queryCounter, type RecordedStatement } from '../src/database/query-counter';
import { ReadPool } from '../src/database/read-pool';
import { generateApiKey } from '../src/modules/access/api-keys';
import { findPgBouncer, PGBOUNCER_REQUIRED, startPgBouncer, type PgBouncer } from './support/pgbouncer';
import { requester, startServer, unique, type Answer } from './support/server';
import { startServerProcess, until, type ServerProcess } from './support/server-process';

/**
 * Behind PgBouncer in transaction mode (DATABASE_POOL_MODE=transaction, DATABASE_DIRECT_URL for the
 * sessions): every write and read path of the real server answers without a 5xx while requests share
 * a handful of server connections, no statement is named, and the statement timeout and request
 * settings hold within each transaction without leaking to the next. In session mode (the default)
 * statements stay named.
 */

const PGBOUNCER = findPgBouncer();
/** Server connections PgBouncer keeps: fewer than the server's own pools, so that they are shared. */
const POOL_SIZE = 5;
/** Requests in flight at once. */
const IN_FLIGHT = 20;

describe('pgbouncer', () => {
  it('is installed where the pooler suite must run (CI: apt-get install -y pgbouncer)', (context) => {
    if (!PGBOUNCER && !PGBOUNCER_REQUIRED) {
      console.warn('pgbouncer is not installed (apt-get install -y pgbouncer): the pooler suite is skipped here');
      context.skip();
    }
    expect(PGBOUNCER, 'pgbouncer binary (apt-get install -y pgbouncer)').toBeDefined();
  });
});

describe.skipIf(!PGBOUNCER)('behind PgBouncer in transaction mode', () => {
  /** A fresh database of the suite's own (its URL on the run's server), behind a PgBouncer of its own. */
  const serverUrl = inject('databaseUrl');
  const databaseName = `platform_pooler_${Date.now()}_${process.pid}`;
  const directUrl = withDatabase(serverUrl, databaseName);
  let bouncer: PgBouncer;

  beforeAll(async () => {
    await ensureDatabase(serverUrl, databaseName);
    // Migrated directly first: every ORM opened below finds the migrations done.
    await (await openDatabase(directUrl)).close();
    bouncer = await startPgBouncer(PGBOUNCER!, directUrl, POOL_SIZE);
  }, 120_000);

  afterAll(async () => {
    await bouncer?.stop();
    await dropDatabase(serverUrl, databaseName);
  });

  describe('the server', () => {
    let server: ServerProcess;
    let request: ReturnType<typeof requester>;
    let dataDir: string;
    const adminKey = generateApiKey();

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'pooler-data-'));
      server = await startServerProcess({
        DATABASE_URL: bouncer.url,
        DATABASE_POOL_MODE: 'transaction',
        DATABASE_DIRECT_URL: directUrl,
        BOOTSTRAP_API_KEY: adminKey,
        SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
        DATA_DIR: dataDir,
        WORKER_CONCURRENCY: '2',
        RATE_LIMIT_PER_MINUTE: '1000000',
        RATE_LIMIT_BURST_PER_SECOND: '1000000',
        RATE_LIMIT_USER_PER_MINUTE: '1000000',
      });
      request = requester(server.url, adminKey);
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** Runs `work` for each item, IN_FLIGHT requests at a time; every answer must have `status`. */
    async function concurrently<T>(items: T[], status: number, work: (item: T) => Promise<Answer>): Promise<Answer[]> {
      const answers: Answer[] = [];
      for (let start = 0; start < items.length; start += IN_FLIGHT) answers.push(...(await Promise.all(items.slice(start, start + IN_FLIGHT).map(work))));
      for (const answer of answers) expect(answer.status, answer.text).toBe(status);
      return answers;
    }

    const rest = async (method: string, path: string, status: number, body?: unknown) => {
      const answer = await request(method, path, { body });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
      return answer.body;
    };
    const graphql = (query: string, variables: Record<string, unknown>) => request('POST', '/graphql', { body: { query, variables } });

    let organization: { id: string; slug: string };
    let projectId: string;
    const projectName = unique('Pooled');

    it('creates, updates, locks and reads tasks, 20 requests in flight, on 5 shared server connections', async () => {
      organization = await rest('POST', '/api/organizations', 201, { name: unique('PooledOrg') });
      projectId = (await rest('POST', '/api/projects', 201, { organizationId: organization.id, name: projectName })).id;
      const titles = Array.from({ length: 40 }, (_, index) => `pooled ${index}`);

      const created = await concurrently(titles, 201, (title) => request('POST', '/api/tasks', { body: { projectId, title } }));
      const tasks = created.map((answer) => answer.body as { id: string; changeSequence: number; title: string });
      expect(tasks.map((task) => task.title).sort()).toEqual([...titles].sort());

      const updated = await concurrently(tasks, 200, (task) =>
        request('PUT', `/api/tasks/${task.id}`, { body: { changeSequence: task.changeSequence, priority: 7 } }),
      );
      expect(updated.map((answer) => answer.body.priority)).toEqual(tasks.map(() => 7));
      // The same changeSequence again is stale: a refusal, not a failure.
      const stale = await request('PUT', `/api/tasks/${tasks[0].id}`, { body: { changeSequence: tasks[0].changeSequence, priority: 8 } });
      expect(stale.status, stale.text).toBe(409);

      const locked = await concurrently(tasks, 200, (task) => request('PUT', `/api/tasks/${task.id}/lock`, {}));
      expect(locked.every((answer) => answer.body.locked === true)).toBe(true);
      const again = await request('PUT', `/api/tasks/${tasks[0].id}/lock`, {});
      expect(again.status, again.text).toBe(409);

      // Item reads, list pages (named statements in session mode) and counts, mixed.
      const reads = await concurrently(tasks, 200, (task) =>
        tasks.indexOf(task) % 2
          ? request('GET', `/api/tasks/${task.id}`)
          : request('GET', `/api/tasks?pageSize=5&filter=${encodeURIComponent(`projectId==${projectId}`)}`),
      );
      const items = reads.filter((answer) => answer.body.id);
      const pages = reads.filter((answer) => answer.body.content);
      expect([items.length, pages.length]).toEqual([20, 20]);
      expect(items.every((answer) => answer.body.locked === true && answer.body.priority === 7)).toBe(true);
      expect(pages.every((answer) => answer.body.totalElements === 40 && answer.body.content.length === 5)).toBe(true);

      const pool = (await bouncer.admin<Record<string, string>>('show pools')).find((row) => row.database === 'pooled')!;
      const serverConnections = ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce((sum, column) => sum + Number(pool[column]), 0);
      const clients = (await bouncer.admin<{ database: string }>('show clients')).filter((row) => row.database === 'pooled').length;
      expect(serverConnections).toBeLessThanOrEqual(POOL_SIZE);
      // More client connections (the server's ORM and read pools) than server connections: they were shared.
      expect(clients).toBeGreaterThan(serverConnections);
    });

    it('answers GraphQL mutations and a batch update', async () => {
      const createTask = `mutation($input: TaskCreateRequest!) { createTask(input: $input) { id title changeSequence } }`;
      const updateTask = `mutation($id: ID!, $input: TaskUpdateRequest!) { updateTask(id: $id, input: $input) { id title priority } }`;
      const created = await concurrently(
        Array.from({ length: IN_FLIGHT }, (_, index) => index),
        200,
        (index) => graphql(createTask, { input: { projectId, title: `graphql ${index}` } }),
      );
      for (const answer of created) expect(answer.body.errors, answer.text).toBeUndefined();
      const updated = await concurrently(created, 200, (answer) => graphql(updateTask, { id: answer.body.data.createTask.id, input: { priority: 3 } }));
      for (const answer of updated) expect(answer.body.data?.updateTask.priority, answer.text).toBe(3);

      const store = await rest('POST', '/api/document-stores', 201, { organizationId: organization.id, name: unique('Store') });
      const family = await rest('POST', '/api/document-families', 201, { documentStoreId: store.id, path: 'in/pooled.pdf' });
      const objects = await concurrently([1, 2, 3], 201, () =>
        request('POST', '/api/content-objects', { body: { documentFamilyId: family.id, name: unique('Content') } }),
      );
      const batch = await rest('POST', '/api/batch-update', 200, {
        operations: [
          ...objects.map((answer) => ({ id: answer.body.id, changeSequence: 0, summary: 'batched' })),
          { id: objects[0].body.id, changeSequence: 0, summary: 'stale' },
        ],
      });
      expect(batch.results.map((result: { ok: boolean; status: number }) => [result.ok, result.status])).toEqual([
        [true, 200],
        [true, 200],
        [true, 200],
        [false, 409],
      ]);
    });

    it('runs an activity started by a trigger (a job of the queue on the direct connection)', async () => {
      const plan = await rest('POST', '/api/activity-plans', 201, {
        organizationId: organization.id,
        name: unique('Plan'),
        steps: [{ ref: 'make', name: 'Make a follow-up', stepType: 'CREATE_TASK', options: { taskData: { title: 'follow-up of ${project.name}' } } }],
      });
      await rest('POST', '/api/triggers', 201, {
        name: unique('Trigger'),
        projectId,
        activityPlanRef: `activity-plan://${organization.slug}/${plan.slug}`,
        eventKind: 'task_created',
        eventFilter: 'task.title = "start the activity"',
      });
      await rest('POST', '/api/tasks', 201, { projectId, title: 'start the activity' });
      const activities = `/api/activities?filter=${encodeURIComponent(`projectId==${projectId}`)}`;
      await until(
        'the activity to complete',
        async () => (await rest('GET', activities, 200)).content.some((row: { status: string }) => row.status === 'COMPLETED'),
        20_000,
      );
      const followUps = await rest('GET', `/api/tasks?filter=${encodeURIComponent(`projectId==${projectId};title=="follow-up of ${projectName}"`)}`, 200);
      expect(followUps.totalElements).toBe(1);
    });

    it('delivers a live update to a subscription (LISTEN on the direct connection)', async () => {
      const received: { id: string; title: string }[] = [];
      const client: Client = createClient({
        url: `${server.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { 'x-api-key': adminKey },
        retryAttempts: 0,
      });
      const stop = client.subscribe<{ taskChanged: { id: string; title: string } }>(
        { query: `subscription($projectId: ID!) { taskChanged(projectId: $projectId) { id title } }`, variables: { projectId } },
        { next: (result) => result.data && received.push(result.data.taskChanged), error: () => undefined, complete: () => undefined },
      );
      try {
        // The subscription is live once a change made after it arrives: a probe a second until one does.
        let probe = '';
        await until(
          'a live update',
          async () => {
            if (probe && received.some((row) => row.id === probe)) return true;
            probe = (await rest('POST', '/api/tasks', 201, { projectId, title: unique('probe') })).id;
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            return received.some((row) => row.id === probe);
          },
          20_000,
        );
        const task = await rest('POST', '/api/tasks', 201, { projectId, title: 'seen live' });
        await until('the created task live', () => received.some((row) => row.id === task.id && row.title === 'seen live'), 10_000);
      } finally {
        stop();
        await client.dispose();
      }
    });

    it('logged no error and no unknown prepared statement', () => {
      expect(server.output()).not.toMatch(/prepared statement/);
      expect(server.output()).not.toMatch(/"level":50/);
    });
  });

  describe('settings', () => {
    let orm: MikroORM;
    let reads: ReadPool;
    let direct: pg.Client;

    beforeAll(async () => {
      orm = await openDatabase(bouncer.url, { poolMode: 'transaction', directUrl, statementTimeoutMs: 300 });
      reads = new ReadPool(bouncer.url, 2, undefined, { poolMode: 'transaction', statementTimeoutMs: 300 });
      direct = new pg.Client({ connectionString: directUrl });
      await direct.connect();
    }, 120_000);

    afterAll(async () => {
      await reads?.close();
      await orm?.close(true);
      await direct?.end();
    });

    const SETTINGS = `select current_setting('statement_timeout') as "timeout", current_setting('jit') as jit, current_setting('random_page_cost') as "pageCost"`;

    it('gives every ORM statement, in a transaction or on its own, the timeout and settings', async () => {
      const alone = await orm.em.fork().getConnection().execute(SETTINGS);
      expect(alone).toEqual([{ timeout: '300ms', jit: 'off', pageCost: '1.1' }]);
      const inTransaction = await orm.em.fork().transactional((em) => em.getConnection().execute(SETTINGS, [], 'all', em.getTransactionContext()));
      expect(inTransaction).toEqual([{ timeout: '300ms', jit: 'off', pageCost: '1.1' }]);
      // A statement with bindings (knex's own) runs in a transaction of its own that starts with them.
      const bound = await orm.em.fork().getKnex().raw(`select current_setting(?) as jit`, ['jit']);
      expect(bound.rows).toEqual([{ jit: 'off' }]);
      await expect(orm.em.fork().getConnection().execute('select pg_sleep(2)')).rejects.toMatchObject({ code: '57014' });
      // A statement within the timeout still answers.
      expect(await orm.em.fork().getConnection().execute('select 1 as one')).toEqual([{ one: 1 }]);
    });

    it('runs statements with bound values unnamed, with the settings, also outside a transaction', async () => {
      queryCounter.recorded = [];
      try {
        const [row] = await runOnConnection<{ timeout: string; echoed: string }>(
          orm.em.fork() as never,
          { name: 'named-in-session-mode', text: `select current_setting('statement_timeout') as "timeout", $1::text as echoed` },
          ['x'],
        );
        expect(row).toEqual({ timeout: '300ms', echoed: 'x' });
        const read = await reads.query<{ zone: string; jit: string }>(
          { name: 'read-named-in-session-mode', text: `select current_setting('TimeZone') as zone, current_setting('jit') as jit where $1::int = 1` },
          [1],
        );
        expect(read).toEqual([{ zone: 'UTC', jit: 'off' }]);
        await reads.run('select 1 where $1::int = 1', [1], true);
        const recorded: RecordedStatement[] = queryCounter.recorded;
        expect(recorded.length).toBeGreaterThanOrEqual(3);
        expect(recorded.filter((statement) => statement.name)).toEqual([]);
      } finally {
        queryCounter.recorded = undefined;
      }
      await expect(reads.query({ name: 'slow', text: 'select pg_sleep($1)' }, [2])).rejects.toMatchObject({ code: '57014' });
    });

    it('leaves no setting behind on the shared server connections', async () => {
      const defaults = (await direct.query(`select current_setting('statement_timeout') as "timeout", current_setting('jit') as jit`)).rows[0];
      // More plain clients than server connections: each of them reaches connections the settings were given on.
      const plain = await Promise.all(
        Array.from({ length: POOL_SIZE * 2 }, async () => {
          const client = new pg.Client({ connectionString: bouncer.url });
          await client.connect();
          try {
            await orm.em.fork().getConnection().execute(SETTINGS);
            return (await client.query(`select current_setting('statement_timeout') as "timeout", current_setting('jit') as jit`)).rows[0];
          } finally {
            await client.end();
          }
        }),
      );
      for (const row of plain) expect(row).toEqual(defaults);
    });
  });
});

describe('session mode, the default', () => {
  it('names the hot statements (planned once per connection)', async () => {
    const server = await startServer();
    try {
      expect(poolModeOf(server.orm.config)).toBe('session');
      const organization = (await server.request('POST', '/api/organizations', { body: { name: unique('SessionOrg') } })).body;
      const project = (await server.request('POST', '/api/projects', { body: { organizationId: organization.id, name: unique('Session') } })).body;
      const task = (await server.request('POST', '/api/tasks', { body: { projectId: project.id, title: 'named' } })).body;
      const recorded = await server.recordQueries(() => server.request('GET', `/api/tasks/${task.id}`));
      expect(recorded.some((statement) => statement.name)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('starts every connection with the settings also when DATABASE_DIRECT_URL names another way to the database', async () => {
    const url = inject('databaseUrl');
    const direct = new URL(url);
    direct.searchParams.set('application_name', 'platform-direct');
    const orm = await openDatabase(url, { directUrl: direct.toString(), statementTimeoutMs: 1234 });
    try {
      expect(routesOf(orm.config)).toMatchObject({ poolMode: 'session', url, directUrl: direct.toString() });
      const settings = `select current_setting('statement_timeout') as "timeout", current_setting('jit') as jit`;
      expect(await orm.em.fork().getConnection().execute(settings)).toEqual([{ timeout: '1234ms', jit: 'off' }]);
    } finally {
      await orm.close(true);
    }
  });

  it('reads DATABASE_POOL_MODE: session unless set, transaction when asked, anything else refused by name', () => {
    const saved = process.env.DATABASE_POOL_MODE;
    try {
      delete process.env.DATABASE_POOL_MODE;
      expect(loadConfig().databasePoolMode).toBe('session');
      process.env.DATABASE_POOL_MODE = 'transaction';
      expect(loadConfig().databasePoolMode).toBe('transaction');
      process.env.DATABASE_POOL_MODE = 'statement';
      expect(() => loadConfig()).toThrow('DATABASE_POOL_MODE must be one of session, transaction, got "statement"');
    } finally {
      if (saved === undefined) delete process.env.DATABASE_POOL_MODE;
      else process.env.DATABASE_POOL_MODE = saved;
    }
  });
});
