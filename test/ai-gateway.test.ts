import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readAiGatewayConfig } from '../src/config/ai-gateway';
import { callersOf, type Caller } from './support/callers';
import { OpenAiUpstream, type ReceivedCompletion } from './support/openai-upstream';
import { startServer, unique, type TestServer } from './support/server';

/**
 * The AI gateway (docs/ai-gateway.md) against a real OpenAI-compatible
 * provider on 127.0.0.1 (test/support/openai-upstream.ts): capability refusals before any call, the
 * model name mapping, the reasoning rule, one error taxonomy for whole and streamed answers in the shape
 * OpenAI clients read (with the status mapping and x-should-retry), the OpenAI model list, streaming as
 * it arrives, abort on disconnect, and the provider key in no answer and no log line.
 */

/** Every line the server logs while this suite runs (the real logger's configuration, written here). */
const logged = vi.hoisted(() => ({ lines: [] as string[] }));
vi.mock('../src/logging/logger', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/logging/logger')>();
  return { ...actual, logger: actual.createLogger({ write: (line: string) => void logged.lines.push(line) }, 'trace') };
});

const KEY_VARIABLE = 'AI_GATEWAY_TEST_KEY';
const KEY = `sk-test-${randomBytes(12).toString('hex')}`;
const PATH = '/api/ai/chat/completions';
const MESSAGES = [{ role: 'user', content: 'Say hello' }];

let server: TestServer;
let upstream: OpenAiUpstream;
let member: Caller;
const { newCaller, rest } = callersOf(() => server);

/** Every answer text this suite received: the key must be in none of them. */
const answers: string[] = [];

/** The `error.type` and `error.code` of each status the gateway answers. */
const KINDS: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'BAD_REQUEST'],
  401: ['authentication_error', 'UNAUTHENTICATED'],
  404: ['invalid_request_error', 'NOT_FOUND'],
  405: ['invalid_request_error', 'METHOD_NOT_ALLOWED'],
  413: ['invalid_request_error', 'PAYLOAD_TOO_LARGE'],
  422: ['invalid_request_error', 'UNPROCESSABLE_ENTITY'],
  429: ['rate_limit_error', 'RATE_LIMITED'],
  502: ['upstream_error', 'BAD_GATEWAY'],
  503: ['upstream_error', 'SERVICE_UNAVAILABLE'],
  504: ['timeout_error', 'GATEWAY_TIMEOUT'],
};

/** An error body of the gateway's paths: `error` the object OpenAI clients read, `message` and `status` as everywhere. */
function gatewayError(status: number, message: unknown, more: { param?: string; [field: string]: unknown } = {}) {
  const { param = null, ...rest } = more;
  const [type, code] = KINDS[status];
  return { error: { message, type, param, code }, message, status, ...rest };
}

type Flags = Partial<Record<'supports_tools' | 'supports_vision' | 'supports_documents' | 'reasoning_output' | 'enabled', boolean>>;

/** A catalogue model of `provider` (default `local`) whose upstream id is `upstreamModel` (the provider's behaviour). */
async function model(upstreamModel: string, flags: Flags = {}, provider = 'local'): Promise<string> {
  const name = unique(`m-${upstreamModel}`);
  await rest(null, 'POST', '/api/models', 201, { name, provider, upstreamModel, ...flags });
  return name;
}

async function complete(body: Record<string, unknown>, key?: string) {
  const answer = await server.request('POST', PATH, { body, key: key ?? member.key });
  answers.push(answer.text);
  return answer;
}

interface StreamAnswer {
  status: number;
  contentType: string | null;
  headers: Headers;
  text: string;
  events: { event?: string; data: string }[];
}

/** The server-sent events of a text/event-stream body. */
function eventsOf(text: string): { event?: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return event ? { event, data } : { data };
    });
}

function post(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': member.key },
    body: JSON.stringify(body),
    signal,
  });
}

async function stream(body: Record<string, unknown>): Promise<StreamAnswer> {
  const response = await post({ ...body, stream: true });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, contentType: response.headers.get('content-type'), headers: response.headers, text, events: eventsOf(text) };
}

