import { createHash } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import { entityTag, listedTags } from '../model/entity-tag';
import type { IfMatch } from '../engine/resource-service';

type Versioned = { id: string; changeSequence: number };

/**
 * Marks an answer with its ETag and, when the request's `If-None-Match` names that tag (compared
 * weakly, RFC 9110 §13.1.2, whatever its Cache-Control says: this is the origin), answers 304 with no
 * body. True when it did: the caller has nothing left to send.
 */
function answeredNotModified(req: Request, res: Response, tag: string): boolean {
  res.set('ETag', tag);
  const header = req.get('if-none-match');
  if (header === undefined) return false;
  const listed = listedTags(header);
  const opaque = (t: string) => t.replace(/^W\//, '');
  if (listed !== '*' && !listed.some((t) => opaque(t) === opaque(tag))) return false;
  res.status(304).end();
  return true;
}

/** A row's strong ETag on its answer; true when the answer was 304 (`If-None-Match` names it). */
export function rowNotModified(req: Request, res: Response, row: Versioned): boolean {
  return answeredNotModified(req, res, entityTag(row.id, row.changeSequence));
}

/**
 * Answers a page (its JSON text) with a weak ETag over its bytes, or 304 when `If-None-Match` names it:
 * the tag moves with anything the answer shows (a row, the total, an embedded object), whichever way
 * the text was written.
 */
export function sendPage(req: Request, res: Response, body: string): void {
  if (answeredNotModified(req, res, `W/"${createHash('sha1').update(body).digest('base64url')}"`)) return;
  res.type('json').send(body);
}

/** A written row's strong ETag on its answer (the tag a next `If-Match` names). */
export function tagRow(res: Response, row: Versioned): void {
  res.set('ETag', entityTag(row.id, row.changeSequence));
}

/** The write's `If-Match` precondition, if the request has one. */
export function ifMatchOf(req: Request): IfMatch | undefined {
  const header = req.get('if-match');
  return header === undefined ? undefined : listedTags(header);
}

/**
 * Only the answers tagged here carry an ETag and answer 304: Express's automatic weak ETag (over the
 * body, on every method) would otherwise tag the answers this module does not (a create's, before
 * the row's tag was set) and its freshness check would answer 304 to `If-None-Match: *` on any GET.
 * Static files (express.static, sendFile) keep their own validators.
 */
export function onlyExplicitValidators(app: Express): void {
  app.set('etag', false);
  Object.defineProperty(app.request, 'fresh', { configurable: true, get: () => false });
}

/**
 * A JSON answer fixed for the process's life (the OpenAPI document): serialized once, with a strong
 * ETag over its bytes, and 304 while `If-None-Match` names it.
 */
export function fixedJsonAnswer(value: unknown): RequestHandler {
  const body = Buffer.from(JSON.stringify(value));
  const tag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  return (req, res) => {
    if (answeredNotModified(req, res, tag)) return;
    res.type('json').send(body);
  };
}
