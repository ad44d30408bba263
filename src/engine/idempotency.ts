import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TaskList } from 'graphile-worker' with { 'resolution-mode': 'import' };
import { logger } from '../logging/logger';

/** How long the first answer to a key is kept and replayed, counted from when its request began. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/**
 * A key still `running` this long after its request began belongs to a request whose process died
 * (a crash, a kill): a retry may take it over and run. Answers take seconds at most (bridge calls
 * time out after 30 s), so a live request is never taken over.
 */
export const IDEMPOTENCY_ABANDONED_AFTER_SECONDS = 300;

/** The job that deletes expired keys, and its schedule (graphile-worker crontab: minute 17 of every hour). */
export const PURGE_IDEMPOTENCY_KEYS_JOB = 'purge-idempotency-keys';
export const IDEMPOTENCY_CRONTAB = `17 * * * * ${PURGE_IDEMPOTENCY_KEYS_JOB}`;

/** What a replay answers: the first answer's status, the headers that matter, and its body. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The request that holds a key while it runs: its start, which only it knows, so a later taker is never overwritten. */
export interface Lease {
  userId: string;
  key: string;
  startedOn: Date;
}

/** What a request sent with a key may do. */
export type Claim = { kind: 'run'; lease: Lease } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'running' } | { kind: 'mismatch' };

/**
 * The key's row, written before the handler runs: a new key, an expired one and an abandoned one are
 * (re)claimed in one statement; the primary key (user_id, key) makes concurrent claims of one key
 * conflict, so exactly one of them runs.
 */
const CLAIM = `insert into idempotency_key as k (user_id, key, request_hash, state, created_on)
  values (?, ?, ?, 'running', now())
  on conflict (user_id, key) do update
     set request_hash = excluded.request_hash, state = 'running', created_on = excluded.created_on, status = null, headers = null, body = null
   where k.created_on <= now() - make_interval(hours => ?)
      or (k.state = 'running' and k.created_on <= now() - make_interval(secs => ?))
  returning created_on`;

/** The live row of a key another request claimed (an expired row is never answered, purged or not). */
const EXISTING = `select request_hash, state, status, headers, body from idempotency_key
  where user_id = ? and key = ? and created_on > now() - make_interval(hours => ?)`;

const COMPLETE = `update idempotency_key set state = 'done', status = ?, headers = ?::jsonb, body = ?
  where user_id = ? and key = ? and created_on = ? and state = 'running'`;

const RELEASE = `delete from idempotency_key where user_id = ? and key = ? and created_on = ? and state = 'running'`;

const PURGE = `delete from idempotency_key where created_on <= now() - make_interval(hours => ?)`;

interface ExistingRow {
  request_hash: string;
  state: 'running' | 'done';
  status: number | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
}

/** Claims of a row that vanished (its request failed) or expired between two statements are tried again this often. */
const CLAIM_ATTEMPTS = 3;

/** The stored first answers of idempotent requests, in PostgreSQL (so every process sees them). */
export class IdempotencyStore {
  constructor(private readonly orm: MikroORM) {}

  private connection() {
    return (this.orm.em.fork() as EntityManager).getConnection();
  }

  /** Claims `key` of `userId` for a request whose hash is `requestHash`, or says what to answer instead. */
  async claim(userId: string, key: string, requestHash: string): Promise<Claim> {
    const connection = this.connection();
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const [claimed] = await connection.execute<{ created_on: Date }[]>(CLAIM, [
        userId,
        key,
        requestHash,
        IDEMPOTENCY_TTL_HOURS,
        IDEMPOTENCY_ABANDONED_AFTER_SECONDS,
      ]);
      if (claimed) return { kind: 'run', lease: { userId, key, startedOn: new Date(claimed.created_on) } };
      const [row] = await connection.execute<ExistingRow[]>(EXISTING, [userId, key, IDEMPOTENCY_TTL_HOURS]);
      if (!row) continue;
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (row.state === 'running') return { kind: 'running' };
      return { kind: 'replay', answer: { status: row.status!, headers: row.headers ?? {}, body: row.body ?? Buffer.alloc(0) } };
    }
    return { kind: 'running' };
  }

  /** Stores the answer of the request that holds `lease`. */
  async complete(lease: Lease, answer: StoredAnswer): Promise<void> {
    await this.connection().execute(COMPLETE, [answer.status, JSON.stringify(answer.headers), answer.body, lease.userId, lease.key, lease.startedOn], 'run');
  }

  /** Lets go of the key of a request that stored nothing (it failed, or streamed), so that a retry runs. */
  async release(lease: Lease): Promise<void> {
    await this.connection().execute(RELEASE, [lease.userId, lease.key, lease.startedOn], 'run');
  }

  /** Deletes the expired keys; how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.connection().execute<{ affectedRows: number }>(PURGE, [IDEMPOTENCY_TTL_HOURS], 'run');
    return result.affectedRows;
  }
}

/** The queue's job that purges expired keys (scheduled by IDEMPOTENCY_CRONTAB). */
export function idempotencyJobs(store: IdempotencyStore): TaskList {
  return {
    [PURGE_IDEMPOTENCY_KEYS_JOB]: async () => {
      const purged = await store.purgeExpired();
      if (purged) logger.info({ purged }, 'purged expired idempotency keys');
    },
  };
}