/** Reads a streamed answer up to its first event (the rest stays unread). */
async function firstEvent(response: Response): Promise<{ reader: ReadableStreamDefaultReader<Uint8Array>; first: string }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { reader, first: text };
}

async function rest_of(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

async function until(condition: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  process.env[KEY_VARIABLE] = KEY;
  delete process.env.AI_GATEWAY_TEST_UNSET;
  upstream = await OpenAiUpstream.start();
  server = await startServer({
    egress: { privateHostAllowlist: ['127.0.0.1'] },
    aiGateway: readAiGatewayConfig({
      providers: {
        local: { baseUrl: upstream.baseUrl, apiKeyEnv: KEY_VARIABLE, timeoutSeconds: 1 },
        keyless: { baseUrl: `${upstream.baseUrl}/` },
        unsetKey: { baseUrl: upstream.baseUrl, apiKeyEnv: 'AI_GATEWAY_TEST_UNSET' },
        metadata: { baseUrl: 'http://169.254.169.254/v1' },
        private: { baseUrl: 'http://10.1.2.3/v1' },
      },
    }),
  });
  member = await newCaller('AiCaller');
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  delete process.env[KEY_VARIABLE];
});

describe('the model catalogue', () => {
  it('defaults upstreamModel to the name, on create and when an update blanks it', async () => {
    const name = unique('plain-model');
    const created = await rest(null, 'POST', '/api/models', 201, { name, provider: 'local' });
    expect(created).toMatchObject({ name, provider: 'local', upstreamModel: name, enabled: true, supports_tools: false, reasoning_output: false });
    const renamed = await rest(null, 'PUT', `/api/models/${created.id}`, 200, { upstreamModel: 'vendor-x' });
    expect(renamed.upstreamModel).toBe('vendor-x');
    expect((await rest(null, 'PUT', `/api/models/${created.id}`, 200, { upstreamModel: ' ' })).upstreamModel).toBe(name);
  });

  it('reads the aiGateway block: defaults filled in, a malformed provider refused naming the setting', () => {
    expect(readAiGatewayConfig(undefined)).toEqual({ providers: {} });
    expect(readAiGatewayConfig({ providers: { p: { baseUrl: 'https://ai.example.com/v1/' } } })).toEqual({
      providers: { p: { baseUrl: 'https://ai.example.com/v1', timeoutSeconds: 60 } },
    });
    expect(() => readAiGatewayConfig({ providers: { p: {} } })).toThrow('aiGateway.providers.p.baseUrl is required');
    expect(() => readAiGatewayConfig({ providers: { p: { baseUrl: 'ftp://x' } } })).toThrow('aiGateway.providers.p.baseUrl must be an http or https URL');
    expect(() => readAiGatewayConfig({ providers: { p: { baseUrl: 'http://x', apiKeyEnv: 'not a name' } } })).toThrow(
      'aiGateway.providers.p.apiKeyEnv must be the name',
    );
    expect(() => readAiGatewayConfig({ providers: { p: { baseUrl: 'http://x', timeoutSeconds: 0 } } })).toThrow(
      'aiGateway.providers.p.timeoutSeconds must be a positive',
    );
    expect(() => readAiGatewayConfig({ providers: { p: 'http://x' } })).toThrow('aiGateway.providers.p must be a mapping');
  });
});

