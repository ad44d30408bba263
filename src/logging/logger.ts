import pino, { type DestinationStream } from 'pino';
import { isLogLevel, type LogLevel } from './levels';
import { currentRequestId } from './request-scope';

/** Where credentials could appear in a logged object: never written (the access log logs no headers at all). */
const REDACTED_PATHS = ['req.headers["x-api-key"]', 'req.headers["x-access-token"]', 'req.headers.authorization', 'req.headers.cookie'];

/**
 * A structured logger writing to `destination` (standard output by default); credentials never reach it
 * (see redact). A line written while a request is being answered carries its `requestId`.
 */
export function createLogger(destination?: DestinationStream, level: LogLevel = defaultLevel()): pino.Logger {
  return pino({ level, redact: REDACTED_PATHS, mixin: requestIdField }, destination);
}

function requestIdField(): { requestId?: string } {
  const requestId = currentRequestId();
  return requestId === undefined ? {} : { requestId };
}

/**
 * LOG_LEVEL, else `silent` under tests and `info` otherwise. A level pino does not know is left for the
 * configuration to refuse (the start stops, naming LOG_LEVEL and its levels): the logger is created
 * when this module loads, and must not throw there.
 */
function defaultLevel(): LogLevel {
  const configured = process.env.LOG_LEVEL?.trim();
  if (configured && isLogLevel(configured)) return configured;
  return process.env.NODE_ENV === 'test' && !configured ? 'silent' : 'info';
}

/** The one process-wide logger. */
export const logger = createLogger();
