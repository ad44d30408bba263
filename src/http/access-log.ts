import type { NextFunction, Request, Response } from 'express';
import { logger } from '../logging/logger';
import { requestIdOf } from './request-id';

/** Probes that would fill the log: answered, never logged. */
const UNLOGGED_PATHS = new Set(['/health', '/health/live']);

/** When the request reached the access log (epoch ms, as `responseTime` has always been counted). */
const STARTED = Symbol('accessLogStarted');
type Timed = Response & { [STARTED]?: number };

/**
 * One line per answered request (method, path, status, time, requestId), written when the answer is
 * finished or the connection closes; credentials are redacted by the logger and request bodies are
 * never logged. Health probes are left out. A line says `request completed`, or `request errored` at
 * level error for a 5xx or a failed answer. A 503 with Retry-After is a documented refusal (the database
 * unreachable, a statement past its timeout), logged as completed: its cause is logged once where it is
 * known, and an outage under load would otherwise write an error line per request. Written directly (no per-request child logger or
 * serializer): the line costs less than the read it logs.
 */
export function accessLog(req: Request, res: Response, next: NextFunction): void {
  (res as Timed)[STARTED] = Date.now();
  // One listener shared by every request (no closure each); 'error' on every answer.
  if (!UNLOGGED_PATHS.has(req.url)) res.on('close', logAnswer).on('finish', logAnswer);
  res.on('error', logAnswer);
  next();
}

function logAnswer(this: Timed, error?: Error): void {
  this.removeListener('close', logAnswer);
  this.removeListener('finish', logAnswer);
  this.removeListener('error', logAnswer);
  const failed = error !== undefined || (this.statusCode >= 500 && !isDocumentedRefusal(this));
  const level = failed ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const req = this.req as Request;
  const fields: Record<string, unknown> = {
    req: { method: req.method, url: req.originalUrl },
    res: { statusCode: this.headersSent ? this.statusCode : null },
    responseTime: Date.now() - this[STARTED]!,
    requestId: requestIdOf(req),
  };
  if (!failed) return logger.info(fields, 'request completed');
  fields.err = error ?? new Error(`failed with status code ${this.statusCode}`);
  logger.error(fields, 'request errored');
}

/** A 503 that tells the client when to retry: the server refused on purpose, nothing failed. */
function isDocumentedRefusal(res: Response): boolean {
  return res.statusCode === 503 && res.hasHeader('retry-after');
}
