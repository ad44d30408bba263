import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being answered, for everything that runs on its behalf (log lines above all). */
const current = new AsyncLocalStorage<{ requestId: string }>();

/** The id of the request whose work is running, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore()?.requestId;
}

/** Runs `work` (and everything it starts) as the request `requestId`'s. */
export function runAsRequest(requestId: string, work: () => void): void {
  current.run({ requestId }, work);
}

/** Runs `work` (and everything it starts) as no request's: background work a request only happened to start. */
export function runOutsideRequests<T>(work: () => T): T {
  return current.exit(work);
}
