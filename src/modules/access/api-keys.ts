import { createHash, randomBytes } from 'node:crypto';

/** Keys are 32 random bytes, URL-safe; the prefix makes them recognisable in secret scanners. */
export function generateApiKey(): string {
  return `pk_${randomBytes(32).toString('base64url')}`;
}

/** The form of the keys `generateApiKey` makes (and of keys a client chooses): a JWT never has it, its parts being joined by dots. */
export const API_KEY_FORM = /^pk_[A-Za-z0-9_-]+$/;

/** Only this digest is stored. Lookup by digest is an index hit, so no key is ever compared by content. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, 8);
}
