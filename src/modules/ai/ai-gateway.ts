import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { AiProviderConfig } from '../../config/ai-gateway';
import { ModelCatalogEntry } from '../../entities/model-catalog-entry';
import type { EgressGuard } from '../../egress/egress-guard';
import { EventStreamReader, type ServerSentEvent } from '../../egress/event-stream-reader';
import { redactSecrets, redactText } from '../../egress/redact';
import { callUpstream, discardUpstreamBody, readUpstreamBody, UpstreamExchange, type UpstreamRequest } from '../../egress/upstream-call';
import {
  ApiError,
  BadGatewayError,
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnprocessableEntityError,
} from '../../errors/api-error';
import { logger } from '../../logging/logger';
import { capabilitiesUsed, parseChatRequest, type Capability, type ChatRequest, type JsonObject } from './chat-request';
import type { RequestContext } from '../../engine/context';
import { isPlainObject } from '../../engine/input';

/** Where the AI gateway's REST paths begin: their errors are answered as OpenAI clients read them. */
export const AI_GATEWAY_PATH = '/api/ai';

const AI_GATEWAY_URL = new RegExp(`^${AI_GATEWAY_PATH}(?:[/?#]|$)`, 'i');

/** Whether a request URL (path and query) is one of the AI gateway's; Express routes without regard to case, and so does this. */
export function isAiGatewayPath(url: string): boolean {
  return AI_GATEWAY_URL.test(url);
}

/** Where a streamed completion goes, chunk by chunk, as the upstream sends it (REST: server-sent events). */
export interface ChatStreamSink {
  /** One chunk: a JSON text (the upstream's, the model named as in the catalogue), or its data as sent when that is not JSON. */
  chunk(data: string): Promise<void>;
}

/** A call ready to go: every check done, nothing sent yet. */
interface ChatCall {
  model: ModelCatalogEntry;
  provider: string;
  /** The provider's API key, if one is sent: it never appears in an answer or a log line. */
  secrets: string[];
  upstream: UpstreamRequest;
}

/** Fields of an answer's messages and deltas that carry the model's reasoning: kept only for models with `reasoning_output`. */
const REASONING_FIELDS = new Set(['reasoning', 'reasoning_content', 'reasoning_details']);

/** The longest upstream error message carried into an error body. */
const MAX_UPSTREAM_DETAIL = 500;

/** Upstream statuses that say the caller's request was at fault: answered with the same status. */
const CALLER_FAULTS = new Map<number, typeof BadRequestError | typeof NotFoundError | typeof PayloadTooLargeError | typeof UnprocessableEntityError>([
  [400, BadRequestError],
  [404, NotFoundError],
  [413, PayloadTooLargeError],
  [422, UnprocessableEntityError],
]);

/** How a capability is read from a model of the catalogue. */
const SUPPORTS: Record<Capability, (model: ModelCatalogEntry) => boolean> = {
  tools: (model) => model.supports_tools,
  images: (model) => model.supports_vision,
  documents: (model) => model.supports_documents,
};

/**
 * A chat completion (docs/ai-gateway.md), for REST and GraphQL alike. Every check comes before
 * the upstream is called: the body, the model (unknown or disabled: 400), its capabilities (400
 * `model <name> does not support tools|images|documents`), its provider (not configured, or its key
 * variable unset: 503). The upstream gets the model's `upstreamModel`; the answer names the catalogue
 * model and carries reasoning only for models with `reasoning_output`. With `stream: true` the chunks go
 * to `options.stream` as they arrive (and nothing is answered); without a sink such a request is 400.
 * Failures are ApiErrors of one taxonomy, streamed or not (see `upstreamRefusal` for the upstream's
 * error statuses): a broken connection 502, time 504, an egress refusal 400. Those that may pass when
 * the same request is sent again are marked `retryable`. `options.signal` aborting (the client went
 * away) aborts the upstream call.
 */
export function chatCompletion(ctx: RequestContext, body: unknown, options?: { signal?: AbortSignal }): Promise<JsonObject>;
export function chatCompletion(ctx: RequestContext, body: unknown, options: { signal?: AbortSignal; stream: ChatStreamSink }): Promise<JsonObject | undefined>;
export async function chatCompletion(
  ctx: RequestContext,
  body: unknown,
  options: { signal?: AbortSignal; stream?: ChatStreamSink } = {},
): Promise<JsonObject | undefined> {
  const request = parseChatRequest(body);
  if (request.stream && !options.stream) throw BadRequestError.forField('stream', 'a streamed answer is served by POST /api/ai/chat/completions only');
  const call = await prepareCall(ctx, request, options.signal);
  const started = Date.now();
  try {
    const answer = options.stream && request.stream ? await relayStream(egressOf(ctx), call, options.stream) : await complete(egressOf(ctx), call);
    logCall(call, request.stream, started);
    return answer;
  } catch (error) {
    logCall(call, request.stream, started, error);
    if (error instanceof ApiError) error.retryable = mayPassOnRetry(error);
    throw error;
  }
}

