import { Redis } from 'ioredis';
import type { NextFunction, Request, Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../errors/api-error';
import { within } from '../model/deadline';
import { logger } from './logger';

export interface RateLimitSettings {
  perMinute: number;
  burstPerSecond: number;
  /** Counters in Redis, shared by every server process; in-process when absent or unreachable. */
  redisUrl?: string;
}

interface Window {
  limiter: RateLimiterAbstract;
  points: number;
}

/** The outcome of one request against both windows. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the minute window starts afresh. */
  reset: number;
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
}

/**
 * Two fixed windows per caller: RATE_LIMIT_PER_MINUTE and RATE_LIMIT_BURST_PER_SECOND. With Redis, an
 * in-process limiter insures each window, so a Redis outage degrades to per-process counting.
 */
export class RateLimits {
  private readonly minute: Window;
  private readonly burst: Window;

  private constructor(
    settings: RateLimitSettings,
    private readonly redis?: Redis,
  ) {
    this.minute = { limiter: limiter(settings.perMinute, 60, 'rl:minute', redis), points: settings.perMinute };
    this.burst = { limiter: limiter(settings.burstPerSecond, 1, 'rl:burst', redis), points: settings.burstPerSecond };
  }

  static create(settings: RateLimitSettings): RateLimits {
    return new RateLimits(settings, settings.redisUrl ? connectRedis(settings.redisUrl) : undefined);
  }

  async consume(key: string): Promise<RateDecision> {
    const [minute, burst] = await Promise.all([take(this.minute.limiter, key), take(this.burst.limiter, key)]);
    const refused = [minute, burst].filter((r) => r.refused);
    return {
      allowed: refused.length === 0,
      limit: this.minute.points,
      remaining: Math.max(0, minute.result.remainingPoints),
      reset: Math.ceil((Date.now() + minute.result.msBeforeNext) / 1000),
      retryAfter: Math.max(1, Math.ceil(Math.max(0, ...refused.map((r) => r.result.msBeforeNext)) / 1000)),
    };
  }

  /** Whether the shared counters' Redis answers a PING within `timeoutMs`; undefined without REDIS_URL. */
  async redisReachable(timeoutMs: number): Promise<boolean | undefined> {
    if (!this.redis) return undefined;
    const pinged = this.redis.ping().then(
      (answer) => answer === 'PONG',
      () => false,
    );
    return within(pinged, timeoutMs, false);
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}

function limiter(points: number, duration: number, keyPrefix: string, redis?: Redis): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  if (!redis) return memory;
  return new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: memory });
}

async function take(limiter: RateLimiterAbstract, key: string): Promise<{ refused: boolean; result: RateLimiterRes }> {
  try {
    return { refused: false, result: await limiter.consume(key) };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { refused: true, result: rejection };
    throw rejection;
  }
}

function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(attempt * 200, 5_000) });
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) logger.warn('rate limits: Redis reachable again, counters shared');
    healthy = true;
  });
  redis.on('error', (error: Error) => {
    if (healthy) logger.warn({ err: error.message }, 'rate limits: Redis unreachable, counting in this process until it returns');
    healthy = false;
  });
  return redis;
}

/**
 * Counts the request against its caller's budget; answers 429 past it (and calls `onRefusal`). Headers
 * go on every answer.
 */
export function rateLimit(limits: RateLimits, keyOf: (req: Request) => string, onRefusal: () => void = () => undefined) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await limits.consume(keyOf(req));
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.reset));
    if (decision.allowed) return next();
    res.setHeader('Retry-After', String(decision.retryAfter));
    onRefusal();
    next(new RateLimitedError(`rate limit exceeded: at most ${decision.limit} requests per minute and the burst limit per second; retry after ${decision.retryAfter} s`));
  };
}
