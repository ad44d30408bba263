import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { logger } from './logger';
import { requestIdOf } from './request-id';

/** Probes that would fill the log: answered, never logged. */
const UNLOGGED_PATHS = new Set(['/health', '/health/live']);

/** The request's id on its line, also when the line is written after the request's own work has ended. */
function withRequestId(req: IncomingMessage, _res: ServerResponse, fields: object): object {
  return { ...fields, requestId: requestIdOf(req) };
}

/**
 * One line per answered request (method, path, status, time, requestId); credentials are redacted by
 * the logger and request bodies are never logged. Health probes are left out.
 */
export const accessLog = pinoHttp({
  logger,
  autoLogging: { ignore: (req: IncomingMessage) => UNLOGGED_PATHS.has(req.url ?? '') },
  customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  customSuccessObject: withRequestId,
  customErrorObject: (req: IncomingMessage, res: ServerResponse, _error: Error, fields: object) => withRequestId(req, res, fields),
  serializers: {
    req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
    res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
  },
});
