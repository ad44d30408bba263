import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { runAsRequest } from '../logging/request-scope';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A caller's request id is kept when it is 1 to 128 characters of letters, digits and `.` `_` `:` `-`. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

export function isWellFormedRequestId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value);
}

declare module 'http' {
  interface IncomingMessage {
    /** Set by `requestId`. */
    id?: string;
  }
}

/** The id given to a request by `requestId`. */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return typeof req.id === 'string' ? req.id : undefined;
}

/**
 * Gives every request an id: the caller's `X-Request-Id` when it is well-formed, else a new UUID. The
 * answer carries it in `X-Request-Id`, and the rest of the request runs with it as the current one.
 */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  // The header read directly: `req.get` lowercases the name and special-cases Referer on every call.
  const sent = req.headers['x-request-id'];
  const id = isWellFormedRequestId(sent) ? sent : randomUUID();
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  runAsRequest(id, next);
}
