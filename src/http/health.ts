import type { MikroORM } from '@mikro-orm/core';
import type { Request, Response } from 'express';
import { within } from '../model/deadline';
import type { RateLimits } from './rate-limit';
import type { ReplicaHealth } from '../database/read-replicas';

type State = 'UP' | 'DOWN';

/** The answer of GET /health: `redis` only when REDIS_URL is set, `replicas` only with DATABASE_REPLICA_URLS. */
export interface HealthReport {
  status: State;
  database: State;
  redis?: State;
  replicas?: ReplicaHealth[];
}

/** A dependency that does not answer within this long is DOWN (the ORM would otherwise wait a minute for a connection). */
const CHECK_TIMEOUT_MS = 2_000;

function state(up: boolean): State {
  return up ? 'UP' : 'DOWN';
}

/**
 * GET /health (no credentials): the database's state (`select 1`) and, when REDIS_URL is set, Redis's
 * (PING). `status` is the database's: without it nothing can be answered, so DOWN answers 503 and a
 * load balancer stops sending requests here. Without Redis the server keeps answering, counting rate
 * limits in the process, so Redis DOWN is reported but leaves `status` UP. Each read replica is listed
 * with its state (UP, LAGGING: further behind than REPLICA_MAX_LAG_SECONDS, DOWN) and lag as last polled;
 * the primary serves what they cannot, so they leave `status` as it is too.
 */
export function healthHandler(orm: MikroORM, limits: RateLimits, replicas?: { health(): ReplicaHealth[] }) {
  return async (_req: Request, res: Response): Promise<void> => {
    const [database, redis] = await Promise.all([within(orm.isConnected(), CHECK_TIMEOUT_MS, false), limits.redisReachable(CHECK_TIMEOUT_MS)]);
    const report: HealthReport = {
      status: state(database),
      database: state(database),
      ...(redis === undefined ? {} : { redis: state(redis) }),
      ...(replicas ? { replicas: replicas.health() } : {}),
    };
    res
      .status(database ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json(report);
  };
}

/** GET /health/live (no credentials): the process answers; no dependency is asked. */
export function livenessHandler(_req: Request, res: Response): void {
  res.set('Cache-Control', 'no-store').json({ status: 'UP' });
}
