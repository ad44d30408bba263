import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { logger } from '../logging/logger';
import { requestIdOf } from './request-id';

/** How often the loop is sampled: a stall shows as a timer that fires this much later than due. */
const SAMPLE_INTERVAL_MS = 50;
/** Request ids named in one stall's log line at most. */
const MAX_NAMED_REQUESTS = 10;

/** One stall of the event loop: how long it lasted and the requests that were running when it began. */
export interface Stall {
  lagMs: number;
  requestIds: string[];
}

/**
 * Watches this process's event loop (one timer, whatever the number of applications): a sample that
 * fires `thresholdMs` or more late means the loop was blocked that long, and every request of every
 * tenant waited. The stall is logged with the ids of the requests that had started before it began;
 * the one whose work blocked the loop is among them (requests that arrived during the stall are only
 * read after it and are left out).
 */
class EventLoopMonitor {
  /** The requests in flight and when each started (performance.now()); id, method and URL are read from them at a stall. */
  private readonly inFlight = new Map<IncomingMessage, number>();
  private readonly listeners = new Set<(stall: Stall) => void>();
  private timer?: NodeJS.Timeout;
  private thresholdMs = Number.POSITIVE_INFINITY;

  /** Middleware: keeps the requests in flight (after `requestId`). */
  track = (req: Request, res: Response, next: NextFunction): void => {
    if (requestIdOf(req) !== undefined) {
      this.inFlight.set(req, performance.now());
      res.on('close', this.untrack);
    }
    next();
  };

  /** A response's 'close' listener, one for all requests ('close' is emitted once per response). */
  private readonly untrack = (() => {
    const inFlight = this.inFlight;
    return function (this: ServerResponse) {
      inFlight.delete(this.req);
    };
  })();

  /** Starts sampling (once per process); the lowest threshold asked for wins. */
  watch(thresholdMs: number, onStall: (stall: Stall) => void): () => void {
    this.thresholdMs = Math.min(this.thresholdMs, thresholdMs);
    this.listeners.add(onStall);
    this.timer ??= this.schedule(performance.now());
    return () => {
      this.listeners.delete(onStall);
      if (this.listeners.size > 0 || !this.timer) return;
      clearTimeout(this.timer);
      this.timer = undefined;
      this.thresholdMs = Number.POSITIVE_INFINITY;
    };
  }

  private schedule(from: number): NodeJS.Timeout {
    const due = from + SAMPLE_INTERVAL_MS;
    const timer = setTimeout(() => {
      const now = performance.now();
      const lagMs = now - due;
      if (lagMs >= this.thresholdMs) this.report(lagMs, now - lagMs);
      this.timer = this.schedule(now);
    }, SAMPLE_INTERVAL_MS);
    // Sampling never keeps a process alive.
    timer.unref();
    return timer;
  }

  private report(lagMs: number, stalledAt: number): void {
    const running = [...this.inFlight]
      .filter(([, startedAt]) => startedAt <= stalledAt)
      .slice(0, MAX_NAMED_REQUESTS)
      .map(([req]) => ({ requestId: requestIdOf(req)!, method: req.method!, url: (req as Request).originalUrl }));
    const stall = { lagMs: Math.round(lagMs), requestIds: running.map((r) => r.requestId) };
    logger.warn({ lagMs: stall.lagMs, requestIds: stall.requestIds, requests: running }, `event loop blocked for ${stall.lagMs} ms`);
    for (const listener of this.listeners) listener(stall);
  }
}

/** The process's monitor. */
export const eventLoopMonitor = new EventLoopMonitor();