describe('POST /api/ai/chat/completions', () => {
  it("sends the upstreamModel with the provider's key and answers the upstream JSON naming the catalogue model", async () => {
    const name = await model('echo', { reasoning_output: true });
    let answer!: Awaited<ReturnType<typeof complete>>;
    const [received] = await upstream.during(async () => {
      answer = await complete({ model: name, messages: MESSAGES, temperature: 0.2 });
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(received.url).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(received.body).toEqual({ model: 'echo', messages: MESSAGES, temperature: 0.2 });
    expect(answer.body).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_790_000_000,
      model: name,
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello', reasoning: 'Let me think', reasoning_content: 'thinking' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
    expect(answer.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('drops reasoning unless the model has reasoning_output', async () => {
    const name = await model('echo');
    const answer = await complete({ model: name, messages: MESSAGES });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.choices[0].message).toEqual({ role: 'assistant', content: 'Hello' });
  });

  it('sends no Authorization to a provider without apiKeyEnv (a trailing slash on baseUrl is fine)', async () => {
    const name = await model('echo', {}, 'keyless');
    const [received] = await upstream.during(() => complete({ model: name, messages: MESSAGES }));
    expect(received.url).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBeUndefined();
  });

  it('refuses a missing capability with 400 before any upstream call, tools first, then images, then documents', async () => {
    const bare = await model('echo');
    const image = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
    const document = { type: 'document', document: { name: 'a.pdf', mimeType: 'application/pdf', data: 'JVBERi0=' } };
    const withParts = (...parts: unknown[]) => [{ role: 'user', content: [{ type: 'text', text: 'Look' }, ...parts] }];
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const cases: [Record<string, unknown>, string, string][] = [
      [{ messages: MESSAGES, tools }, 'tools', 'tools'],
      [{ messages: withParts(document, image), tools }, 'tools', 'tools'],
      [{ messages: withParts(document, image) }, 'images', 'messages[0].content[2]'],
      [{ messages: withParts(document) }, 'documents', 'messages[0].content[1]'],
    ];
    for (const [body, capability, field] of cases) {
      for (const streamed of [false, true]) {
        const calls = await upstream.during(async () => {
          const answer = await complete({ model: bare, ...body, stream: streamed });
          expect(answer.status, answer.text).toBe(400);
          expect(answer.headers.get('x-should-retry')).toBe('false');
          expect(answer.body).toEqual(
            gatewayError(400, `model ${bare} does not support ${capability}`, {
              param: field,
              details: [{ field, message: `model ${bare} does not support ${capability}` }],
            }),
          );
        });
        expect(calls).toEqual([]);
      }
    }
    // A model with the capabilities takes the same requests; an empty tools list is no tools.
    const able = await model('echo', { supports_tools: true, supports_vision: true, supports_documents: true });
    const [received] = await upstream.during(async () =>
      expect((await complete({ model: able, messages: withParts(document, image), tools })).status).toBe(200),
    );
    expect(received.body.tools).toEqual(tools);
    expect((await complete({ model: bare, messages: MESSAGES, tools: [] })).status).toBe(200);
  });

  it('refuses an unknown or disabled model, a provider not configured and an unset key before any upstream call', async () => {
    const disabled = await model('echo', { enabled: false });
    const nowhere = await model('echo', {}, 'nowhere');
    const keyUnset = await model('echo', {}, 'unsetKey');
    const calls = await upstream.during(async () => {
      const unknown = await complete({ model: 'no-such-model', messages: MESSAGES });
      expect(unknown.body).toMatchObject(gatewayError(400, 'model no-such-model is not in the model catalogue', { param: 'model' }));
      expect(unknown.headers.get('x-should-retry')).toBe('false');
      expect((await complete({ model: disabled, messages: MESSAGES })).body).toMatchObject(
        gatewayError(400, `model ${disabled} is disabled`, { param: 'model' }),
      );
      const notConfigured = await complete({ model: nowhere, messages: MESSAGES });
      expect(notConfigured.body).toEqual(gatewayError(503, `model ${nowhere}: its provider "nowhere" is not configured on this server (aiGateway.providers)`));
      expect(notConfigured.headers.get('x-should-retry')).toBe('false');
      expect((await complete({ model: keyUnset, messages: MESSAGES })).body).toEqual(
        gatewayError(503, 'provider unsetKey: the environment variable AI_GATEWAY_TEST_UNSET holding its API key is not set'),
      );
    });
    expect(calls).toEqual([]);
  });

  it('checks the body: model, messages, parts, stream; other methods are 405', async () => {
    const name = await model('echo');
    const refusals: [unknown, string][] = [
      [[], 'a chat completion must be a JSON object {model, messages, tools?, stream?}'],
      [{ messages: MESSAGES }, 'model: must be the name of a model of the catalogue'],
      [{ model: name }, 'messages: must be a non-empty list of {role, content}'],
      [{ model: name, messages: [{ content: 'x' }] }, 'messages[0].role: must be a non-blank text'],
      [{ model: name, messages: [{ role: 'user', content: 7 }] }, 'messages[0].content: must be a text or a list of parts'],
      [{ model: name, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages[0].content[0].image_url.url: must be a text'],
      [
        { model: name, messages: [{ role: 'user', content: [{ text: 'no type' }] }] },
        'messages[0].content[0]: must be an object with a type (text, image_url, document)',
      ],
      [{ model: name, messages: MESSAGES, stream: 'yes' }, 'stream: must be true or false'],
      [{ model: name, messages: MESSAGES, tools: {} }, 'tools: must be a list of tools'],
    ];
    const calls = await upstream.during(async () => {
      for (const [body, message] of refusals) {
        const answer = await server.request('POST', PATH, { body: JSON.stringify(body), key: member.key });
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.message).toBe(message);
      }
    });
    expect(calls).toEqual([]);
    const get = await server.request('GET', PATH, { key: member.key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.body).toEqual(gatewayError(405, `${PATH} does not support GET; allowed: POST`));
  });

  it('answers every refusal of its paths in the OpenAI shape with x-should-retry: false, and nothing is sent', async () => {
    const name = await model('echo');
    const calls = await upstream.during(async () => {
      const refusals = [
        await server.request('POST', PATH, { body: { model: name, messages: MESSAGES }, key: null }),
        await server.request('POST', PATH, { body: { model: name, messages: MESSAGES }, key: `pk_${unique('unknown')}` }),
        await server.request('POST', PATH, { body: '{"model": ', key: member.key }),
        await server.request('GET', '/api/ai/nothing-here', { key: member.key }),
        await server.request('DELETE', '/api/ai/models', { key: member.key }),
      ];
      expect(refusals.map((answer) => answer.status)).toEqual([401, 401, 400, 404, 405]);
      for (const answer of refusals) {
        expect(answer.body).toEqual(gatewayError(answer.status, expect.any(String)));
        expect(answer.body.error.message).toBe(answer.body.message);
        expect(answer.headers.get('x-should-retry'), answer.text).toBe('false');
      }
    });
    expect(calls).toEqual([]);
    // Elsewhere errors keep their usual body and no x-should-retry.
    const elsewhere = await server.request('GET', '/api/models/not-a-uuid', { key: member.key });
    expect(elsewhere.body).toMatchObject({ error: 'Bad Request', status: 400 });
    expect(elsewhere.headers.get('x-should-retry')).toBeNull();
  });

  it('takes the API key as a bearer token, as OpenAI clients send it', async () => {
    const name = await model('echo');
    const response = await fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${member.key}` },
      body: JSON.stringify({ model: name, messages: MESSAGES }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await response.json()).model).toBe(name);
  });
});

describe('GET /api/ai/models', () => {
  it('lists the enabled models of the catalogue the OpenAI way, by name', async () => {
    const enabled = await model('echo', {}, 'keyless');
    const disabled = await model('echo', { enabled: false });
    const answer = await server.request('GET', '/api/ai/models', { key: member.key });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.object).toBe('list');
    const ids = answer.body.data.map((entry: { id: string }) => entry.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).not.toContain(disabled);
    const created = (await rest(null, 'GET', `/api/models?filter=${encodeURIComponent(`name=='${enabled}'`)}`, 200)).content[0];
    expect(answer.body.data.find((entry: { id: string }) => entry.id === enabled)).toEqual({
      id: enabled,
      object: 'model',
      created: Math.floor(new Date(created.createdOn).getTime() / 1000),
      owned_by: 'keyless',
    });
  });
});

describe('streaming', () => {
  it('passes the chunks through as server-sent events, the model named as in the catalogue, ending with [DONE]', async () => {
    const name = await model('echo', { reasoning_output: true });
    let answer!: StreamAnswer;
    const [received] = await upstream.during(async () => {
      answer = await stream({ model: name, messages: MESSAGES });
    });
    expect(received.body).toEqual({ model: 'echo', messages: MESSAGES, stream: true });
    expect(received.headers.accept).toBe('text/event-stream');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(answer.headers.get('x-ratelimit-remaining')).toBeTruthy();
    expect(answer.events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = answer.events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks.map((c) => c.model)).toEqual([name, name, name, name]);
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: 'assistant', content: '', reasoning: 'Let me think', reasoning_content: 'thinking' },
      { content: 'Hel' },
      { content: 'lo' },
      {},
    ]);
  });

  it('drops reasoning from the deltas unless the model has reasoning_output', async () => {
    const answer = await stream({ model: await model('echo'), messages: MESSAGES });
    expect(answer.events.slice(0, -1).map((e) => JSON.parse(e.data).choices[0].delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { content: 'lo' },
      {},
    ]);
  });

  it('sends each chunk as it arrives: the first is read while the upstream still holds the rest', async () => {
    const name = await model('paced');
    const response = await post({ model: name, messages: MESSAGES, stream: true });
    expect(response.status).toBe(200);
    const { reader, first } = await firstEvent(response);
    expect(JSON.parse(eventsOf(first)[0].data).choices[0].delta).toEqual({ role: 'assistant', content: '' });
    upstream.release();
    const rest = eventsOf(await rest_of(reader));
    expect(rest.map((e) => e.data).at(-1)).toBe('[DONE]');
    expect(JSON.parse(rest[0].data).choices[0].delta).toEqual({ content: 'later' });
  });

  it('aborts the upstream call when the client disconnects', async () => {
    const name = await model('endless');
    const controller = new AbortController();
    const before = upstream.received.length;
    const response = await post({ model: name, messages: MESSAGES, stream: true }, controller.signal);
    await firstEvent(response);
    const received = upstream.received[before];
    expect(received.closedEarly).toBe(false);
    controller.abort();
    await until(() => received.closedEarly);
  });

  it('aborts the upstream call of a whole answer too when the client disconnects', async () => {
    const name = await model('slow');
    const controller = new AbortController();
    const before = upstream.received.length;
    const pending = post({ model: name, messages: MESSAGES }, controller.signal).catch(() => 'aborted');
    await until(() => upstream.received.length > before);
    controller.abort();
    expect(await pending).toBe('aborted');
    await until(() => upstream.received[before].closedEarly);
  });
});

describe('one error taxonomy, whole or streamed', () => {
  /**
   * The same failure asked whole and streamed: both plain error bodies with the same status and retry
   * headers (the failure comes before the first chunk); the provider called once each time.
   */
  async function bothBeforeFirstChunk(name: string) {
    let whole!: Awaited<ReturnType<typeof complete>>;
    let streamed!: StreamAnswer;
    const calls = await upstream.during(async () => {
      whole = await complete({ model: name, messages: MESSAGES });
      streamed = await stream({ model: name, messages: MESSAGES });
    });
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(streamed.contentType).toMatch(/^application\/json/);
    expect(streamed.status).toBe(whole.status);
    expect(JSON.parse(streamed.text)).toEqual(whole.body);
    for (const header of ['x-should-retry', 'retry-after']) expect(streamed.headers.get(header)).toBe(whole.headers.get(header));
    return { status: whole.status, body: whole.body, shouldRetry: whole.headers.get('x-should-retry'), retryAfter: whole.headers.get('retry-after') };
  }

  it("maps the upstream's error statuses: the caller's faults kept, 429 with Retry-After, a refused provider key and 5xx 502", async () => {
    const cases: [upstreamModel: string, status: number, shouldRetry: string | null, retryAfter: string | null][] = [
      ['error-400', 400, 'false', null],
      ['error-404', 404, 'false', null],
      ['error-413', 413, 'false', null],
      ['error-422', 422, 'false', null],
      ['error-429-after-7', 429, null, '7'],
      ['error-429', 429, null, null],
      ['error-401', 502, 'false', null],
      ['error-403', 502, 'false', null],
      ['error-500', 502, null, null],
      ['error-503', 502, null, null],
    ];
    for (const [upstreamModel, status, shouldRetry, retryAfter] of cases) {
      const upstreamStatus = Number(upstreamModel.slice(6, 9));
      const answer = await bothBeforeFirstChunk(await model(upstreamModel));
      expect({ upstreamModel, status: answer.status, shouldRetry: answer.shouldRetry, retryAfter: answer.retryAfter }).toEqual({
        upstreamModel,
        status,
        shouldRetry,
        retryAfter,
      });
      expect(answer.body).toEqual(gatewayError(status, `provider local answered ${upstreamStatus}: upstream refuses (Bearer [REDACTED])`, { upstreamStatus }));
    }
  });

  it('no answer in time is 504 with x-should-retry: false, before the first chunk and after it alike', async () => {
    const expected = gatewayError(504, 'the upstream did not answer within 1 s');
    const before = await bothBeforeFirstChunk(await model('slow-start'));
    expect(before.body).toEqual(expected);
    expect(before.shouldRetry).toBe('false');
    expect((await complete({ model: await model('slow'), messages: MESSAGES })).body).toEqual(expected);
    // Streamed: one chunk, then silence: the stream carries the same body as an error event, and ends.
    const streamed = await stream({ model: await model('slow'), messages: MESSAGES });
    expect(streamed.status).toBe(200);
    expect(streamed.events).toHaveLength(2);
    expect(streamed.events[1].event).toBe('error');
    expect(JSON.parse(streamed.events[1].data)).toEqual(expected);
  });

  it('a connection broken halfway is 502 with the same body, whole or after the first chunk, left to the client to retry', async () => {
    const name = await model('broken');
    const whole = await complete({ model: name, messages: MESSAGES });
    expect(whole.status).toBe(502);
    expect(whole.headers.get('x-should-retry')).toBeNull();
    expect(whole.body).toEqual(gatewayError(502, expect.stringMatching(/^the upstream 127\.0\.0\.1:\d+ broke off its answer \(UND_ERR_SOCKET\)$/)));
    const streamed = await stream({ model: name, messages: MESSAGES });
    expect(streamed.status).toBe(200);
    expect(streamed.events.map((e) => e.event)).toEqual([undefined, 'error']);
    expect(JSON.parse(streamed.events[1].data)).toEqual(whole.body);
  });

  it('an error event inside the stream ends it with event: error (502)', async () => {
    const streamed = await stream({ model: await model('error-event'), messages: MESSAGES });
    expect(streamed.events).toHaveLength(2);
    expect(streamed.events[1].event).toBe('error');
    expect(JSON.parse(streamed.events[1].data)).toEqual(gatewayError(502, 'provider local sent an error: the model is overloaded'));
  });

  it('an egress refusal is 400 with the egress text and x-should-retry: false, and nothing is sent', async () => {
    for (const [provider, reason] of [
      ['metadata', '169.254.169.254 is a cloud metadata address'],
      ['private', '10.1.2.3 is a private address'],
    ]) {
      const answer = await bothBeforeFirstChunk(await model('echo', {}, provider));
      expect(answer.body).toEqual(gatewayError(400, `service bridge egress denied: ${reason}`));
      expect(answer.shouldRetry).toBe('false');
    }
  });
});

describe('GraphQL chatCompletion', () => {
  it('answers as the REST call does, with the same refusals and failures', async () => {
    const name = await model('echo');
    const mutation = 'mutation($input: JSON!) { chatCompletion(input: $input) }';
    const data = await server.graphqlData(mutation, { input: { model: name, messages: MESSAGES } }, member.key);
    const viaRest = await complete({ model: name, messages: MESSAGES });
    expect(data.chatCompletion).toEqual(viaRest.body);

    const refused = await server.graphql(mutation, { input: { model: name, messages: MESSAGES, tools: [{ type: 'function' }] } }, member.key);
    expect(refused.body.errors[0]).toMatchObject({ message: `model ${name} does not support tools`, extensions: { code: 'BAD_REQUEST', status: 400 } });
    const streamed = await server.graphql(mutation, { input: { model: name, messages: MESSAGES, stream: true } }, member.key);
    expect(streamed.body.errors[0]).toMatchObject({
      message: 'stream: a streamed answer is served by POST /api/ai/chat/completions only',
      extensions: { status: 400 },
    });
    const failed = await server.graphql(mutation, { input: { model: await model('error-500'), messages: MESSAGES } }, member.key);
    answers.push(failed.text);
    expect(failed.body.errors[0]).toMatchObject({
      message: 'provider local answered 500: upstream refuses (Bearer [REDACTED])',
      extensions: { code: 'BAD_GATEWAY', status: 502, upstreamStatus: 500 },
    });
    const tooMany = await server.graphql(mutation, { input: { model: await model('error-429-after-3'), messages: MESSAGES } }, member.key);
    answers.push(tooMany.text);
    expect(tooMany.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED', status: 429, upstreamStatus: 429, retryAfter: 3 } });
  });
});

describe('the OpenAPI document', () => {
  it('describes POST /api/ai/chat/completions, its JSON and text/event-stream answers and its errors in the OpenAI shape', async () => {
    const doc = (await server.request('GET', '/v3/api-docs', { key: member.key })).body;
    const operation = doc.paths[PATH].post;
    expect(operation.operationId).toBe('chatCompletion');
    expect(operation.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ChatCompletionRequest' });
    expect(Object.keys(operation.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '502', '503', '504']);
    expect(doc.components.schemas.ChatCompletionRequest.required).toEqual(['model', 'messages']);
    const shared = (answer: { $ref: string }) => doc.components.responses[answer.$ref.replace('#/components/responses/', '')];
    for (const [status, answer] of Object.entries<any>(operation.responses)) {
      if (status === '200') continue;
      expect(answer.$ref, status).toMatch(/^#\/components\/responses\/OpenAi/);
      expect(shared(answer).content['application/json'].schema, status).toEqual({ $ref: '#/components/schemas/OpenAiError' });
      expect(shared(answer).headers['x-should-retry'], status).toEqual({ $ref: '#/components/headers/x-should-retry' });
    }
    expect(shared(operation.responses['429']).headers['Retry-After']).toBeDefined();
    expect(doc.components.schemas.OpenAiError.properties.error.required).toEqual(['message', 'type', 'param', 'code']);
    // Elsewhere the shared answers keep the usual body.
    expect(doc.components.responses.BadGateway.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpstreamError' });
    const models = doc.paths['/api/ai/models'].get;
    expect(models.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AiModelList' });
    expect(shared(models.responses['401']).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OpenAiError' });
  });
});

describe('the provider key', () => {
  it('never appears in an answer, whole or streamed, nor in a log line', async () => {
    const name = await model('echo-key');
    const whole = await complete({ model: name, messages: MESSAGES });
    expect(whole.body.choices[0].message.content).toBe('you sent Bearer [REDACTED]');
    const streamed = await stream({ model: name, messages: MESSAGES });
    expect(JSON.parse(streamed.events[1].data).choices[0].delta.content).toBe('you sent Bearer [REDACTED]');

    const sent: ReceivedCompletion[] = upstream.received.filter((r) => r.headers.authorization === `Bearer ${KEY}`);
    expect(sent.length).toBeGreaterThan(5);
    expect(answers.length).toBeGreaterThan(20);
    for (const text of answers) expect(text).not.toContain(KEY);
    expect(logged.lines.some((line) => line.includes('"chat completion"'))).toBe(true);
    expect(logged.lines.some((line) => line.includes('"chat completion failed"'))).toBe(true);
    for (const line of logged.lines) expect(line).not.toContain(KEY);
  });
});
