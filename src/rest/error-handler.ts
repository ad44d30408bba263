import type { NextFunction, Request, Response } from 'express';
import { type ApiError, BadRequestError, InternalError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError } from '../errors/api-error';
import { markRefusal } from '../http/access-log';
import { normalizeError } from '../errors/normalize-error';
import { openAiErrorBody } from '../errors/openai-error';
import { isAiGatewayPath } from '../modules/ai/ai-gateway';

/**
 * Every error raised outside a GraphQL operation leaves here: `{error, message, status}` JSON for REST,
 * a GraphQL error list for /graphql (refused credentials, rate limits); never a stack trace. On the AI
 * gateway's paths the body is the one OpenAI clients read (`error` an object), and every error but a
 * passing failure of a provider says `x-should-retry: false`: those clients otherwise retry 409, 429
 * and 5xx answers on their own.
 */
export function errorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const apiError = normalizeError(clientErrorOf(error));
  const forOpenAiClients = isAiGatewayPath(req.originalUrl);
  if (apiError instanceof MethodNotAllowedError) res.set('Allow', apiError.allow.join(', '));
  if (apiError.retryAfter !== undefined) res.set('Retry-After', String(apiError.retryAfter));
  if (forOpenAiClients && !apiError.retryable) res.set('x-should-retry', 'false');
  // Everything but a hidden failure (500) is an answer the documentation describes: not a server error in the log.
  if (!(apiError instanceof InternalError)) markRefusal(res, apiError.message);
  res.status(apiError.status).json(errorBody(req, apiError, forOpenAiClients));
}

function errorBody(req: Request, error: ApiError, forOpenAiClients: boolean): unknown {
  if (isGraphqlRequest(req)) return { errors: [error.toGraphqlError()] };
  return forOpenAiClients ? openAiErrorBody(error) : error.toBody();
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
