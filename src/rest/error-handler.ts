import type { NextFunction, Request, Response } from 'express';
import { BadRequestError, NotFoundError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';

/** Every REST error leaves here as `{error, message, status}` JSON; never a stack trace. */
export function errorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const apiError = normalizeError(isBodyParserError(error) ? new BadRequestError(bodyParserMessage(error)) : error);
  res.status(apiError.status).json(apiError.toBody());
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
