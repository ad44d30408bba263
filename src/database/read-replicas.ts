import { Redis } from 'ioredis';
import pg from 'pg';
import type { ReadReplicaSettings } from '../config/read-replicas';
import { logger } from '../logging/logger';
import { within } from '../model/deadline';
import type { PoolUsage } from './pool-usage';
import { ReadPool, type PreparedStatement, type ReadBudget, type Reads } from './read-pool';
import { lsnOf, WritePositions, type Lsn, type RequiredPosition } from './write-positions';

/** How often the primary's log position and each replica's replay position are read. */
const POLL_INTERVAL_MS = 200;
/** A replica that does not answer its poll within this long is DOWN (and its reads under way go to the primary). */
const POLL_TIMEOUT_MS = 1_000;
/** How long a connection to a replica may take before the read goes to the primary. */
const CONNECT_TIMEOUT_MS = 1_000;

export type ReplicaState = 'UP' | 'LAGGING' | 'DOWN';

/** One replica as /health lists it. */
export interface ReplicaHealth {
  name: string;
  state: ReplicaState;
  /** Seconds behind the primary; null while the replica does not answer. */
  lagSeconds: number | null;
}

/** `database_reads_total` by target: `primary`, `replica-0` ... */
export type ReadCounts = Record<string, number>;

/** The primary's flushed log position at a moment: a replica holding it holds everything committed until then. */
interface Sample {
  at: number;
  lsn: Lsn;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;
/**
 * SQLSTATEs after which a read is tried again on the primary: the connection failed or was ended (08,
 * 57P01-57P03), the replica cancelled it for a conflict with replay (40001), or it took no more
 * connections (53300). Any other SQLSTATE is the statement's and answers as the primary's would; an
 * error without one (ECONNREFUSED, a connection ended or timed out) is the replica's.
 */
const REPLICA_FAILURE = /^(08...|57P0[1-3]|40001|53300)$/;

function isReplicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code !== 'string' || !SQLSTATE.test(code) || REPLICA_FAILURE.test(code);
}

class Replica {
  readonly pool: ReadPool;
  state: ReplicaState = 'DOWN';
  lagSeconds: number | null = null;
  replayed: Lsn = 0n;
  /** Settles when the replica is found DOWN, so that reads waiting on it go to the primary at once. */
  private lost!: Promise<'lost'>;
  private markLost!: () => void;
  /** A connection of its own for the polls, so that a full read pool does not make the replica look DOWN. */
  private readonly monitor: pg.Pool;

  constructor(
    readonly name: string,
    url: string,
    poolSize: number,
  ) {
    this.pool = new ReadPool(url, poolSize, undefined, { connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    this.monitor = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: POLL_TIMEOUT_MS });
    this.monitor.on('error', () => undefined);
    this.armLost();
  }

  /** The replica's replay position, or undefined when it does not answer in time. */
  async poll(): Promise<Lsn | undefined> {
    const asked = this.monitor
      .query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn')
      .then((result) => (result.rows[0]?.lsn ? lsnOf(result.rows[0].lsn) : undefined))
      .catch(() => undefined);
    return within(asked, POLL_TIMEOUT_MS, undefined);
  }

  /** `work`'s value on this replica, or 'lost' once the replica is found DOWN meanwhile. */
  async attempt<R>(work: (pool: ReadPool) => Promise<R>): Promise<{ value: R } | 'lost'> {
    const running = work(this.pool).then((value) => ({ value }));
    // A read abandoned for the primary may still fail later: nobody waits for it any more.
    running.catch(() => undefined);
    return Promise.race([running, this.lost]);
  }

  /** Found not answering (by a poll, or by a read that failed with `error`): warned once, until it is UP again. */
  down(error?: unknown): void {
    if (this.state !== 'DOWN')
      logger.warn({ replica: this.name, ...(error ? { err: (error as Error).message } : {}) }, 'read replica DOWN: its reads go to the primary');
    this.state = 'DOWN';
    this.lagSeconds = null;
    this.markLost();
    this.armLost();
  }

  health(): ReplicaHealth {
    return { name: this.name, state: this.state, lagSeconds: this.lagSeconds === null ? null : Math.round(this.lagSeconds * 1000) / 1000 };
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.monitor.end()]);
  }

  private armLost(): void {
    this.lost = new Promise((resolve) => (this.markLost = () => resolve('lost')));
  }
}

/**
 * The hot reads (see ReadPool) spread over the primary and its streaming replicas. A user's read goes to
 * a replica that is UP (answering, and at most `maxLagSeconds` behind) and has replayed that user's last
 * write (see WritePositions), else to the primary; reads of no user (the server's own work) stay on the
 * primary. A read that fails on a replica for the replica's sake is read again on the primary: a replica
 * going away costs its callers time, never an error.
 *
 * Lag is measured against the primary's own position rather than the replay's timestamp, so an idle
 * primary does not make a replica look behind: every poll samples the primary's flushed position, and a
 * replica is behind by the time since the primary first went past what it has replayed.
 */
export class ReplicatedReads implements Reads {
  readonly positions: WritePositions;
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private readonly monitor: pg.Pool;
  private readonly redis?: Redis;
  private samples: Sample[] = [];
  private readonly counts: ReadCounts = { primary: 0 };
  private next = 0;
  private readonly timer: NodeJS.Timeout;
  private polling?: Promise<void>;