/**
 * Whether a failure of the call may pass when the same request is sent again: the upstream's own status
 * decides when it answered one (429 and 5xx may pass; the caller's faults and a refused provider key
 * may not); otherwise a bad gateway may (an error event, a broken or refused connection), the time
 * running out may not (a retry would wait as long again), nor an egress refusal.
 */
function mayPassOnRetry(error: ApiError): boolean {
  const upstreamStatus = error.extra.upstreamStatus;
  if (typeof upstreamStatus === 'number') return upstreamStatus === 429 || upstreamStatus >= 500;
  return error instanceof BadGatewayError;
}

async function prepareCall(ctx: RequestContext, request: ChatRequest, signal: AbortSignal | undefined): Promise<ChatCall> {
  const model = await catalogueModel(ctx, request.model);
  refuseMissingCapability(model, request);
  const provider = providerOf(ctx, model);
  const key = apiKeyOf(model.provider, provider);
  const upstreamBody = { ...request.parameters, model: model.upstreamModel, messages: request.messages, ...(request.tools ? { tools: request.tools } : {}) };
  return {
    model,
    provider: model.provider,
    secrets: key ? [key] : [],
    upstream: {
      url: new URL(`${provider.baseUrl}/chat/completions`),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: request.stream ? 'text/event-stream' : 'application/json',
        'accept-encoding': 'identity',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: JSON.stringify(request.stream ? { ...upstreamBody, stream: true } : upstreamBody),
      originBoundHeaders: ['authorization'],
      timeoutMs: provider.timeoutSeconds * 1000,
      signal,
    },
  };
}

async function catalogueModel(ctx: RequestContext, name: string): Promise<ModelCatalogEntry> {
  const model = await ctx.em.findOne(ModelCatalogEntry, { name });
  if (!model) throw modelRefusal(`model ${name} is not in the model catalogue`);
  if (!model.enabled) throw modelRefusal(`model ${name} is disabled`);
  return model;
}

function modelRefusal(message: string, field = 'model'): BadRequestError {
  return new BadRequestError(message, [{ field, message }]);
}

/** The first capability the request needs that the model lacks, in the order tools, images, documents: 400. */
function refuseMissingCapability(model: ModelCatalogEntry, request: ChatRequest): void {
  const missing = capabilitiesUsed(request).find((use) => !SUPPORTS[use.capability](model));
  if (missing) throw modelRefusal(`model ${model.name} does not support ${missing.capability}`, missing.field);
}

function providerOf(ctx: RequestContext, model: ModelCatalogEntry): AiProviderConfig {
  const providers = ctx.services.aiGateway.providers;
  if (!Object.hasOwn(providers, model.provider)) {
    throw new ServiceUnavailableError(
      `model ${model.name}: its provider ${model.provider ? `"${model.provider}"` : '(none)'} is not configured on this server (aiGateway.providers)`,
    );
  }
  return providers[model.provider];
}

/** The key from the environment variable the provider names (read at call time); 503 when it is unset. */
function apiKeyOf(name: string, provider: AiProviderConfig): string | undefined {
  if (!provider.apiKeyEnv) return undefined;
  const key = process.env[provider.apiKeyEnv];
  if (!key) throw new ServiceUnavailableError(`provider ${name}: the environment variable ${provider.apiKeyEnv} holding its API key is not set`);
  return key;
}

function egressOf(ctx: RequestContext): EgressGuard {
  const guard = ctx.services.egress;
  if (!guard) throw new Error('chat completions need an egress guard');
  return guard;
}

/** The whole answer: the upstream's JSON object, presented. */
async function complete(guard: EgressGuard, call: ChatCall): Promise<JsonObject> {
  const answer = await callUpstream(guard, call.upstream);
  const body = textOf(call, answer.body);
  if (!isSuccess(answer.status)) throw upstreamRefusal(call, body, answer);
  const parsed = parsedJson(body);
  if (!isPlainObject(parsed)) throw new BadGatewayError(`provider ${call.provider} answered something that is not a JSON object`);
  return presented(parsed, call.model);
}

/**
 * The upstream's events relayed as they arrive, each presented, until `[DONE]` or the end of the body;
 * the clock restarts at every chunk. An error event is a failure like an error status.
 */
async function relayStream(guard: EgressGuard, call: ChatCall, sink: ChatStreamSink): Promise<undefined> {
  const exchange = new UpstreamExchange(guard, call.upstream);
  try {
    const answer = await exchange.open();
    // Leaving the loop at [DONE] leaves the body unfinished: its abort error must not go unheard.
    answer.body.on('error', () => undefined);
    try {
      await checkStreamAnswer(call, answer);
      const reader = new EventStreamReader();
      for await (const chunk of answer.body) {
        for (const event of reader.push(chunk as Buffer)) {
          if (event.data === '[DONE]') return undefined;
          await sink.chunk(relayed(call, event));
        }
        exchange.restartClock();
      }
      return undefined;
    } finally {
      discardUpstreamBody(answer);
    }
  } catch (error) {
    throw exchange.failure(error);
  } finally {
    exchange.finish();
  }
}

