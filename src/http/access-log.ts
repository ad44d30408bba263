import type { NextFunction, Request, Response } from 'express';
import { logger } from '../logging/logger';
import { requestIdOf } from './request-id';

/** Probes that would fill the log: answered, never logged. */
const UNLOGGED_PATHS = new Set(['/health', '/health/live']);

/** When the request reached the access log (epoch ms, as `responseTime` has always been counted). */
const STARTED = Symbol('accessLogStarted');
type Timed = Response & { [STARTED]?: number };

/** Set on an answer that refuses the request on purpose (an error the documentation describes): its reason. */
const REFUSAL = Symbol('accessLogRefusal');
type Refused = Response & { [REFUSAL]?: string };

/**
 * Marks the answer as a deliberate refusal (a 4xx, or a 503 such as "embed tokens are disabled"): the
 * access log writes it at warn with its reason, never at error with a stack. Anything else that ends in
 * a 5xx is a failure of the server, logged at error.
 */
export function markRefusal(res: Response, reason: string): void {
  (res as Refused)[REFUSAL] = reason;
}

/**
 * One line per answered request (method, path, client address, status, time, requestId), written when
 * the answer is finished or the connection closes; credentials are redacted by the logger and request
 * bodies are never logged. Health probes are left out. A line says `request completed`; a 5xx refusal
 * marked by markRefusal says `request refused` at warn with its reason; any other 5xx or failed answer
 * says `request errored` at error; a 503 with Retry-After is `request completed`. The client address is `req.ip`: the socket's, or with TRUST_PROXY the
 * one X-Forwarded-For gives. Written directly (no per-request child logger or serializer): the line
 * costs less than the read it logs.
 */
export function accessLog(req: Request, res: Response, next: NextFunction): void {
  (res as Timed)[STARTED] = Date.now();
  // One listener shared by every request (no closure each); 'error' on every answer.
  if (!UNLOGGED_PATHS.has(req.url)) res.on('close', logAnswer).on('finish', logAnswer);
  res.on('error', logAnswer);
  next();
}

function logAnswer(this: Timed & Refused, error?: Error): void {
  this.removeListener('close', logAnswer);
  this.removeListener('finish', logAnswer);
  this.removeListener('error', logAnswer);
  const level = levelOf(this, error);
  if (!logger.isLevelEnabled(level)) return;
  const req = this.req as Request;
  const fields: Record<string, unknown> = {
    req: { method: req.method, url: req.originalUrl, remoteAddress: req.ip },
    res: { statusCode: this.headersSent ? this.statusCode : null },
    responseTime: Date.now() - this[STARTED]!,
    requestId: requestIdOf(req),
  };
  if (level === 'info') return logger.info(fields, 'request completed');
  if (level === 'warn') return logger.warn({ ...fields, reason: this[REFUSAL] }, 'request refused');
  fields.err = error ?? new Error(`failed with status code ${this.statusCode}`);
  logger.error(fields, 'request errored');
}

function levelOf(res: Timed & Refused, error: Error | undefined): 'info' | 'warn' | 'error' {
  if (error !== undefined) return 'error';
  if (res.statusCode < 500 || isRetryLater(res)) return 'info';
  return res[REFUSAL] !== undefined ? 'warn' : 'error';
}

/**
 * A 503 that tells the client when to retry (the database unreachable, a statement past its timeout):
 * its cause is logged once where it is known, and an outage under load would otherwise write a line
 * above info per request.
 */
function isRetryLater(res: Response): boolean {
  return res.statusCode === 503 && res.hasHeader('retry-after');
}
