import type { Response } from 'express';
import type { ApiError } from '../errors/api-error';
import { openAiErrorBody } from '../errors/openai-error';
import type { ChatStreamSink } from '../modules/ai/ai-gateway';

/**
 * A `text/event-stream` answer written as chunks arrive: the status and headers go with the first
 * chunk (before it, a failure is still answered as a plain error body), each chunk is written at once
 * as `data:` lines, and the stream ends with `data: [DONE]`, or with `event: error` carrying the error
 * body as OpenAI clients read it (this answer is the AI gateway's). A client that reads slowly holds the next chunk back (backpressure), not the server's memory.
 */
export class EventStreamAnswer implements ChatStreamSink {
  private begun = false;

  constructor(private readonly res: Response) {}

  /** Whether the first chunk was written (and with it the status and headers). */
  get started(): boolean {
    return this.begun;
  }

  chunk(data: string): Promise<void> {
    if (!this.begun) this.begin();
    return this.write(
      `${data
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n')}\n\n`,
    );
  }

  end(): void {
    if (!this.begun) this.begin();
    this.res.end('data: [DONE]\n\n');
  }

  fail(error: ApiError): void {
    if (this.res.destroyed) return;
    this.res.end(`event: error\ndata: ${JSON.stringify(openAiErrorBody(error))}\n\n`);
  }

  private begin(): void {
    this.begun = true;
    this.res.status(200).set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    this.res.flushHeaders();
  }

  private write(text: string): Promise<void> {
    if (this.res.destroyed || this.res.write(text)) return Promise.resolve();
    return new Promise((resolve) => {
      const go = () => {
        this.res.off('drain', go);
        this.res.off('close', go);
        resolve();
      };
      this.res.on('drain', go);
      this.res.on('close', go);
    });
  }
}
