import pg from 'pg';
import { BACKGROUND_CONNECT_TIMEOUT_MS } from '../database/listener';
import { isConnectionFailure } from '../errors/database-unavailable';
import type { OutageLog } from '../logging/outage-log';
import { logger } from '../logging/logger';

/** How soon a lost liveness connection is tried again, and again after each failed try. */
const RECONNECT_MS = 1_000;

/**
 * The connection on which this process's job workers hold their liveness locks (session advisory locks
 * named after each worker, see job-queue.ts), and which the reaper's statements use. When it is lost (a
 * database restart, a dropped connection) PostgreSQL has released every lock with the session: it is
 * reopened every RECONNECT_MS until it works, and the locks of every worker still running are taken
 * again before anything else runs on it. The loss and the recovery are told to `outage` (one warning,
 * one info line); the tries in between are not logged above debug.
 */
export class LivenessConnection {
  private client?: pg.Client;
  private readonly held = new Set<string>();
  private retry?: NodeJS.Timeout;
  private closed = false;
  /** The statements, one after the other (a client runs one at a time); a reconnection takes its turn too. */
  private queue: Promise<unknown> = Promise.resolve();
  /** When the connection was last reopened after a loss (epoch ms); undefined while it is the first one. */
  reopenedAt?: number;

  constructor(
    private readonly connectionString: string,
    private readonly lockClass: number,
    private readonly outage: OutageLog,
  ) {}

  /** The first connection: a failure here fails the start. */
  async open(): Promise<void> {
    this.client = await this.connect();
  }

  /** Whether the connection is up now (the locks it should hold are held, or being taken). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** Takes `workerId`'s lock now and after every reconnection, until `release`. */
  hold(workerId: string): Promise<void> {
    this.held.add(workerId);
    return this.run('select pg_advisory_lock($1, hashtext($2))', [this.lockClass, workerId]).then(() => undefined);
  }

  /** Runs `text` after the statements before it; fails at once while the connection is down (it is being reopened). */
  run<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const result = this.queue.then(() => {
      if (!this.client) throw new Error('the liveness connection is down; reconnecting');
      return this.client.query<R>(text, values);
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: BACKGROUND_CONNECT_TIMEOUT_MS });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the liveness connection ended')));
    try {
      await client.connect();
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** The current connection failed: it is dropped and reopened (once per loss: `error` and `end` both come). */
  private lost(client: pg.Client, error: unknown): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (isConnectionFailure(error)) this.outage.lost(error);
    else logger.error({ err: error }, 'the job workers lost their liveness connection');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.reconnect();
    }, RECONNECT_MS);
    this.retry.unref();
  }

  /** Reopens the connection and takes the locks of every worker again, before any other statement runs on it. */
  private async reconnect(): Promise<void> {
    let client: pg.Client | undefined;
    try {
      client = await this.connect();
      for (const workerId of this.held) await client.query('select pg_advisory_lock($1, hashtext($2))', [this.lockClass, workerId]);
    } catch (error) {
      if (client) await client.end().catch(() => undefined);
      this.outage.lost(error);
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.reopenedAt = Date.now();
    logger.debug({ workers: this.held.size }, 'job queue: liveness locks taken again');
  }
}
