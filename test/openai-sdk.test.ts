import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAiGatewayConfig } from '../src/config/ai-gateway';
import { callersOf, type Caller } from './support/callers';
import { OpenAiUpstream } from './support/openai-upstream';
import { startServer, unique, type TestServer } from './support/server';

/**
 * The AI gateway as an application developer uses it: the official OpenAI Node SDK pointed at
 * /api/ai with a platform API key as its `apiKey` and nothing else, against a real OpenAI-compatible
 * provider on 127.0.0.1 that counts its calls. Answers whole and streamed, the `stream()` helper, the
 * model list; then each kind of failure as the SDK raises it (its class, status and message) and how
 * many calls it made with its default retries: one for everything the gateway says not to retry, three
 * (the first and two retries) for a provider's 429 and 5xx, which may pass.
 */

const KEY_VARIABLE = 'OPENAI_SDK_TEST_PROVIDER_KEY';
const MESSAGES: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Say hello' }];
/** The SDK's default: a request and at most two retries. */
const DEFAULT_ATTEMPTS = 3;

let server: TestServer;
let upstream: OpenAiUpstream;
let member: Caller;
const { newCaller, rest } = callersOf(() => server);

/** Requests the SDK sent to the gateway, counted by the fetch it is given. */
let sdkRequests = 0;

/** The SDK as documented: baseURL and apiKey, its default retries; `fetch` only counts. */
function client(apiKey = member.key): OpenAI {
  return new OpenAI({
    baseURL: `${server.url}/api/ai`,
    apiKey,
    fetch: (url, init) => {
      sdkRequests++;
      return fetch(url, init);
    },
  });
}

/** A catalogue model of the `local` provider whose upstream id is `upstreamModel` (the provider's behaviour). */
async function model(upstreamModel: string, flags: Record<string, boolean> = {}): Promise<string> {
  const name = unique(`sdk-${upstreamModel}`);
  await rest(null, 'POST', '/api/models', 201, { name, provider: 'local', upstreamModel, ...flags });
  return name;
}

interface Failure {
  error: unknown;
  /** Calls that reached the provider. */
  providerCalls: number;
  /** Requests the SDK sent to the gateway. */
  sdkRequests: number;
}

/** What `work` threw (it must throw), and the calls it caused. */
async function failure(work: () => Promise<unknown>): Promise<Failure> {
  const before = sdkRequests;
  let error: unknown;
  const calls = await upstream.during(async () => {
    try {
      await work();
    } catch (thrown) {
      error = thrown;
    }
  });
  expect(error, 'the call was expected to fail').toBeDefined();
  return { error, providerCalls: calls.length, sdkRequests: sdkRequests - before };
}

/** The text of a streamed completion, read with for await. */
async function streamedText(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  return text;
}

beforeAll(async () => {
  process.env[KEY_VARIABLE] = `sk-provider-${unique('key')}`;
  upstream = await OpenAiUpstream.start();
  server = await startServer({
    egress: { privateHostAllowlist: ['127.0.0.1'] },
    aiGateway: readAiGatewayConfig({ providers: { local: { baseUrl: upstream.baseUrl, apiKeyEnv: KEY_VARIABLE, timeoutSeconds: 1 } } }),
  });
  member = await newCaller('SdkDeveloper');
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  delete process.env[KEY_VARIABLE];
});

