import { parentPort, workerData } from 'node:worker_threads';

/**
 * The load generator of `npm run bench`, run on a worker thread so that sending requests stays off the
 * event loop of the server under test. Each job is one run against one target: a warm-up phase, then
 * (when the parent answers `go`, after it has read its statement counters) the measured phase.
 */

/** One request of a case, prepared in advance; `__N__` in the body becomes a number unique to the run. */
export interface PlannedRequest {
  method: string;
  path: string;
  body?: string;
  /** Sent beside the job's headers. */
  headers?: Record<string, string>;
}

export interface LoadJob {
  base: string;
  headers: Record<string, string>;
  /** Sent in turn, from the first, over and over until the time is up. */
  requests: PlannedRequest[];
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** First value of `__N__`; the parent gives every run its own range. */
  counterStart: number;
}

export interface LoadResult {
  /** Requests answered with 2xx in the measured phase. */
  requests: number;
  /** From the start of the phase until its last answer. */
  seconds: number;
  /** Milliseconds, one per answered request. */
  latencies: number[];
  /** The first failure (non-2xx answer, network error, timeout); the phase stops at once. */
  failure?: string;
}

export type LoadMessage = { type: 'warm' } | { type: 'done'; result: LoadResult };

/** No single request may hang a run. */
const REQUEST_TIMEOUT_MS = 30_000;

/** `connections` loops, each sending its next request as soon as the previous one is answered. */
async function phase(job: LoadJob, seconds: number, counter: { n: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let failure: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: job.connections }, async () => {
      while (failure === undefined && performance.now() < deadline) {
        const n = counter.n++;
        const planned = job.requests[n % job.requests.length];
        const t0 = performance.now();
        try {
          const response = await fetch(`${job.base}${planned.path}`, {
            method: planned.method,
            headers: planned.headers ? { ...job.headers, ...planned.headers } : job.headers,
            body: planned.body?.replaceAll('__N__', String(job.counterStart + n)),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const text = await response.text();
          if (!response.ok) {
            failure ??= `${planned.method} ${planned.path} answered ${response.status}: ${text.slice(0, 300)}`;
            return;
          }
          latencies.push(performance.now() - t0);
        } catch (error) {
          failure ??= `${planned.method} ${planned.path} failed: ${(error as Error).message}`;
          return;
        }
      }
    }),
  );
  return { requests: latencies.length, seconds: (performance.now() - started) / 1000, latencies, failure };
}

async function run(port: NonNullable<typeof parentPort>, job: LoadJob): Promise<void> {
  const counter = { n: 0 };
  const warm = await phase(job, job.warmupSeconds, counter);
  if (warm.failure) {
    port.postMessage({ type: 'done', result: warm } satisfies LoadMessage);
    return;
  }
  port.once('message', () => {
    void phase(job, job.seconds, counter).then((result) => port.postMessage({ type: 'done', result } satisfies LoadMessage));
  });
  port.postMessage({ type: 'warm' } satisfies LoadMessage);
}

if (parentPort) void run(parentPort, workerData as LoadJob);
