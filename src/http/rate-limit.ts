import { Redis } from 'ioredis';
import type { NextFunction, Request, Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DEFAULT_RATE_LIMIT_USER_PER_MINUTE } from '../config/config';
import { RateLimitedError } from '../errors/api-error';
import { within } from '../model/deadline';
import { logger } from '../logging/logger';

export interface RateLimitSettings {
  perMinute: number;
  burstPerSecond: number;
  /**
   * RATE_LIMIT_USER_PER_MINUTE: one minute budget for all API keys and bearer tokens of a user, so that
   * fresh keys add no budget; absent, DEFAULT_RATE_LIMIT_USER_PER_MINUTE.
   */
  userPerMinute?: number;
  /** Counters in Redis, shared by every server process; in-process when absent or unreachable. */
  redisUrl?: string;
}

interface Window {
  limiter: RateLimiterAbstract;
  points: number;
}

/** Whose budgets a request counts against: its key (API key, bearer user or client address) and its user, if known. */
export interface RateSubject {
  key: string;
  user?: string;
}

/** The outcome of one request against the key's windows and its user's; limit, remaining and reset describe the key's minute window. */
export interface RateDecision {
  allowed: boolean;
  /** What refused it: the key's own windows, else the user-wide one. */
  refusedBy?: 'key' | 'user';
  /** The user-wide limit per minute. */
  userLimit: number;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the minute window starts afresh. */
  reset: number;
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
}

/**
 * Two fixed windows per key: RATE_LIMIT_PER_MINUTE and RATE_LIMIT_BURST_PER_SECOND; and a minute window
 * per user, RATE_LIMIT_USER_PER_MINUTE, over all of the user's keys and tokens. With Redis, an
 * in-process limiter insures each window, so a Redis outage degrades to per-process counting.
 */
export class RateLimits {
  private readonly minute: Window;
  private readonly burst: Window;
  private readonly user: Window;

  private constructor(
    settings: RateLimitSettings,
    private readonly redis?: Redis,
  ) {
    this.minute = { limiter: limiter(settings.perMinute, 60, 'rl:minute', redis), points: settings.perMinute };
    this.burst = { limiter: limiter(settings.burstPerSecond, 1, 'rl:burst', redis), points: settings.burstPerSecond };
    const userPoints = settings.userPerMinute ?? DEFAULT_RATE_LIMIT_USER_PER_MINUTE;
    this.user = { limiter: limiter(userPoints, 60, 'rl:user', redis), points: userPoints };
  }

  static create(settings: RateLimitSettings): RateLimits {
    return new RateLimits(settings, settings.redisUrl ? connectRedis(settings.redisUrl) : undefined);
  }

  /**
   * Counts `points` requests against the key's windows and, with a user, the user's window. Refused
   * requests count too, as they always have for the key.
   */
  async consume(subject: string | RateSubject, points = 1): Promise<RateDecision> {
    const { key, user } = typeof subject === 'string' ? { key: subject, user: undefined } : subject;
    const [minute, burst, userMinute] = await Promise.all([
      take(this.minute.limiter, key, points),
      take(this.burst.limiter, key, points),
      user === undefined ? undefined : take(this.user.limiter, user, points),
    ]);
    const keyRefused = [minute, burst].filter((r) => r.refused);
    const refused = userMinute?.refused ? [...keyRefused, userMinute] : keyRefused;
    return {
      allowed: refused.length === 0,
      refusedBy: keyRefused.length ? 'key' : refused.length ? 'user' : undefined,
      userLimit: this.user.points,
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

async function take(limiter: RateLimiterAbstract, key: string, points: number): Promise<{ refused: boolean; result: RateLimiterRes }> {
  try {
    return { refused: false, result: await limiter.consume(key, points) };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { refused: true, result: rejection };
    throw rejection;
  }
}

function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(attempt * 200, 5_000) });
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) logger.info('rate limits: Redis reachable again, counters shared');
    healthy = true;
  });
  redis.on('error', (error: Error) => {
    if (healthy) logger.warn({ err: error.message }, 'rate limits: Redis unreachable, counting in this process until it returns');
    healthy = false;
  });
  return redis;
}

/** The X-RateLimit-* headers of `decision` (the key's minute window), and Retry-After when it refuses. */
export function rateLimitHeaders(decision: RateDecision): [string, string][] {
  const headers: [string, string][] = [
    ['X-RateLimit-Limit', String(decision.limit)],
    ['X-RateLimit-Remaining', String(decision.remaining)],
    ['X-RateLimit-Reset', String(decision.reset)],
  ];
  if (!decision.allowed) headers.push(['Retry-After', String(decision.retryAfter)]);
  return headers;
}

/** The 429 of a refused decision, naming the limit that refused it. */
export function rateLimitedError(decision: RateDecision): RateLimitedError {
  if (decision.refusedBy === 'user') {
    return new RateLimitedError(
      `rate limit exceeded: at most ${decision.userLimit} requests per minute for all API keys and bearer tokens of this user together (the user-wide limit); retry after ${decision.retryAfter} s`,
    );
  }
  return new RateLimitedError(
    `rate limit exceeded: at most ${decision.limit} requests per minute and the burst limit per second; retry after ${decision.retryAfter} s`,
  );
}

/**
 * Counts the request against its caller's budgets (its key's, and its user's); answers 429 past one of
 * them (and calls `onRefusal`). Headers go on every answer.
 */
export function rateLimit(limits: RateLimits, subjectOf: (req: Request) => string | RateSubject, onRefusal: () => void = () => undefined) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await limits.consume(subjectOf(req));
    for (const [name, value] of rateLimitHeaders(decision)) res.setHeader(name, value);
    if (decision.allowed) return next();
    onRefusal();
    next(rateLimitedError(decision));
  };
}
