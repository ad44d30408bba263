import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readAiGatewayConfig } from '../src/config/ai-gateway';
import { callersOf, type Caller } from './support/callers';
import { OpenAiUpstream, type ReceivedCompletion } from './support/openai-upstream';
import { startServer, unique, type TestServer } from './support/server';

/**
 * The AI gateway (docs/ai-gateway.md) against a real OpenAI-compatible
 * provider on 127.0.0.1 (test/support/openai-upstream.ts): capability refusals before any call, the
 * model name mapping, the reasoning rule, one error taxonomy for whole and streamed answers, streaming
 * as it arrives, abort on disconnect, and the provider key in no answer and no log line.
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
          expect(answer.body).toEqual({
            error: 'Bad Request',
            message: `model ${bare} does not support ${capability}`,
            status: 400,
            details: [{ field, message: `model ${bare} does not support ${capability}` }],
          });
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
      expect((await complete({ model: 'no-such-model', messages: MESSAGES })).body).toMatchObject({
        status: 400,
        message: 'model no-such-model is not in the model catalogue',
      });
      expect((await complete({ model: disabled, messages: MESSAGES })).body).toMatchObject({ status: 400, message: `model ${disabled} is disabled` });
      expect((await complete({ model: nowhere, messages: MESSAGES })).body).toEqual({
        error: 'Service Unavailable',
        status: 503,
        message: `model ${nowhere}: its provider "nowhere" is not configured on this server (aiGateway.providers)`,
      });
      expect((await complete({ model: keyUnset, messages: MESSAGES })).body).toMatchObject({
        status: 503,
        message: 'provider unsetKey: the environment variable AI_GATEWAY_TEST_UNSET holding its API key is not set',
      });
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
    expect((await server.request('POST', PATH, { body: { model: name, messages: MESSAGES }, key: null })).status).toBe(401);
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
  /** The same failure asked whole and streamed: both plain error bodies (the failure comes before the first chunk). */
  async function bothBeforeFirstChunk(name: string) {
    const whole = await complete({ model: name, messages: MESSAGES });
    const streamed = await stream({ model: name, messages: MESSAGES });
    expect(streamed.contentType).toMatch(/^application\/json/);
    expect(streamed.status).toBe(whole.status);
    expect(JSON.parse(streamed.text)).toEqual(whole.body);
    return whole.body;
  }

  it("an upstream error status is 502 with upstreamStatus and the provider's message", async () => {
    for (const status of [400, 429, 500, 503]) {
      const body = await bothBeforeFirstChunk(await model(`error-${status}`));
      expect(body).toEqual({
        error: 'Bad Gateway',
        status: 502,
        upstreamStatus: status,
        message: 'provider local answered ' + status + ': upstream refuses (Bearer [REDACTED])',
      });
    }
  });

  it('no answer in time is 504, before the first chunk and after it alike', async () => {
    const expected = { error: 'Gateway Timeout', status: 504, message: 'the upstream did not answer within 1 s' };
    expect(await bothBeforeFirstChunk(await model('slow-start'))).toEqual(expected);
    expect((await complete({ model: await model('slow'), messages: MESSAGES })).body).toEqual(expected);
    // Streamed: one chunk, then silence: the stream carries the same body as an error event, and ends.
    const streamed = await stream({ model: await model('slow'), messages: MESSAGES });
    expect(streamed.status).toBe(200);
    expect(streamed.events).toHaveLength(2);
    expect(streamed.events[1].event).toBe('error');
    expect(JSON.parse(streamed.events[1].data)).toEqual(expected);
  });

  it('a connection broken halfway is 502 with the same body, whole or after the first chunk', async () => {
    const name = await model('broken');
    const whole = await complete({ model: name, messages: MESSAGES });
    expect(whole.status).toBe(502);
    expect(whole.body).toEqual({
      error: 'Bad Gateway',
      status: 502,
      message: expect.stringMatching(/^the upstream 127\.0\.0\.1:\d+ broke off its answer \(UND_ERR_SOCKET\)$/),
    });
    const streamed = await stream({ model: name, messages: MESSAGES });
    expect(streamed.status).toBe(200);
    expect(streamed.events.map((e) => e.event)).toEqual([undefined, 'error']);
    expect(JSON.parse(streamed.events[1].data)).toEqual(whole.body);
  });

  it('an error event inside the stream ends it with event: error (502)', async () => {
    const streamed = await stream({ model: await model('error-event'), messages: MESSAGES });
    expect(streamed.events).toHaveLength(2);
    expect(streamed.events[1]).toEqual({
      event: 'error',
      data: JSON.stringify({ error: 'Bad Gateway', message: 'provider local sent an error: the model is overloaded', status: 502 }),
    });
  });

  it('an egress refusal is 400 with the egress text, and nothing is sent', async () => {
    expect(await bothBeforeFirstChunk(await model('echo', {}, 'metadata'))).toEqual({
      error: 'Bad Request',
      status: 400,
      message: 'service bridge egress denied: 169.254.169.254 is a cloud metadata address',
    });
    expect(await bothBeforeFirstChunk(await model('echo', {}, 'private'))).toEqual({
      error: 'Bad Request',
      status: 400,
      message: 'service bridge egress denied: 10.1.2.3 is a private address',
    });
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
  });
});

describe('the OpenAPI document', () => {
  it('describes POST /api/ai/chat/completions, its JSON and text/event-stream answers and its errors', async () => {
    const doc = (await server.request('GET', '/v3/api-docs', { key: member.key })).body;
    const operation = doc.paths[PATH].post;
    expect(operation.operationId).toBe('chatCompletion');
    expect(operation.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ChatCompletionRequest' });
    expect(Object.keys(operation.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '409', '413', '415', '422', '429', '502', '503', '504']);
    expect(doc.components.schemas.ChatCompletionRequest.required).toEqual(['model', 'messages']);
    expect(doc.components.responses.BadGateway.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpstreamError' });
    expect(doc.components.schemas.UpstreamError.allOf[1].properties.upstreamStatus.type).toBe('integer');
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
