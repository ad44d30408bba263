import type { NextFunction, Request, Response } from 'express';
import { BadRequestError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';

/**
 * Every error raised outside a GraphQL operation leaves here: `{error, message, status}` JSON for REST,
 * a GraphQL error list for /graphql (refused credentials, rate limits); never a stack trace.
 */
export function errorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const apiError = normalizeError(clientErrorOf(error));
  if (apiError instanceof MethodNotAllowedError) res.set('Allow', apiError.allow.join(', '));
  if (apiError instanceof ServiceUnavailableError && apiError.retryAfter !== undefined) res.set('Retry-After', String(apiError.retryAfter));
  res.status(apiError.status).json(isGraphqlRequest(req) ? { errors: [apiError.toGraphqlError()] } : apiError.toBody());
}

/** Failures of Express and its body parser to read the request are the client's. */
function clientErrorOf(error: unknown): unknown {
  if (isBodyParserError(error) && error.type === 'entity.too.large')
    return new PayloadTooLargeError(`request body is larger than the limit of ${megabytes(error.limit)}`);
  if (isBodyParserError(error)) return new BadRequestError(`request body could not be read: ${error.message}`);
  if (isPathDecodingError(error)) return new BadRequestError('a path parameter is not valid percent-encoded UTF-8');
  return error;
}

/** The router decodes path parameters with decodeURIComponent and marks what it cannot decode (`%ff`, `%`, `%c0%af`) 400. */
function isPathDecodingError(error: unknown): error is URIError {
  return error instanceof URIError && (error as URIError & { status?: unknown }).status === 400;
}

function isGraphqlRequest(req: Request): boolean {
  return req.path === '/graphql' || req.originalUrl.startsWith('/graphql');
}

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError(`no route for ${req.method} ${req.path}`));
}

interface BodyParserError {
  type: string;
  status: number;
  message: string;
  /** The route's limit in bytes (entity.too.large). */
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).type === 'string' && 'status' in error;
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? 'this route' : `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
