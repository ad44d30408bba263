import type { ApiError, ErrorCode } from './api-error';

/** The `error.type` values OpenAI clients read, each error code mapped to one. */
export const OPENAI_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'upstream_error',
  'timeout_error',
] as const;

export type OpenAiErrorType = (typeof OPENAI_ERROR_TYPES)[number];

/** A failure the server could not serve is the upstream side's as OpenAI clients see it: only six types exist. */
const TYPE_OF_CODE: Record<ErrorCode, OpenAiErrorType> = {
  BAD_REQUEST: 'invalid_request_error',
  UNAUTHENTICATED: 'authentication_error',
  FORBIDDEN: 'permission_error',
  NOT_FOUND: 'invalid_request_error',
  METHOD_NOT_ALLOWED: 'invalid_request_error',
  CONFLICT: 'invalid_request_error',
  PRECONDITION_FAILED: 'invalid_request_error',
  PAYLOAD_TOO_LARGE: 'invalid_request_error',
  UNSUPPORTED_MEDIA_TYPE: 'invalid_request_error',
  UNPROCESSABLE_ENTITY: 'invalid_request_error',
  RATE_LIMITED: 'rate_limit_error',
  SERVICE_UNAVAILABLE: 'upstream_error',
  BAD_GATEWAY: 'upstream_error',
  GATEWAY_TIMEOUT: 'timeout_error',
  INTERNAL: 'upstream_error',
};

/** `error` of the body OpenAI clients read: they take its `message` as the error's text. */
export interface OpenAiErrorObject {
  message: string;
  type: OpenAiErrorType;
  /** The offending field (the first one `details` names), or null. */
  param: string | null;
  code: ErrorCode;
}

/**
 * The error body as OpenAI clients read it: the usual body (`message`, `status`, `details`,
 * `upstreamStatus` ...) with `error` an object in place of the reason phrase.
 */
export function openAiErrorBody(error: ApiError): Record<string, unknown> {
  const openAi: OpenAiErrorObject = { message: error.message, type: TYPE_OF_CODE[error.code], param: error.details?.[0]?.field ?? null, code: error.code };
  return { ...error.toBody(), error: openAi };
}
