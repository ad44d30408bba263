import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SECRETS_KEY_BYTES } from '../../config/secrets-key';

/** AES-256-GCM with a fresh 12-byte nonce per value. */
const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Sealed values start with their format, so that a later one can be told apart. */
const FORMAT = 'v1';

/** Encrypts organization secrets at rest; the sealed text is `v1:<nonce>:<tag>:<ciphertext>`, base64 parts. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key is ${SECRETS_KEY_BYTES} bytes, got ${key.length}`);
  }

  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, nonce);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [FORMAT, nonce.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
  }

  /** The plain value; throws when the text was not sealed with this key or was altered. */
  open(text: string): string {
    const [format, nonce, tag, sealed] = text.split(':');
    if (format !== FORMAT || sealed === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv(ALGORITHM, this.key, Buffer.from(nonce, 'base64'), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  }
}