describe('the OpenAI SDK with only an apiKey', () => {
  it('creates a completion: typed, the model named as in the catalogue', async () => {
    const name = await model('echo');
    const [received] = await upstream.during(async () => {
      const completion = await client().chat.completions.create({ model: name, messages: MESSAGES });
      expect(completion.model).toBe(name);
      expect(completion.choices[0].message.content).toBe('Hello');
      expect(completion.usage?.total_tokens).toBe(7);
    });
    expect(received.body.model).toBe('echo');
  });

  it('streams a completion, read with for await', async () => {
    const name = await model('echo');
    const stream = await client().chat.completions.create({ model: name, messages: MESSAGES, stream: true });
    expect(await streamedText(stream)).toBe('Hello');
  });

  it('streams with the stream() helper: its deltas, then the final completion', async () => {
    const name = await model('echo');
    const stream = client().chat.completions.stream({ model: name, messages: MESSAGES });
    const deltas: string[] = [];
    stream.on('content', (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas.join('')).toBe('Hello');
    expect(final.model).toBe(name);
    expect(final.choices[0].message.content).toBe('Hello');
  });

  it('lists the enabled models with models.list()', async () => {
    const enabled = await model('echo');
    const disabled = await model('echo', { enabled: false });
    const ids: string[] = [];
    for await (const entry of client().models.list()) {
      ids.push(entry.id);
      if (entry.id === enabled) expect(entry).toMatchObject({ object: 'model', owned_by: 'local', created: expect.any(Number) });
    }
    expect(ids).toContain(enabled);
    expect(ids).not.toContain(disabled);
  });

  it('is refused as AuthenticationError with an unknown key, once', async () => {
    const name = await model('echo');
    const refused = await failure(() => client(`pk_${unique('unknown')}`).chat.completions.create({ model: name, messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(AuthenticationError);
    expect((refused.error as AuthenticationError).status).toBe(401);
    expect((refused.error as AuthenticationError).message).toContain('invalid credentials: unknown API key');
    expect(refused).toMatchObject({ providerCalls: 0, sdkRequests: 1 });
  });
});

describe('failures as the SDK raises them, with its default retries', () => {
  it('an unknown model: BadRequestError naming it, param model; no provider call, no retry', async () => {
    const refused = await failure(() => client().chat.completions.create({ model: 'no-such-model', messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(BadRequestError);
    const error = refused.error as BadRequestError;
    expect(error.status).toBe(400);
    expect(error.message).toContain('model no-such-model is not in the model catalogue');
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'model', code: 'BAD_REQUEST' });
    expect(refused).toMatchObject({ providerCalls: 0, sdkRequests: 1 });
  });

  it('a capability the model lacks: BadRequestError, whole or streamed; no provider call, no retry', async () => {
    const name = await model('echo');
    const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    for (const stream of [false, true]) {
      const refused = await failure(() => client().chat.completions.create({ model: name, messages: MESSAGES, tools, stream }));
      expect(refused.error).toBeInstanceOf(BadRequestError);
      expect((refused.error as BadRequestError).status).toBe(400);
      expect((refused.error as BadRequestError).message).toContain(`model ${name} does not support tools`);
      expect((refused.error as BadRequestError).param).toBe('tools');
      expect(refused).toMatchObject({ providerCalls: 0, sdkRequests: 1 });
    }
  });

  it("the provider's 400 (the request at fault): BadRequestError with the provider's message, one call", async () => {
    const refused = await failure(async () => client().chat.completions.create({ model: await model('error-400'), messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(BadRequestError);
    expect((refused.error as BadRequestError).status).toBe(400);
    expect((refused.error as BadRequestError).message).toContain('provider local answered 400: upstream refuses (Bearer [REDACTED])');
    expect(refused).toMatchObject({ providerCalls: 1, sdkRequests: 1 });
  });

  it("the provider's 401 (its key refused): InternalServerError 502, one call", async () => {
    const refused = await failure(async () => client().chat.completions.create({ model: await model('error-401'), messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(InternalServerError);
    expect((refused.error as InternalServerError).status).toBe(502);
    expect((refused.error as InternalServerError).message).toContain('provider local answered 401');
    expect(refused).toMatchObject({ providerCalls: 1, sdkRequests: 1 });
  });

  it("the provider's 429: RateLimitError with its Retry-After, retried by the SDK as it is told", async () => {
    const refused = await failure(async () => client().chat.completions.create({ model: await model('error-429-after-0'), messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(RateLimitError);
    const error = refused.error as RateLimitError;
    expect(error.status).toBe(429);
    expect(error.message).toContain('provider local answered 429');
    expect(error.headers.get('retry-after')).toBe('0');
    expect(error.type).toBe('rate_limit_error');
    expect(refused).toMatchObject({ providerCalls: DEFAULT_ATTEMPTS, sdkRequests: DEFAULT_ATTEMPTS });
  });

  it("the provider's 500: InternalServerError 502, which may pass, retried by the SDK", async () => {
    const refused = await failure(async () => client().chat.completions.create({ model: await model('error-500'), messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(InternalServerError);
    expect((refused.error as InternalServerError).status).toBe(502);
    expect((refused.error as InternalServerError).message).toContain('provider local answered 500');
    expect(refused).toMatchObject({ providerCalls: DEFAULT_ATTEMPTS, sdkRequests: DEFAULT_ATTEMPTS });
  });

  it('no answer in time: InternalServerError 504, one call (a retry would wait as long again)', async () => {
    const refused = await failure(async () => client().chat.completions.create({ model: await model('slow-start'), messages: MESSAGES }));
    expect(refused.error).toBeInstanceOf(InternalServerError);
    expect((refused.error as InternalServerError).status).toBe(504);
    expect((refused.error as InternalServerError).message).toContain('the upstream did not answer within 1 s');
    expect((refused.error as InternalServerError).type).toBe('timeout_error');
    expect(refused).toMatchObject({ providerCalls: 1, sdkRequests: 1 });
  });

  it('a failure after the first chunk: the stream raises APIError with the gateway message, one call', async () => {
    const name = await model('broken');
    let text = '';
    const refused = await failure(async () => {
      const stream = await client().chat.completions.create({ model: name, messages: MESSAGES, stream: true });
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    });
    expect(refused.error).toBeInstanceOf(APIError);
    expect((refused.error as APIError).status).toBeUndefined();
    expect((refused.error as APIError).message).toMatch(/^the upstream 127\.0\.0\.1:\d+ broke off its answer/);
    expect((refused.error as APIError).type).toBe('upstream_error');
    expect(text).toBe('');
    expect(refused).toMatchObject({ providerCalls: 1, sdkRequests: 1 });
  });
});
