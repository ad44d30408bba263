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
  /** How long the exchange may take (default the guard's): 504 past it. */
  timeoutMs?: number;
  /** Ends the exchange at once when it aborts (the client that asked went away). */
  signal?: AbortSignal;
  /** false: a redirect is the answer, not followed (a webhook's receiver must answer itself). Default true. */
  followRedirects?: boolean;
}

export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One call through the egress guard: redirects followed here (at most 5, each target checked before it
 * is contacted, a relative `Location` resolved against the hop that sent it), the whole exchange bounded
 * by the request's timeout (504) and the body by 10 MB (502, the transfer aborted). Every failure is an
 * ApiError: an egress refusal (400), 502 or 504.
 */
export async function callUpstream(guard: EgressGuard, request: UpstreamRequest): Promise<UpstreamAnswer> {
  const exchange = new UpstreamExchange(guard, request);
  try {
    const answer = await exchange.open();
    return { status: answer.statusCode, headers: answer.headers, body: await readUpstreamBody(answer) };
  } catch (error) {
    throw exchange.failure(error);
  } finally {
    exchange.finish();
  }
}

/**
 * One exchange with an upstream, for a caller that reads the answer itself (as it streams): `open`
 * sends the request and follows redirects, the clock runs from the start until `finish` (a streaming
 * reader restarts it at each chunk), and `failure` says what any error met on the way answers.
 */
export class UpstreamExchange {
  readonly timeoutMs: number;
  private readonly controller = new AbortController();
  private current: UpstreamRequest;
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  /** The final answer has arrived: a later failure broke it off. */
  private answered = false;

  constructor(
    private readonly guard: EgressGuard,
    private readonly first: UpstreamRequest,
  ) {
    this.current = first;
    this.timeoutMs = first.timeoutMs ?? guard.timeoutMs;
    if (first.signal?.aborted) this.controller.abort();
    first.signal?.addEventListener('abort', this.cancel, { once: true });
    this.restartClock();
  }

  /** The final answer (redirects followed), its body not read yet. */
  async open(): Promise<Dispatcher.ResponseData> {
    for (let redirects = 0; ; redirects++) {
      this.guard.assertTarget(this.current.url);
      const answer = await send(this.guard, this.current, this.controller.signal);
      const location = this.first.followRedirects === false ? undefined : redirectLocation(answer);
      if (location === undefined) {
        this.answered = true;
        return answer;
      }
      discardUpstreamBody(answer);
      if (redirects === MAX_REDIRECTS) throw new BadGatewayError(`the upstream redirected more than ${MAX_REDIRECTS} times`);
      this.current = redirected(this.first, this.current, answer.statusCode, location);
    }
  }

  /** The time allowed starts again: a stream that sent a chunk may stay silent as long again. */
  restartClock(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs).unref();
  }

  /** The exchange is over: the clock stops. */
  finish(): void {
    clearTimeout(this.timer);
    this.first.signal?.removeEventListener('abort', this.cancel);
  }

  /** What a failure answers: the guard's refusal (however deep undici wrapped it), 504 for time, else 502. */
  failure(error: unknown): ApiError {
    const causes = causeChain(error);
    const denied = causes.find((cause) => cause instanceof EgressDeniedError);
    if (denied) return denied as EgressDeniedError;
    if (error instanceof ApiError) return error;
    const code = causes.map((cause) => (cause as { code?: unknown }).code).find((c): c is string => typeof c === 'string');
    if (this.timedOut || (code && TIMEOUT_CODES.has(code))) return new GatewayTimeoutError(`the upstream did not answer within ${this.timeoutMs / 1000} s`);
    if (this.first.signal?.aborted) return new BadGatewayError('the call was abandoned: the client went away');
    const host = this.current.url.host;
    return new BadGatewayError(
      this.answered
        ? `the upstream ${host} broke off its answer (${code ?? 'connection closed'})`
        : `the upstream ${host} could not be reached (${code ?? 'connection failed'})`,
    );
  }

  private readonly cancel = (): void => this.controller.abort();
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
export async function readUpstreamBody(answer: Dispatcher.ResponseData): Promise<Buffer> {
  const tooLarge = () => {
    discardUpstreamBody(answer);
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
export function discardUpstreamBody(answer: Dispatcher.ResponseData): void {
  answer.body.on('error', () => undefined);
  answer.body.destroy();
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current instanceof Error && chain.length < 10; current = current.cause) chain.push(current);
  return chain;
}
