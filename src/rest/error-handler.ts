import type { NextFunction, Request, Response } from 'express';
import { BadRequestError, NotFoundError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';

/**
 * Every error raised outside a GraphQL operation leaves here: `{error, message, status}` JSON for REST,
 * a GraphQL error list for /graphql (refused credentials, rate limits); never a stack trace.
 */
export function errorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const apiError = normalizeError(isBodyParserError(error) ? new BadRequestError(bodyParserMessage(error)) : error);
  res.status(apiError.status).json(isGraphqlRequest(req) ? { errors: [apiError.toGraphqlError()] } : apiError.toBody());
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
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).type === 'string' && 'status' in error;
}

function bodyParserMessage(error: BodyParserError): string {
  return error.type === 'entity.too.large' ? 'request body is too large' : `request body could not be read: ${error.message}`;
}
