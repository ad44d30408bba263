import type { Request, RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '../errors/api-error';

/** Largest request body accepted, in bytes. */
export const BODY_LIMIT = '1mb';

/** The media types of a REST body: JSON, and JSON under a structured syntax suffix (RFC 6839: `application/merge-patch+json`). */
export const JSON_MEDIA_TYPES: readonly string[] = ['application/json', 'application/*+json'];
/** GraphQL-over-HTTP bodies: application/json, the one type its body reader parses. */
export const GRAPHQL_MEDIA_TYPES: readonly string[] = ['application/json'];

/** Whether the request carries content (RFC 9112 §6.3): a Transfer-Encoding, or a Content-Length above 0. */
function carriesBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0;
}

/**
 * Refuses (415) a body of another media type than `accepted` before reading it: a body declared as
 * `text/plain`, a form or nothing at all is not parsed as JSON on a guess (a form POST from a browser
 * page must not pass for an API call). A request without a body needs no Content-Type.
 */
export function requireJsonContent(accepted: readonly string[] = JSON_MEDIA_TYPES): RequestHandler {
  const wanted = accepted.join(' or ');
  return (req, _res, next) => {
    if (!carriesBody(req) || req.is([...accepted])) return next();
    const declared = req.headers['content-type']?.split(';')[0].trim().slice(0, 100);
    const sent = declared ? `has Content-Type ${declared}` : 'has no Content-Type';
    next(new UnsupportedMediaTypeError(`request body ${sent}: send it as ${wanted}`));
  };
}
