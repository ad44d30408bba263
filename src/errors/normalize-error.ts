import { ForeignKeyConstraintViolationException, NotNullConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { ApiError, BadRequestError, ConflictError, InternalError, ServiceUnavailableError } from './api-error';
import { logger } from '../logging/logger';
import { databaseUnavailable, isConnectionFailure } from './database-unavailable';

/** SQLSTATE query_canceled: PostgreSQL cancelled the statement, which ran past the statement timeout (DATABASE_STATEMENT_TIMEOUT_MS). */
const QUERY_CANCELED = '57014';
/** What a client whose statement was cancelled is asked to wait: the database was busy, or the rows locked, for the whole timeout. */
export const STATEMENT_TIMEOUT_RETRY_AFTER_SECONDS = 5;

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
  // Both the ORM's exceptions and node-postgres's errors (the read pool) carry the SQLSTATE as `code`.
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED) {
    logger.warn({ err: error }, 'a statement ran past the statement timeout and was cancelled');
    return ServiceUnavailableError.withRetryAfter(
      'the request took too long in the database and was cancelled; retry later',
      STATEMENT_TIMEOUT_RETRY_AFTER_SECONDS,
    );
  }
  // The database (or the connection to it) is away: a passing condition, logged once per outage.
  if (isConnectionFailure(error)) return databaseUnavailable(error);
  logger.error({ err: error }, 'unhandled error');
  return new InternalError('internal server error');
}

function describeConstraint(error: Error & { detail?: string; constraint?: string }): string {
  return error.detail ?? error.constraint ?? 'constraint';
}
