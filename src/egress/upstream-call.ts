import type { IncomingHttpHeaders } from 'node:http';
import { request, type Dispatcher } from 'undici';
import { ApiError, BadGatewayError, EgressDeniedError, GatewayTimeoutError } from '../errors/api-error';
import type { EgressGuard } from './egress-guard';

/** The largest upstream answer body read; a larger one is cut off and is 502. */
export const MAX_UPSTREAM_BODY_BYTES = 10 * 1024 * 1024;
/** Redirects followed per call, each hop checked again. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Credentials a redirect to another origin never carries, beside the request's own origin-bound headers. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface UpstreamRequest {
  url: URL;
  method: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[]>;
  body?: string;
  /** Headers (lower case) sent to the first target's origin only: a redirect elsewhere drops them (they carry secrets). */
  originBoundHeaders?: readonly string[];
}

export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One call through the egress guard: redirects followed here (at most 5, each target checked before it
 * is contacted, a relative `Location` resolved against the hop that sent it), the whole exchange bounded
 * by the guard's timeout (504) and the body by 10 MB (502, the transfer aborted). Every failure is an
 * ApiError: an egress refusal (400), 502 or 504.
 */
export async function callUpstream(guard: EgressGuard, first: UpstreamRequest): Promise<UpstreamAnswer> {
  const signal = AbortSignal.timeout(guard.timeoutMs);
  let current = first;
  try {
    for (let redirects = 0; ; redirects++) {
      guard.assertTarget(current.url);
      const answer = await send(guard, current, signal);
      const location = redirectLocation(answer);
      if (location === undefined) return { status: answer.statusCode, headers: answer.headers, body: await readCapped(answer) };
      discard(answer);
      if (redirects === MAX_REDIRECTS) throw new BadGatewayError(`the upstream redirected more than ${MAX_REDIRECTS} times`);
      current = redirected(first, current, answer.statusCode, location);
    }
  } catch (error) {
    throw failureOf(error, signal, guard.timeoutMs, current.url);
  }
}

function send(guard: EgressGuard, upstream: UpstreamRequest, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  return request(upstream.url, {
    dispatcher: guard.dispatcher,
    method: upstream.method as Dispatcher.HttpMethod,
    headers: upstream.headers,
    body: upstream.body,
    signal,
  });
}

function redirectLocation(answer: Dispatcher.ResponseData): string | undefined {
  const location = answer.headers.location;
  if (!REDIRECT_STATUSES.has(answer.statusCode) || location === undefined) return undefined;
  return Array.isArray(location) ? location[0] : location;
}

/**
 * The next hop of a redirect: 303 (and 301/302 after a POST) becomes a GET without body, as browsers
 * do; a hop to another origin than the first drops the origin-bound headers and credentials.
 */
function redirected(first: UpstreamRequest, current: UpstreamRequest, status: number, location: string): UpstreamRequest {
  let url: URL;
  try {
    url = new URL(location, current.url);
  } catch {
    throw new BadGatewayError('the upstream redirected to an invalid Location');
  }
  const becomesGet = (status === 303 && current.method !== 'HEAD') || ((status === 301 || status === 302) && current.method === 'POST');
  const headers = { ...current.headers };
  if (url.origin !== first.url.origin) for (const name of [...(first.originBoundHeaders ?? []), ...CREDENTIAL_HEADERS]) delete headers[name];
  if (becomesGet) {
    delete headers['content-type'];
    return { ...current, url, headers, method: 'GET', body: undefined };
  }
  return { ...current, url, headers };
}

/** The body, at most MAX_UPSTREAM_BODY_BYTES: counted as it streams, the transfer aborted past it. */
async function readCapped(answer: Dispatcher.ResponseData): Promise<Buffer> {
  const tooLarge = () => {
    discard(answer);
    return new BadGatewayError(`the upstream answer is larger than ${MAX_UPSTREAM_BODY_BYTES / (1024 * 1024)} MB`);
  };
  if (Number(answer.headers['content-length']) > MAX_UPSTREAM_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_UPSTREAM_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** Stops reading an answer and closes its connection (destroying a body undici has not finished emits an abort error). */
function discard(answer: Dispatcher.ResponseData): void {
  answer.body.on('error', () => undefined);
  answer.body.destroy();
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** What a failed call answers: the guard's refusal (however deep undici wrapped it), 504 for time, else 502. */
function failureOf(error: unknown, signal: AbortSignal, timeoutMs: number, url: URL): ApiError {
  const causes = causeChain(error);
  const denied = causes.find((cause) => cause instanceof EgressDeniedError);
  if (denied) return denied as EgressDeniedError;
  if (error instanceof ApiError) return error;
  const code = causes.map((cause) => (cause as { code?: unknown }).code).find((c): c is string => typeof c === 'string');
  if (signal.aborted || (code && TIMEOUT_CODES.has(code))) return new GatewayTimeoutError(`the upstream did not answer within ${timeoutMs / 1000} s`);
  return new BadGatewayError(`the upstream ${url.host} could not be reached (${code ?? 'connection failed'})`);
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current instanceof Error && chain.length < 10; current = current.cause) chain.push(current);
  return chain;
}
