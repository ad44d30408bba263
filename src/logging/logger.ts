import pino, { type DestinationStream, type Level } from 'pino';
import { currentRequestId } from './request-scope';

/** Where credentials could appear in a logged object: never written (the access log logs no headers at all). */
const REDACTED_PATHS = ['req.headers["x-api-key"]', 'req.headers["x-access-token"]', 'req.headers.authorization', 'req.headers.cookie'];

/**
 * A structured logger writing to `destination` (standard output by default); credentials never reach it
 * (see redact). A line written while a request is being answered carries its `requestId`.
 */
export function createLogger(destination?: DestinationStream, level: Level | 'silent' = defaultLevel()): pino.Logger {
  return pino({ level, redact: REDACTED_PATHS, mixin: requestIdField }, destination);
}

function requestIdField(): { requestId?: string } {
  const requestId = currentRequestId();
  return requestId === undefined ? {} : { requestId };
}

function defaultLevel(): Level | 'silent' {
  return (process.env.LOG_LEVEL as Level | undefined) ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info');
}

/** The one process-wide logger. */
export const logger = createLogger();
