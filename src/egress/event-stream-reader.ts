import { StringDecoder } from 'node:string_decoder';
import { BadGatewayError } from '../errors/api-error';
import { MAX_UPSTREAM_BODY_BYTES } from './upstream-call';

/** One server-sent event: its `event` field, if any, and its `data` lines joined by line feeds. */
export interface ServerSentEvent {
  event?: string;
  data: string;
}

/**
 * Reads a `text/event-stream` body as it arrives (the WHATWG event stream format): lines end with CRLF,
 * LF or CR, a blank line ends an event, `:` starts a comment, fields other than `data` and `event` are
 * ignored, and an event without data is not dispatched. An event larger than the upstream body limit
 * is 502. What is left unfinished at the end of the body is dropped, as the format says.
 */
export class EventStreamReader {
  private readonly decoder = new StringDecoder('utf8');
  /** Text of a line not yet ended. */
  private pending = '';
  private data: string[] = [];
  private dataLength = 0;
  private event: string | undefined;

  /** The events `chunk` completes. */
  push(chunk: Buffer): ServerSentEvent[] {
    this.pending += this.decoder.write(chunk);
    // A CR at the very end may be the first half of a CRLF: it waits for the next chunk.
    const cut = this.pending.endsWith('\r') ? this.pending.length - 1 : this.pending.length;
    const lines = this.pending.slice(0, cut).split(/\r\n|\r|\n/);
    this.pending = lines.pop()! + this.pending.slice(cut);
    if (this.pending.length + this.dataLength > MAX_UPSTREAM_BODY_BYTES)
      throw new BadGatewayError(`the upstream sent an event larger than ${MAX_UPSTREAM_BODY_BYTES / (1024 * 1024)} MB`);
    return lines.flatMap((line) => this.line(line));
  }

  private line(line: string): ServerSentEvent[] {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return [];
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
    if (field === 'data') {
      this.data.push(value);
      this.dataLength += value.length;
    } else if (field === 'event') this.event = value;
    return [];
  }

  private dispatch(): ServerSentEvent[] {
    const event: ServerSentEvent[] = this.data.length ? [{ ...(this.event ? { event: this.event } : {}), data: this.data.join('\n') }] : [];
    this.data = [];
    this.dataLength = 0;
    this.event = undefined;
    return event;
  }
}
