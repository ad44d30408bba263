import type { NextFunction, Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUsage } from '../database/pool-usage';
import type { Stall } from './event-loop-monitor';
import type { JobCounts } from '../jobs/job-queue';
import { logger } from '../logging/logger';
import { routeTemplateOf } from './route-label';

/** What the gauges read at scrape time. */
export interface MetricSources {
  /** Database connection pools by name (`orm`, `read`). */
  pools: Record<string, () => PoolUsage>;
  /** The job queue's jobs by state. */
  jobs: () => Promise<JobCounts>;
  /** Data-lake records written and given up on since the process started. */
  lakeWrites: () => { written: number; failed: number };
  /** Hot reads by where they went (`primary`, `replica-0` ...): only with read replicas. */
  readTargets?: () => Record<string, number>;
}

type HttpLabel = 'method' | 'route' | 'status';

/** When the request reached `observe` (performance.now(): no BigInt per request). */
const STARTED = Symbol('metricsStarted');
type Timed = Response & { [STARTED]?: number };

/** The `status` label of an answer the client did not wait for (nginx's code for it). */
const CLIENT_CLOSED_REQUEST = '499';

/** Seconds; the hot reads answer in about a millisecond, so the low buckets are finer than prom-client's. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Seconds; a stall is only recorded past the logging threshold (200 ms by default). */
const STALL_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Node's process metrics (CPU, memory, event loop, GC), registered once per process whatever the number of apps. */
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The metrics of one application, served at GET /metrics in Prometheus's text format. */
export class Metrics {
  private readonly registry = new Registry();
  private readonly requests = new Counter<HttpLabel>({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram<HttpLabel>({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly stalls = new Histogram({
    name: 'event_loop_stall_seconds',
    help: 'Stalls of the event loop at least EVENT_LOOP_STALL_LOG_MS long (every request waits through one), by length',
    buckets: STALL_BUCKETS,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 by the rate limits',
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    this.poolGauges(sources.pools);
    this.jobGauge(sources.jobs);
    this.lakeCounter(sources.lakeWrites);
    if (sources.readTargets) this.readCounter(sources.readTargets);
  }

  /**
   * Middleware: counts and times every request by method, route template (see trackRouteTemplates, which
   * the application installs) and status.
   */
  observe = (_req: Request, res: Response, next: NextFunction): void => {
    (res as Timed)[STARTED] = performance.now();
    res.on('close', this.record);
    next();
  };

  /** A response's 'close' listener, one for all requests ('close' is emitted once per response). */
  private readonly record = (() => {
    const { requests, latency } = this;
    return function (this: Timed) {
      const req = this.req as Request;
      const labels = { method: req.method, route: routeTemplateOf(req), status: this.writableFinished ? String(this.statusCode) : CLIENT_CLOSED_REQUEST };
      requests.inc(labels);
      latency.observe(labels, (performance.now() - this[STARTED]!) / 1000);
    };
  })();

  /** Records one stall of the event loop. */
  eventLoopStalled = (stall: Stall): void => {
    this.stalls.observe(stall.lagMs / 1000);
  };

  /** Counts one request refused by the rate limits. */
  rateLimitRefused = (): void => {
    this.refusals.inc();
  };

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** GET /metrics: the exposition text, never cached. */
  serve = async (_req: Request, res: Response): Promise<void> => {
    const text = await this.text();
    res.set('Content-Type', this.contentType).set('Cache-Control', 'no-store').send(text);
  };

  /** The exposition text: the process metrics, then the application's. */
  text(): Promise<string> {
    return Registry.merge([processMetrics(), this.registry]).metrics();
  }

  private poolGauges(pools: MetricSources['pools']): void {
    const gauge = (name: string, help: string, read: (usage: PoolUsage) => number) => {
      const metric: Gauge<'pool'> = new Gauge<'pool'>({
        name,
        help,
        labelNames: ['pool'],
        registers: [this.registry],
        collect: () => {
          for (const [pool, usageOf] of Object.entries(pools)) metric.set({ pool }, read(usageOf()));
        },
      });
    };
    gauge('db_pool_connections_in_use', 'Database connections lent out, by pool', (usage) => usage.inUse);
    gauge('db_pool_connections_waiting', 'Queries waiting for a database connection, by pool', (usage) => usage.waiting);
  }

  private lakeCounter(read: MetricSources['lakeWrites']): void {
    const writes: Counter<'result'> = new Counter<'result'>({
      name: 'data_lake_writes_total',
      help: 'Data-lake records written (result="written") and given up on after every attempt (result="failed")',
      labelNames: ['result'],
      registers: [this.registry],
      // The lake counts; the counter shows its figures as they are when scraped.
      collect: () => {
        const counts = read();
        writes.reset();
        writes.inc({ result: 'written' }, counts.written);
        writes.inc({ result: 'failed' }, counts.failed);
      },
    });
  }

  private readCounter(read: NonNullable<MetricSources['readTargets']>): void {
    const reads: Counter<'target'> = new Counter<'target'>({
      name: 'database_reads_total',
      help: 'Hot reads (items, pages, counts, nested levels) by where they went: the primary or a replica (replica-0 ...)',
      labelNames: ['target'],
      registers: [this.registry],
      collect: () => {
        reads.reset();
        for (const [target, count] of Object.entries(read())) reads.inc({ target }, count);
      },
    });
  }

  private jobGauge(jobs: MetricSources['jobs']): void {
    const depth: Gauge<'state'> = new Gauge<'state'>({
      name: 'job_queue_depth',
      help: 'Jobs in the job queue, by state: waiting (retries included), running, failed (no attempt left); absent when the database cannot be read',
      labelNames: ['state'],
      registers: [this.registry],
      collect: async () => {
        depth.reset();
        try {
          for (const [state, count] of Object.entries(await jobs())) depth.set({ state }, count);
        } catch (error) {
          logger.warn({ err: error }, 'metrics: could not count the jobs of the queue');
        }
      },
    });
  }
}
