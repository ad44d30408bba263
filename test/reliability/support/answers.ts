import { STATUS_CODES } from 'node:http';
import { expect } from 'vitest';
import { operations } from '../../../src/catalog/operations';
import type { Answer } from '../../support/server';

/** The 5xx statuses each domain operation that calls another service documents for that service's failures (502, 504), by operationId. */
export const upstreamStatuses = new Map(operations.map((o) => [o.operationId, o.errors.map(Number).filter((status) => status === 502 || status === 504)]));

/** A request as the failure message shows it: method, path and the start of the body. */
export function describeRequest(method: string, path: string, body?: unknown): string {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s);
  return `${method} ${cut(path, 300)} ${cut(text, 600)}`;
}

/** Never a server error: any 5xx fails, whatever the request (but one of `upstream`, see upstreamStatuses). */
export function expectNoServerError(answer: Answer, label: string, upstream: readonly number[] = []): void {
  if (!upstream.includes(answer.status)) expect(answer.status, `${label}\n→ ${answer.status} ${answer.text.slice(0, 600)}`).toBeLessThan(500);
}

/** A REST refusal (4xx, or one of `upstream`) carries exactly the documented error body: `{error, message, status}` and optional extras. */
export function expectErrorBody(answer: Answer, label: string, upstream: readonly number[] = []): void {
  const shown = `${label}\n→ ${answer.status} ${answer.text.slice(0, 600)}`;
  expect(answer.status, shown).toBeGreaterThanOrEqual(400);
  expectNoServerError(answer, label, upstream);
  expect(answer.headers.get('content-type') ?? '', shown).toMatch(/^application\/json/);
  expect(answer.body, shown).toMatchObject({ error: STATUS_CODES[answer.status], message: expect.any(String), status: answer.status });
}

export interface GraphqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message?: unknown; extensions?: { code?: unknown; status?: unknown } }[];
}

/**
 * A GraphQL answer as the server words them: a request refused before it runs is a 4xx (a document
 * that does not parse or validate: 400, every error BAD_REQUEST/400) without data; one that ran is
 * HTTP 200, each error with a code and a 4xx status (or one of `upstream`, the 5xx an operation that
 * calls another service documents for that service's failures). The
 * status the answer counts as: the HTTP one, or its first error's for a 200 with errors.
 */
export function expectGraphqlAnswer(answer: Answer<GraphqlBody>, label: string, upstream: readonly number[] = []): number {
  const shown = `${label}\n→ ${answer.status} ${answer.text.slice(0, 600)}`;
  expectNoServerError(answer, label);
  expect(answer.headers.get('content-type') ?? '', shown).toMatch(/^application\/(graphql-response\+)?json/);
  expect(typeof answer.body, shown).toBe('object');
  const errors = answer.body.errors ?? [];
  if (answer.status !== 200) {
    expect(answer.body.data, shown).toBeUndefined();
    expect(errors.length, shown).toBeGreaterThan(0);
  }
  for (const error of errors) {
    expect(typeof error.message, shown).toBe('string');
    expect(typeof error.extensions?.code, shown).toBe('string');
    expect(error.extensions?.status, shown).toBeGreaterThanOrEqual(400);
    if (!upstream.includes(error.extensions?.status as number)) expect(error.extensions?.status, shown).toBeLessThan(500);
    if (answer.status !== 200) expect(error.extensions?.status, shown).toBe(answer.status);
    if (answer.status === 400) expect(error.extensions?.code, shown).toBe('BAD_REQUEST');
  }
  return answer.status === 200 && errors.length ? Number(errors[0].extensions!.status) : answer.status;
}
