import { STATUS_CODES } from 'node:http';

/** Codes shared by REST bodies and GraphQL `extensions.code`. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNPROCESSABLE_ENTITY'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'BAD_GATEWAY'
  | 'GATEWAY_TIMEOUT'
  | 'INTERNAL';

export interface FieldIssue {
  field: string;
  message: string;
}

/** Base of every error the API answers with; mapped once to HTTP (rest/error-handler) and GraphQL (graphql/errors). */
export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract readonly code: ErrorCode;
  /** Seconds after which the same request may succeed: the `Retry-After` header (REST), `extensions.retryAfter` (GraphQL). */
  retryAfter?: number;
  /**
   * Whether the same request, sent again, may be answered otherwise: set for the passing failures of an
   * upstream (its 429 or 5xx, a broken connection). The AI gateway's answers tell clients not to retry
   * any other error automatically (`x-should-retry: false`).
   */
  retryable = false;

  constructor(
    message: string,
    readonly details?: FieldIssue[],
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  toBody(): Record<string, unknown> {
    return {
      error: STATUS_CODES[this.status] ?? 'Error',
      message: this.message,
      status: this.status,
      ...(this.details?.length ? { details: this.details } : {}),
      ...this.extra,
    };
  }

  /** The same error as one entry of a GraphQL `errors` list. */
  toGraphqlError(): { message: string; extensions: Record<string, unknown> } {
    return {
      message: this.message,
      extensions: {
        code: this.code,
        status: this.status,
        ...(this.details?.length ? { details: this.details } : {}),
        ...this.extra,
        ...(this.retryAfter === undefined ? {} : { retryAfter: this.retryAfter }),
      },
    };
  }
}

export class BadRequestError extends ApiError {
  readonly status = 400;
  readonly code = 'BAD_REQUEST';

  static forField(field: string, message: string): BadRequestError {
    return new BadRequestError(`${field}: ${message}`, [{ field, message }]);
  }

  static forFields(issues: FieldIssue[]): BadRequestError {
    return new BadRequestError(issues.map((i) => `${i.field}: ${i.message}`).join('; '), issues);
  }
}

/**
 * A call to another service the egress guard refuses (services/egress): nothing was sent to the target.
 * `reasonWithoutAddress` says the same without the address a host name resolved to, for a record readers
 * other than the one who chose the target can see (a webhook delivery's `lastError`).
 */
export class EgressDeniedError extends BadRequestError {
  constructor(
    readonly reason: string,
    readonly reasonWithoutAddress = reason,
  ) {
    super(`service bridge egress denied: ${reason}`);
  }
}

export class UnauthenticatedError extends ApiError {
  readonly status = 401;
  readonly code = 'UNAUTHENTICATED';
}

export class ForbiddenError extends ApiError {
  readonly status = 403;
  readonly code = 'FORBIDDEN';
}

export class NotFoundError extends ApiError {
  readonly status = 404;
  readonly code = 'NOT_FOUND';
}

/** The path does not serve the request's method; `allow` lists the methods it serves (the `Allow` header). */
export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  readonly code = 'METHOD_NOT_ALLOWED';

  constructor(
    message: string,
    readonly allow: string[],
  ) {
    super(message);
  }
}

/**
 * The answer's media types are none the request accepts (a list asked for CSV: its export answers that).
 * The code is GraphQL over HTTP's for its own 406 (graphql/over-http.ts).
 */
export class NotAcceptableError extends ApiError {
  readonly status = 406;
  readonly code = 'BAD_REQUEST';
}

export class ConflictError extends ApiError {
  readonly status = 409;
  readonly code = 'CONFLICT';
}

export class StaleChangeSequenceError extends ConflictError {
  constructor(currentChangeSequence: number, sent: number) {
    super(`changeSequence ${sent} is stale; the current changeSequence is ${currentChangeSequence}`, undefined, {
      currentChangeSequence,
    });
  }
}

/** An `If-Match` that names no current version of the row (412), with the version it is at. */
export class PreconditionFailedError extends ApiError {
  readonly status = 412;
  readonly code = 'PRECONDITION_FAILED';

  constructor(currentChangeSequence: number, currentTag: string) {
    super(`If-Match names no current version of this row: it is at changeSequence ${currentChangeSequence} (ETag ${currentTag})`, undefined, {
      currentChangeSequence,
    });
  }
}

/** A request body over the limit of its route (1 MB, 20 MB for chat completions). */
export class PayloadTooLargeError extends ApiError {
  readonly status = 413;
  readonly code = 'PAYLOAD_TOO_LARGE';
}

/** A request body of a media type the route does not read (REST: JSON only; GraphQL: application/json). */
export class UnsupportedMediaTypeError extends ApiError {
  readonly status = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** Well-formed but not acceptable as sent (an Idempotency-Key reused with another request). */
export class UnprocessableEntityError extends ApiError {
  readonly status = 422;
  readonly code = 'UNPROCESSABLE_ENTITY';
}

export class RateLimitedError extends ApiError {
  readonly status = 429;
  readonly code = 'RATE_LIMITED';
}

export class ServiceUnavailableError extends ApiError {
  readonly status = 503;
  readonly code = 'SERVICE_UNAVAILABLE';

  static withRetryAfter(message: string, seconds: number): ServiceUnavailableError {
    const error = new ServiceUnavailableError(message);
    error.retryAfter = seconds;
    return error;
  }
}

/** The upstream service of a call could not be reached or answered unusably (too large a body, too many redirects). */
export class BadGatewayError extends ApiError {
  readonly status = 502;
  readonly code = 'BAD_GATEWAY';
}

/** The upstream service of a call did not answer in time. */
export class GatewayTimeoutError extends ApiError {
  readonly status = 504;
  readonly code = 'GATEWAY_TIMEOUT';
}

export class InternalError extends ApiError {
  readonly status = 500;
  readonly code = 'INTERNAL';
}
