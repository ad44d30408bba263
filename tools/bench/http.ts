/** The server under measurement, called as a client would. */
export interface Api {
  base: string;
  key: string;
}

/** One JSON request; anything but a 2xx stops the run with the answer. */
export async function call(api: Api, method: string, path: string, body?: unknown, key = api.key): Promise<any> {
  const response = await fetch(`${api.base}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Runs `work(i)` for i in 0..count-1, `inFlight` at a time. */
export async function pooled(count: number, inFlight: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}
