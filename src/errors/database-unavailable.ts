import { OutageLog } from '../logging/outage-log';
import { runOutsideRequests } from '../logging/request-scope';
import { ServiceUnavailableError } from './api-error';

/** What a client is asked to wait when the database cannot be reached: about the length of a database restart. */
export const DATABASE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Socket failures of reaching a server, or of a connection it had (node's `code`). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * admin_shutdown (a restart ends the sessions), crash_shutdown, cannot_connect_now (starting up or
 * shutting down), too_many_connections.
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|53300)$/;

/** What node-postgres, knex and MikroORM say of a connection that ended, or could not be had in time. */
const CONNECTION_MESSAGES =
  /^timeout expired$|Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Knex: Timeout acquiring a connection|Cannot use a pool after calling end/i;

/**
 * Whether `error` says the database (or any server a long-lived connection reaches) could not be
 * reached, or the connection was lost: a passing condition answered 503, never a defect. The cause is
 * looked for through the wrappers that carry it (`cause`, `originalError`, an AggregateError's list).
 */
export function isConnectionFailure(error: unknown): boolean {
  for (let hops = 0, current = error; hops < 8 && typeof current === 'object' && current !== null; hops++) {
    const { code, message, name, errors } = current as { code?: unknown; message?: unknown; name?: unknown; errors?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code))) return true;
    if (name === 'KnexTimeoutError' || name === 'ConnectionException') return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    if (Array.isArray(errors) && errors.some(isConnectionFailure)) return true;
    const wrapper = current as { cause?: unknown; originalError?: unknown };
    current = wrapper.cause ?? wrapper.originalError;
  }
  return false;
}

/**
 * The requests' side of a database outage: the first request that finds the database unreachable logs a
 * warning, the next ones log nothing above debug, and once `probe` (set by the application: a `select 1`)
 * succeeds again one info line says the database is back. Probed every PROBE_INTERVAL_MS while lost.
 */
class RequestsOutage {
  private readonly log = new OutageLog('database (requests)');
  private probe?: () => Promise<boolean>;
  private probing = false;

  /** How the application checks that the database answers again; undefined when it closes. */
  watchWith(probe: (() => Promise<boolean>) | undefined): void {
    this.probe = probe;
  }

  unreachable(error: unknown): void {
    this.log.lost(error);
    if (this.probe && !this.probing) {
      this.probing = true;
      // The request that noticed first only starts the probe: its lines are not that request's.
      runOutsideRequests(() => void this.probeUntilBack());
    }
  }

  /** One probe at a time (a probe may wait for a connection as long as a request does), a second apart. */
  private async probeUntilBack(): Promise<void> {
    try {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS).unref());
        const probe = this.probe;
        if (!probe) return;
        if (await probe().catch(() => false)) {
          this.log.restored();
          return;
        }
      }
    } finally {
      this.probing = false;
    }
  }
}

const PROBE_INTERVAL_MS = 1_000;

/** The one log of the database's outages as requests see them. */
export const requestsOutage = new RequestsOutage();

/** The 503 of a request that needed the database while it could not be reached (logged once per outage). */
export function databaseUnavailable(error: unknown): ServiceUnavailableError {
  requestsOutage.unreachable(error);
  return ServiceUnavailableError.withRetryAfter(
    'the database is unavailable (no connection within DATABASE_CONNECT_TIMEOUT_MS, or the connection was lost); retry later',
    DATABASE_UNAVAILABLE_RETRY_AFTER_SECONDS,
  );
}