/** A stream must start with a success status and an event stream: an error status is refused with its body. */
async function checkStreamAnswer(call: ChatCall, answer: Dispatcher.ResponseData): Promise<void> {
  if (!isSuccess(answer.statusCode)) {
    throw upstreamRefusal(call, textOf(call, await readUpstreamBody(answer)), { status: answer.statusCode, headers: answer.headers });
  }
  if (!/^text\/event-stream\b/i.test(String(answer.headers['content-type'] ?? '')))
    throw new BadGatewayError(`provider ${call.provider} did not answer an event stream`);
}

/** An upstream body as text, the key redacted. */
function textOf(call: ChatCall, body: Buffer): string {
  return redactSecrets(body, call.secrets).toString('utf8');
}

/** One event as the client gets it: JSON presented, other data as sent (secrets redacted); an error event throws. */
function relayed(call: ChatCall, event: ServerSentEvent): string {
  const data = redactText(event.data, call.secrets);
  const parsed = parsedJson(data);
  if (event.event === 'error' || (isPlainObject(parsed) && parsed.error !== undefined)) throw upstreamRefusal(call, data);
  return isPlainObject(parsed) ? JSON.stringify(presented(parsed, call.model)) : data;
}

/** The upstream's answer (or chunk) naming the catalogue model, without reasoning unless the model has reasoning_output. */
function presented(answer: JsonObject, model: ModelCatalogEntry): JsonObject {
  const shown: JsonObject = { ...answer, model: model.name };
  if (!model.reasoning_output && Array.isArray(answer.choices)) shown.choices = answer.choices.map(withoutReasoning);
  return shown;
}

function withoutReasoning(choice: unknown): unknown {
  if (!isPlainObject(choice)) return choice;
  const kept: JsonObject = { ...choice };
  for (const part of ['message', 'delta']) {
    const value = choice[part];
    if (isPlainObject(value)) kept[part] = Object.fromEntries(Object.entries(value).filter(([name]) => !REASONING_FIELDS.has(name)));
  }
  return kept;
}

/**
 * An upstream's error, its own message in ours when its body is JSON carrying one, and its status as
 * `upstreamStatus` when it answered one (an error event inside a stream has none: 502). A 400, 404, 413
 * or 422 is the caller's request at fault and keeps its status; a 429 stays 429 with the upstream's
 * Retry-After; any other status (a 401 or 403 refusing the provider key, a 5xx) is 502.
 */
function upstreamRefusal(call: ChatCall, body: string, answered?: { status: number; headers: IncomingHttpHeaders }): ApiError {
  const detail = upstreamMessage(parsedJson(body));
  const message = `provider ${call.provider} ${answered ? `answered ${answered.status}` : 'sent an error'}${detail ? `: ${detail}` : ''}`;
  if (!answered) return new BadGatewayError(message);
  const extra = { upstreamStatus: answered.status };
  const CallerFault = CALLER_FAULTS.get(answered.status);
  if (CallerFault) return new CallerFault(message, undefined, extra);
  if (answered.status !== 429) return new BadGatewayError(message, undefined, extra);
  const tooMany = new RateLimitedError(message, undefined, extra);
  tooMany.retryAfter = retryAfterSeconds(answered.headers['retry-after']);
  return tooMany;
}

/** An upstream's Retry-After (seconds, or an HTTP date) in seconds from now; absent or unreadable, undefined. */
function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** `{error: {message}}` (OpenAI), `{error: "..."}` or `{message}`: the text, cut to MAX_UPSTREAM_DETAIL characters. */
function upstreamMessage(body: unknown): string | undefined {
  if (!isPlainObject(body)) return undefined;
  const error = body.error;
  const text = typeof error === 'string' ? error : isPlainObject(error) && typeof error.message === 'string' ? error.message : body.message;
  return typeof text === 'string' && text.trim() ? text.trim().slice(0, MAX_UPSTREAM_DETAIL) : undefined;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** One line per call: never the key, the body or the messages. */
function logCall(call: ChatCall, stream: boolean, started: number, error?: unknown): void {
  const line = {
    model: call.model.name,
    upstreamModel: call.model.upstreamModel,
    provider: call.provider,
    host: call.upstream.url.host,
    stream,
    ms: Date.now() - started,
  };
  if (error === undefined) logger.debug(line, 'chat completion');
  else logger.warn({ ...line, ...(error instanceof ApiError ? { status: error.status, reason: error.message } : {}) }, 'chat completion failed');
}
