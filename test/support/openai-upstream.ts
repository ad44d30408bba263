import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat completion request the upstream received. */
export interface ReceivedCompletion {
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
  /** Set when the connection closed before the upstream finished its answer. */
  closedEarly: boolean;
}

/**
 * A real OpenAI-compatible provider on 127.0.0.1: `POST <origin>/v1/chat/completions`, behaving by the
 * `model` it is asked for (the catalogue's upstreamModel), whole or streamed (`stream: true`):
 * - `echo`: an answer with content "Hello", reasoning and reasoning_content (streamed: three chunks, then [DONE]);
 * - `paced`: streamed only; the first chunk, then the rest once `release()` is called;
 * - `error-<n>`: status n with an OpenAI error body whose message repeats the Authorization header
 *   (`error-<n>-after-<s>`: with `Retry-After: <s>`);
 * - `broken`: half of the answer, then the connection is destroyed (streamed: one chunk first);
 * - `slow`: the whole answer after 5 s (streamed: one chunk, then silence);
 * - `slow-start`: nothing for 5 s (streamed too);
 * - `endless`: streamed only, a chunk every 50 ms until the connection closes;
 * - `error-event`: streamed only; one chunk, then `data: {"error": ...}`;
 * - `echo-key`: content repeating the Authorization header (streamed: in a chunk).
 */
export class OpenAiUpstream {
  /** Every request received, in order: the calls made to this provider. */
  readonly received: ReceivedCompletion[] = [];
  port = 0;
  private server!: Server;
  private releases: (() => void)[] = [];

  static async start(): Promise<OpenAiUpstream> {
    const upstream = new OpenAiUpstream();
    upstream.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received: ReceivedCompletion = {
          url: req.url!,
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
          closedEarly: false,
        };
        upstream.received.push(received);
        res.on('close', () => {
          if (!res.writableFinished) received.closedEarly = true;
        });
        upstream.answer(received, res);
      });
    });
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
    upstream.port = (upstream.server.address() as AddressInfo).port;
    return upstream;
  }

  /** The base URL of the provider (`aiGateway.providers.<name>.baseUrl`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** The requests received while `work` ran. */
  async during(work: () => Promise<unknown>): Promise<ReceivedCompletion[]> {
    const before = this.received.length;
    await work();
    return this.received.slice(before);
  }

  /** Lets every `paced` stream send the rest of its chunks. */
  release(): void {
    for (const release of this.releases.splice(0)) release();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(received: ReceivedCompletion, res: ServerResponse): void {
    res.on('error', () => undefined);
    const model = String(received.body.model);
    const stream = received.body.stream === true;
    if (received.url !== '/v1/chat/completions') return void json(res, 404, { error: { message: `no route ${received.url}` } });
    const error = /^error-(\d{3})(?:-after-(\d+))?$/.exec(model);
    if (error) {
      const [, status, retryAfter] = error;
      return void json(
        res,
        Number(status),
        { error: { message: `upstream refuses (${received.headers.authorization})`, type: 'invalid_request_error' } },
        retryAfter === undefined ? {} : { 'retry-after': retryAfter },
      );
    }
    if (model === 'slow-start') return void setTimeout(() => json(res, 200, completion(model, 'late')), 5_000).unref();
    if (stream) this.stream(model, received, res);
    else this.whole(model, received, res);
  }

  private whole(model: string, received: ReceivedCompletion, res: ServerResponse): void {
    const answer = completion(model, model === 'echo-key' ? `you sent ${received.headers.authorization}` : 'Hello');
    if (model === 'slow') return void setTimeout(() => json(res, 200, answer), 5_000).unref();
    if (model === 'broken') {
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.write(text.slice(0, text.length / 2));
      return void setTimeout(() => res.destroy(), 50);
    }
    json(res, 200, answer);
  }

  private stream(model: string, received: ReceivedCompletion, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const done = () => res.end('data: [DONE]\n\n');
    send(chunk(model, { role: 'assistant', content: '', reasoning: 'Let me think', reasoning_content: 'thinking' }));
    switch (model) {
      case 'paced':
        this.releases.push(() => {
          send(chunk(model, { content: 'later' }));
          done();
        });
        return;
      case 'broken':
        return void setTimeout(() => res.destroy(), 50);
      case 'slow':
        return;
      case 'endless': {
        const timer = setInterval(() => send(chunk(model, { content: '.' })), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'error-event':
        res.write(': a comment line\n\n');
        return void res.end(`data: ${JSON.stringify({ error: { message: 'the model is overloaded' } })}\n\n`);
      case 'echo-key':
        send(chunk(model, { content: `you sent ${received.headers.authorization}` }));
        return done();
      default:
        send(chunk(model, { content: 'Hel' }));
        // One event split across two writes, with CRLF line ends.
        res.write(`data: ${JSON.stringify(chunk(model, { content: 'lo' }))}\r\n`);
        setTimeout(() => {
          res.write('\r\n');
          send({ ...chunk(model, {}), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
          done();
        }, 20);
    }
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function completion(model: string, content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_790_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, reasoning: 'Let me think', reasoning_content: 'thinking' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

function chunk(model: string, delta: Record<string, unknown>) {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_790_000_000, model, choices: [{ index: 0, delta, finish_reason: null }] };
}
