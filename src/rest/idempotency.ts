import { createHash } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { getOperationAST, parse } from 'graphql';
import { identityOf } from '../auth/authenticate';
import { BadRequestError, ConflictError, UnprocessableEntityError } from '../errors/api-error';
import { BODY_LIMIT, GRAPHQL_MEDIA_TYPES, requireJsonContent } from '../http/request-body';
import { IDEMPOTENCY_TTL_HOURS, type IdempotencyStore, type Lease, type StoredAnswer } from '../engine/idempotency';
import { logger } from '../logging/logger';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set (`true`) on an answer that was stored by an earlier request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 printable ASCII characters (space to tilde). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The headers of an answer that are stored and replayed with its status and body. */
const STORED_HEADERS = ['content-type', 'location', 'etag', 'allow'];

/** The bytes of GraphQL bodies, which the JSON reader below hands over parsed. */
const rawGraphqlBodies = new WeakMap<Request, Buffer>();

/** The same readers as the routers below (raw bytes for REST, JSON for GraphQL), run earlier: a body is read once. */
const readRaw = express.raw({ type: () => true, limit: BODY_LIMIT });
const readJson = express.json({ limit: BODY_LIMIT, verify: (req, _res, raw) => void rawGraphqlBodies.set(req as Request, raw) });
const jsonContent = requireJsonContent();
const graphqlContent = requireJsonContent(GRAPHQL_MEDIA_TYPES);

/**
 * Idempotent POSTs: a POST under /api, or a GraphQL mutation, sent with an `Idempotency-Key` header
 * runs once per caller and key; its answer (status, the headers that matter, body) is stored for
 * IDEMPOTENCY_TTL_HOURS and replayed to a repeat of the same request (`Idempotent-Replayed: true`).
 * The same key with another request (method, path and query, canonical body) is 422; a repeat while
 * the first still runs is 409. A 5xx answer (or a crash) stores nothing and frees the key, so a retry
 * runs; a streamed answer (text/event-stream) is never stored. Mounted after authentication: keys
 * are the caller's own.
 */
export function idempotency(store: IdempotencyStore): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.headers['idempotency-key'] === undefined) return next();
    const path = req.path.toLowerCase();
    // A body of another type is refused (415) before a key is claimed: a retry sent right must run.
    if (path.startsWith('/api/')) {
      return jsonContent(req, res, (refused?: unknown) => {
        if (refused) return next(refused);
        readRaw(req, res, (error?: unknown) => {
          if (error) return next(error);
          void idempotent(store, req, res, next, Buffer.isBuffer(req.body) ? req.body : undefined);
        });
      });
    }
    if (path.replace(/\/+$/, '') === '/graphql') {
      return graphqlContent(req, res, (refused?: unknown) => {
        if (refused) return next(refused);
        readJson(req, res, (error?: unknown) => {
          if (error) return next(error);
          // Queries are reads: the header is ignored.
          if (!isMutation(req.body)) return next();
          void idempotent(store, req, res, next, rawGraphqlBodies.get(req));
        });
      });
    }
    next();
  };
}

async function idempotent(store: IdempotencyStore, req: Request, res: Response, next: NextFunction, body: Buffer | undefined): Promise<void> {
  try {
    const key = req.headers['idempotency-key'] as string;
    if (!KEY_PATTERN.test(key)) throw BadRequestError.forField(IDEMPOTENCY_KEY_HEADER, 'must be 1 to 255 printable ASCII characters');
    const actor = identityOf(req).context?.actor;
    if (actor?.kind !== 'user') return next();
    const claim = await store.claim(actor.user.id, key, requestHash(req, body));
    switch (claim.kind) {
      case 'mismatch':
        throw new UnprocessableEntityError(
          `${IDEMPOTENCY_KEY_HEADER} "${key}" was used with another request (method, path or body) in the last ${IDEMPOTENCY_TTL_HOURS} hours: send a new key`,
        );
      case 'running':
        throw new ConflictError(`a request with ${IDEMPOTENCY_KEY_HEADER} "${key}" is still running: retry once it has answered`);
      case 'replay':
        return replay(res, claim.answer);
      case 'run':
        captureAnswer(store, res, claim.lease);
        return next();
    }
  } catch (error) {
    next(error);
  }
}

/** The stored answer again, marked as a replay. */
function replay(res: Response, answer: StoredAnswer): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.end(answer.body);
}

/**
 * Stores the answer `res` ends with before it leaves (so a client that got it and retries gets the
 * replay, never a 409), or frees the key when there is nothing to store: a 5xx answer, or a streamed
 * one (its first `write`).
 */
function captureAnswer(store: IdempotencyStore, res: Response, lease: Lease): void {
  const end = res.end;
  const write = res.write;
  const restore = () => {
    res.end = end;
    res.write = write;
  };
  const release = () => store.release(lease).catch((error: unknown) => logger.error({ err: error }, 'could not free an idempotency key'));
  res.write = function (this: Response, ...args: unknown[]) {
    restore();
    void release();
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Response['write'];
  res.end = function (this: Response, ...args: unknown[]) {
    restore();
    const answer: StoredAnswer = { status: res.statusCode, headers: storedHeaders(res), body: bodyOf(args) };
    const streamed = /^text\/event-stream/i.test(answer.headers['content-type'] ?? '');
    const settled =
      answer.status >= 500 || streamed
        ? release()
        : store.complete(lease, answer).catch((error: unknown) => {
            logger.error({ err: error }, 'could not store an idempotent answer');
            return release();
          });
    void settled.finally(() => (end as (...a: unknown[]) => Response).apply(res, args));
    return res;
  } as Response['end'];
}

function storedHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** The body of `res.end(chunk?, encoding?, callback?)`. */
function bodyOf(args: unknown[]): Buffer {
  const [chunk, encoding] = args;
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return Buffer.alloc(0);
}

/** SHA-256 of the method, the path with its query string and the canonical body. */
function requestHash(req: Request, body: Buffer | undefined): string {
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${canonicalBody(body)}`)
    .digest('hex');
}

/**
 * JSON with the keys of every object sorted and no white space, so that two encodings of one value
 * are the same request; a body that is not JSON (or nests too deep to walk) is compared as sent.
 */
function canonicalBody(body: Buffer | undefined): string {
  const text = body?.toString('utf8') ?? '';
  if (text.trim() === '') return '';
  try {
    return `json:${canonicalJson(JSON.parse(text))}`;
  } catch {
    return `raw:${text}`;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether a GraphQL request body names a mutation (an unparsable one is left to the GraphQL endpoint to refuse). */
function isMutation(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const { query, operationName } = body as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return false;
  try {
    return getOperationAST(parse(query), typeof operationName === 'string' ? operationName : undefined)?.operation === 'mutation';
  } catch {
    return false;
  }
}
