import type { Redis } from 'ioredis';
import { logger } from '../logging/logger';

/** A position in the primary's write-ahead log, as a number (PostgreSQL writes it `16/B374D848`). */
export type Lsn = bigint;

export function lsnOf(text: string): Lsn {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Fixed-width hexadecimal, so that Redis compares two positions as text. */
function sortableLsn(lsn: Lsn): string {
  return lsn.toString(16).padStart(16, '0');
}

/** What a caller's reads must wait for: nothing, a position of the log, or a write still under way. */
export type RequiredPosition = { kind: 'any' } | { kind: 'replayed'; lsn: Lsn } | { kind: 'writing' };

/** How long a caller's last write position is remembered: far longer than any replica may lag and still serve. */
const REMEMBER_SECONDS = 300;
const KEY_PREFIX = 'replica-ryw:';

/** Keeps a position only when it is further than the one stored (two processes may record out of order). */
const RECORD_SCRIPT = `
local stored = redis.call('hget', KEYS[1], 'lsn')
if not stored or stored < ARGV[1] then redis.call('hset', KEYS[1], 'lsn', ARGV[1]) end
redis.call('hincrby', KEYS[1], 'writing', -1)
redis.call('expire', KEYS[1], ARGV[2])
return 1`;

interface CallerState {
  /** Write requests of the caller under way in this process. */
  writing: number;
  lsn: Lsn;
  /** Date.now() of the last change, to forget the caller after REMEMBER_SECONDS. */
  touched: number;
}

/**
 * Each caller's last committed write (read-your-writes): marked as under way when a write request starts,
 * and once it is answered, the primary's flushed log position, which covers its commit. In this process,
 * and in Redis when REDIS_URL is set, so that another process sends the caller's reads to a replica only
 * once that replica has replayed it. While Redis cannot be asked, the caller reads the primary.
 */
export class WritePositions {
  private readonly callers = new Map<string, CallerState>();
  private redisWarned = false;

  constructor(private readonly redis?: Redis) {}

  /** A write request of `caller` starts: its reads go to the primary until `written`. */
  async writing(caller: string): Promise<void> {
    const state = this.stateOf(caller);
    state.writing++;
    state.touched = Date.now();
    if (!this.redis) return;
    await this.redis
      .multi()
      .hincrby(KEY_PREFIX + caller, 'writing', 1)
      .expire(KEY_PREFIX + caller, REMEMBER_SECONDS)
      .exec()
      .catch((error: unknown) => this.redisFailed(error));
  }

  /** The write request of `caller` is over; everything it committed is at or before `lsn`. */
  async written(caller: string, lsn: Lsn): Promise<void> {
    const state = this.stateOf(caller);
    state.writing = Math.max(0, state.writing - 1);
    if (lsn > state.lsn) state.lsn = lsn;
    state.touched = Date.now();
    if (!this.redis) return;
    await this.redis.eval(RECORD_SCRIPT, 1, KEY_PREFIX + caller, sortableLsn(lsn), REMEMBER_SECONDS).catch((error: unknown) => this.redisFailed(error));
  }

  /** What `caller`'s next read needs of a replica. */
  async required(caller: string): Promise<RequiredPosition> {
    const local = this.callers.get(caller);
    if (local && local.writing > 0) return { kind: 'writing' };
    const localLsn = local?.lsn ?? 0n;
    if (!this.redis) return localLsn > 0n ? { kind: 'replayed', lsn: localLsn } : { kind: 'any' };
    let shared: [string | null, string | null];
    try {
      shared = (await this.redis.hmget(KEY_PREFIX + caller, 'writing', 'lsn')) as [string | null, string | null];
    } catch (error) {
      // Another process's write cannot be ruled out.
      this.redisFailed(error);
      return { kind: 'writing' };
    }
    if (this.redisWarned) logger.info('read replicas: Redis reachable again, write positions shared');
    this.redisWarned = false;
    if (Number(shared[0] ?? 0) > 0) return { kind: 'writing' };
    const sharedLsn = shared[1] ? BigInt(`0x${shared[1]}`) : 0n;
    const lsn = sharedLsn > localLsn ? sharedLsn : localLsn;
    return lsn > 0n ? { kind: 'replayed', lsn } : { kind: 'any' };
  }

  /**
   * Forgets callers untouched for REMEMBER_SECONDS, as Redis expires its keys: by then every replica
   * serving reads holds their writes, and a write whose position could not be read stops holding the
   * caller on the primary.
   */
  forgetOld(now = Date.now()): void {
    for (const [caller, state] of this.callers) if (now - state.touched > REMEMBER_SECONDS * 1000) this.callers.delete(caller);
  }

  private stateOf(caller: string): CallerState {
    let state = this.callers.get(caller);
    if (!state) {
      state = { writing: 0, lsn: 0n, touched: Date.now() };
      this.callers.set(caller, state);
    }
    return state;
  }

  private redisFailed(error: unknown): void {
    if (this.redisWarned) return;
    this.redisWarned = true;
    logger.warn({ err: (error as Error).message }, 'read replicas: Redis unreachable, callers read the primary until it returns');
  }
}
