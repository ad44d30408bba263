import {
  ForeignKeyConstraintViolationException,
  NotNullConstraintViolationException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { ApiError, BadRequestError, ConflictError, InternalError } from './api-error';
import { logger } from '../http/logger';

/** Turns anything thrown below an adapter into an ApiError; unknown failures are logged and hidden. */
export function normalizeError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof UniqueConstraintViolationException) {
    return new ConflictError(`a resource with the same unique key exists (${describeConstraint(error)})`);
  }
  if (error instanceof ForeignKeyConstraintViolationException) {
    return new BadRequestError(`reference to a non-existent record (${describeConstraint(error)})`);
  }
  if (error instanceof NotNullConstraintViolationException) {
    return new BadRequestError(`a required field is missing (${describeConstraint(error)})`);
  }
  logger.error({ err: error }, 'unhandled error');
  return new InternalError('internal server error');
}

function describeConstraint(error: Error & { detail?: string; constraint?: string }): string {
  return error.detail ?? error.constraint ?? 'constraint';
}
