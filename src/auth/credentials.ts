import type { IncomingHttpHeaders } from 'node:http';
import { API_KEY_FORM } from '../modules/access/api-keys';

/** What a request presents as its credentials. */
export type Credentials =
  | { kind: 'apiKey'; key: string }
  | { kind: 'basic'; email: string; key: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'malformed'; reason: string }
  | { kind: 'none' };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

/**
 * `x-api-key` (or its legacy alias `x-access-token`; x-api-key wins), then `Authorization: Bearer|Basic`,
 * among a request's headers (or values named as headers: a WebSocket's connection parameters). A bearer
 * token of the API-key form is an API key; any other is a JWT.
 */
export function readCredentials(headers: IncomingHttpHeaders): Credentials {
  const key = header(headers, 'x-api-key') ?? header(headers, 'x-access-token');
  if (key) return { kind: 'apiKey', key };
  const authorization = header(headers, 'authorization');
  if (!authorization) return { kind: 'none' };
  const [scheme, value = ''] = authorization.split(/\s+/, 2);
  switch (scheme.toLowerCase()) {
    case 'bearer':
      if (!value) return { kind: 'malformed', reason: 'empty bearer token' };
      // A key as a bearer token: clients that only send `Authorization: Bearer <apiKey>` (OpenAI's SDKs) authenticate.
      return API_KEY_FORM.test(value) ? { kind: 'apiKey', key: value } : { kind: 'bearer', token: value };
    case 'basic': {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon <= 0) return { kind: 'malformed', reason: 'Basic credentials must be base64(email:apiKey)' };
      return { kind: 'basic', email: decoded.slice(0, colon).trim().toLowerCase(), key: decoded.slice(colon + 1) };
    }
    default:
      return { kind: 'malformed', reason: `unsupported authorization scheme "${scheme}"` };
  }
}
