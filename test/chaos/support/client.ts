import { expect } from 'vitest';

/** One answer of the server: status, the headers a refusal must carry, and the JSON body. */
export interface Answer {
  status: number;
  retryAfter: string | null;
  body: any;
  /** Milliseconds from sending to the whole answer. */
  ms: number;
}

/** A JSON request with an API key; a connection the server drops is status 0 (never expected here). */
export async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text, and the assertions say so
    }
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: parsed, ms: Date.now() - started };
  } catch (error) {
    return { status: 0, retryAfter: null, body: String(error), ms: Date.now() - started };
  }
}

/** The answer, asserted to have `status`. */
export async function expectCall(url: string, key: string, method: string, path: string, body: unknown, status: number): Promise<any> {
  const answer = await call(url, key, method, path, body);
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
  return answer.body;
}

/** The server's JSON log lines at warn (40) or above, as parsed objects. */
export function warnings(output: string): { level: number; msg: string }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => line.level >= 40);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
