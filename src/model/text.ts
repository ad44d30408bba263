/**
 * Why PostgreSQL cannot store `text` exactly, or undefined when it can. Neither text nor jsonb holds
 * U+0000, and an unpaired UTF-16 surrogate has no UTF-8 form: a text column would silently keep
 * U+FFFD in its place, jsonb refuses it.
 */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (!text.isWellFormed()) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/** unstorableText for the first string or object key of a JSON value that has a problem. Walks without recursion: values may nest deeply. */
export function unstorableTextIn(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length) {
    const next = pending.pop();
    if (typeof next === 'string') {
      const issue = unstorableText(next);
      if (issue) return issue;
    } else if (Array.isArray(next)) {
      // One at a time: spreading a long array into push() overflows the call stack.
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) {
        const issue = unstorableText(key);
        if (issue) return issue;
        pending.push(item);
      }
    }
  }
  return undefined;
}