  constructor(
    private readonly primary: ReadPool,
    primaryUrl: string,
    settings: ReadReplicaSettings & { poolSize: number; redisUrl?: string },
  ) {
    this.replicas = settings.urls.map((url, index) => new Replica(`replica-${index}`, url, settings.poolSize));
    for (const replica of this.replicas) this.counts[replica.name] = 0;
    this.maxLagMs = settings.maxLagSeconds * 1000;
    this.monitor = new pg.Pool({ connectionString: primaryUrl, max: 1 });
    this.monitor.on('error', () => undefined);
    this.redis = settings.redisUrl ? connectRedis(settings.redisUrl) : undefined;
    this.positions = new WritePositions(this.redis);
    this.timer = setInterval(() => void this.pollOnce(), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  /** Polls once before serving, so that replicas already UP take reads from the first request on. */
  async start(): Promise<void> {
    await this.pollOnce();
  }

  query<R>(statement: PreparedStatement, values: unknown[], reader?: string, budget?: ReadBudget): Promise<R[]> {
    return this.read(reader, (pool) => pool.query<R>(statement, values, reader, budget));
  }

  run<R>(text: string, values: unknown[], prepare = false, reader?: string, budget?: ReadBudget): Promise<R[]> {
    return this.read(reader, (pool) => pool.run<R>(text, values, prepare, reader, budget));
  }

  /** The primary's flushed log position now: it covers every write committed so far. */
  async primaryPosition(): Promise<Lsn> {
    const result = await this.monitor.query<{ lsn: string }>('select pg_current_wal_flush_lsn()::text as lsn');
    return lsnOf(result.rows[0].lsn);
  }

  /** A write request of `caller` starts (see WritePositions). */
  writing(caller: string): Promise<void> {
    return this.positions.writing(caller);
  }

  /** The write request of `caller` has been answered: its reads may use a replica once it has replayed it. */
  async written(caller: string): Promise<void> {
    await this.positions.written(caller, await this.primaryPosition());
  }

  usage(): PoolUsage {
    return this.primary.usage();
  }

  /** The read pools of the replicas by name, for the pool gauges. */
  replicaUsage(): Record<string, () => PoolUsage> {
    return Object.fromEntries(this.replicas.map((replica) => [replica.name, () => replica.pool.usage()]));
  }

  health(): ReplicaHealth[] {
    return this.replicas.map((replica) => replica.health());
  }

  readCounts(): ReadCounts {
    return { ...this.counts };
  }

  /** Ends the polls and the replicas' pools; the primary's pool is its owner's to close. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    this.redis?.disconnect();
    await Promise.all([...this.replicas.map((replica) => replica.close()), this.monitor.end()]);
  }

  private async read<R>(reader: string | undefined, work: (pool: ReadPool) => Promise<R>): Promise<R> {
    const replica = await this.replicaFor(reader);
    if (replica) {
      this.counts[replica.name]++;
      try {
        const outcome = await replica.attempt(work);
        if (outcome !== 'lost') return outcome.value;
      } catch (error) {
        if (!isReplicaFailure(error)) throw error;
        // Read again on the primary; the reads that were under way with it fail together, one warning says so.
        replica.down(error);
      }
    }
    this.counts.primary++;
    return work(this.primary);
  }

  /** A replica UP that has replayed what `reader` needs (taken in turn), or undefined for the primary. */
  private async replicaFor(reader: string | undefined): Promise<Replica | undefined> {
    if (reader === undefined) return undefined;
    const up = this.replicas.filter((replica) => replica.state === 'UP');
    if (up.length === 0) return undefined;
    const required = await this.positions.required(reader);
    const fit = up.filter((replica) => holds(replica, required));
    if (fit.length === 0) return undefined;
    return fit[this.next++ % fit.length];
  }

  private pollOnce(): Promise<void> {
    // One poll at a time: a slow one is not stacked on.
    this.polling ??= this.poll().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async poll(): Promise<void> {
    const now = Date.now();
    await this.samplePrimary(now);
    await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
    this.positions.forgetOld(now);
  }

  private async samplePrimary(now: number): Promise<void> {
    const lsn = await within(
      this.primaryPosition().catch(() => undefined),
      POLL_TIMEOUT_MS,
      undefined,
    );
    if (lsn !== undefined) this.samples.push({ at: now, lsn });
    // Samples older than the longest lag worth measuring tell nothing more.
    const horizon = now - this.maxLagMs - POLL_INTERVAL_MS * 10;
    while (this.samples.length > 1 && this.samples[0].at < horizon) this.samples.shift();
  }

  private async pollReplica(replica: Replica): Promise<void> {
    const replayed = await replica.poll();
    if (replayed === undefined) {
      replica.down();
      return;
    }
    replica.replayed = replayed;
    replica.lagSeconds = this.lagOf(replayed) / 1000;
    const state: ReplicaState = replica.lagSeconds * 1000 > this.maxLagMs ? 'LAGGING' : 'UP';
    if (state !== replica.state) logger.info({ replica: replica.name, state, lagSeconds: replica.lagSeconds }, 'read replica state changed');
    replica.state = state;
  }

  /** Milliseconds since the primary was where `replayed` is: the age of the newest sample it holds. */
  private lagOf(replayed: Lsn): number {
    const now = Date.now();
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i].lsn <= replayed) return i === this.samples.length - 1 ? 0 : now - this.samples[i + 1].at;
    }
    // Behind every sample kept: at least as old as the oldest.
    return this.samples.length ? now - this.samples[0].at : 0;
  }
}

function holds(replica: Replica, required: RequiredPosition): boolean {
  if (required.kind === 'writing') return false;
  return required.kind === 'any' || replica.replayed >= required.lsn;
}

function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(attempt * 200, 5_000) });
  // Each failed command says so where it is used (WritePositions); the client's own errors are expected while Redis is away.
  redis.on('error', () => undefined);
  return redis;
}
