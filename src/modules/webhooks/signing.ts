import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing: a secret is `whsec_` and the base64 of random bytes; a signature is the
 * base64 HMAC-SHA256, keyed by those bytes, of `<webhook-id>.<webhook-timestamp>.<body>`, sent as `v1,<signature>`.
 */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The `webhook-signature` header of one attempt. */
export function signatureHeader(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${signature}`;
}
