import { parentPort, workerData } from 'node:worker_threads';

/** One request of a scenario, prepared in advance so the load thread only sends. */
export interface PlannedRequest {
  method: string;
  path: string;
  body?: unknown;
}

export interface LoadJob {
  base: string;
  headers: Record<string, string>;
  requests: PlannedRequest[];
  concurrency: number;
}

export interface LoadResult {
  seconds: number;
  latencies: number[];
  failures: string[];
}

/** Sends the planned requests, `concurrency` at a time, on its own thread (off the server's event loop). */
async function run(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < job.requests.length) {
        const request = job.requests[next++];
        const t0 = performance.now();
        const response = await fetch(`${job.base}${request.path}`, {
          method: request.method,
          headers: job.headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (!response.ok) failures.push(`${request.method} ${request.path} answered ${response.status}`);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies, failures };
}

if (parentPort) {
  void run(workerData as LoadJob).then((result) => parentPort!.postMessage(result));
}
