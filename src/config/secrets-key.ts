import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConfiguration } from './invalid-configuration';

/** AES-256: the key is 32 bytes. */
export const SECRETS_KEY_BYTES = 32;

/** Where the key is kept when SECRETS_KEY is not set. */
export const SECRETS_KEY_FILE = 'secrets.key';

function decode(text: string, origin: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== SECRETS_KEY_BYTES)
    throw new InvalidConfiguration(`${origin} must hold ${SECRETS_KEY_BYTES} bytes, base64-encoded (e.g. openssl rand -base64 32)`);
  return key;
}

/**
 * The key that encrypts organization secrets: SECRETS_KEY, or else the one kept in the data folder,
 * generated there on first start (readable by this user alone; `onGenerated` is told where, so that the
 * operator hears of it). Losing it makes stored secrets unreadable.
 */
export function loadSecretsKey(configured: string | undefined, dataDir: string, onGenerated: (file: string) => void = () => undefined): Buffer {
  if (configured) return decode(configured, 'SECRETS_KEY');
  const file = join(dataDir, SECRETS_KEY_FILE);
  try {
    return decode(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(SECRETS_KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    onGenerated(file);
  } catch (error) {
    // Another process wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return decode(readFileSync(file, 'utf8'), file);
}
