/** What replaces a secret's value wherever an upstream would echo it back. */
export const REDACTED = '[REDACTED]';

/** `body` with every occurrence of each secret replaced by `[REDACTED]` (an upstream that echoes its headers). */
export function redactSecrets(body: Buffer, secrets: readonly string[]): Buffer {
  let redacted = body;
  for (const secret of secrets) {
    if (secret === '') continue;
    const needle = Buffer.from(secret, 'utf8');
    if (redacted.indexOf(needle) < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = redacted.indexOf(needle); at >= 0; at = redacted.indexOf(needle, from)) {
      parts.push(redacted.subarray(from, at), Buffer.from(REDACTED));
      from = at + needle.length;
    }
    parts.push(redacted.subarray(from));
    redacted = Buffer.concat(parts);
  }
  return redacted;
}

/** `text` with every occurrence of each secret replaced by `[REDACTED]`. */
export function redactText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((value, secret) => (secret === '' ? value : value.split(secret).join(REDACTED)), text);
}

/** Header values with every secret replaced by `[REDACTED]`. */
export function redactHeaders(headers: Record<string, string | string[]>, secrets: readonly string[]): Record<string, string | string[]> {
  const redact = (text: string) => redactText(text, secrets);
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.map(redact) : redact(value)]));
}
