import { BadRequestError } from '../errors/api-error';
import type { ReadBudget } from '../database/read-pool';
import { DEFAULT_REQUEST_MAX_DB_CONNECTIONS, DEFAULT_RESPONSE_MAX_BYTES } from '../config/config';
import { Semaphore, type ConnectionShares } from './connection-shares';

/** What one request may spend: the bytes of its answer and the connections it holds at once. */
export interface RequestLimits {
  responseMaxBytes: number;
  maxDbConnections: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  responseMaxBytes: DEFAULT_RESPONSE_MAX_BYTES,
  maxDbConnections: DEFAULT_REQUEST_MAX_DB_CONNECTIONS,
};

/** An answer past RESPONSE_MAX_BYTES: refused whole, REST 400 and GraphQL BAD_REQUEST. */
export function responseTooLarge(limit: number): BadRequestError {
  return new BadRequestError(
    `the answer is larger than RESPONSE_MAX_BYTES (${limit} bytes): ask for fewer rows (pageSize), fewer fields or fewer aliases, or use an export`,
  );
}

/**
 * The one place a request's spending is counted, consulted by every read path of both faces: the bytes
 * the database hands it (each value as it is read, so an answer too large is refused while it is read,
 * not after it has filled the memory) and the connections it holds at once (GraphQL root fields beyond
 * REQUEST_MAX_DB_CONNECTIONS wait their turn). Rows are bounded by paging and time by the statement
 * timeout, both per statement.
 */
export class RequestBudget implements ReadBudget {
  /** Characters of values read from the database so far (a JSON text the database wrote counts whole). */
  private bytesRead = 0;
  private readonly connections: Semaphore;
  /** The root fields of a GraphQL document answered at once, as many as its connections. */
  private readonly rootFields: Semaphore;
  /** Set once the answer is known to be too large: every later read is refused at once. */
  private refusal?: BadRequestError;

  constructor(
    private readonly limits: RequestLimits | undefined,
    /** The connections of the request's user, shared by all their requests. */
    private readonly share?: { shares: ConnectionShares; user: string },
  ) {
    this.connections = new Semaphore(limits?.maxDbConnections ?? Number.MAX_SAFE_INTEGER);
    this.rootFields = new Semaphore(limits?.maxDbConnections ?? Number.MAX_SAFE_INTEGER);
  }

  /**
   * Runs the root field `work` once fewer than REQUEST_MAX_DB_CONNECTIONS of the document's root fields
   * run: a root field waits before it reads the caller's access and writes its statements, never after
   * (what changed meanwhile holds for it).
   */
  rootField<R>(work: () => Promise<R>): Promise<R> {
    return this.rootFields.holding(work);
  }

  /** No bound: the server's own work (jobs, start-up). */
  static unlimited(): RequestBudget {
    return new RequestBudget(undefined);
  }

  /**
   * The same connections bound, without a bound on bytes: for an export, which streams its rows rather
   * than answering them, and for a write, whose answer is the rows it wrote (a write is never refused
   * after it has been made).
   */
  withoutByteLimit(): RequestBudget {
    return new RequestBudget(this.limits && { ...this.limits, responseMaxBytes: Number.MAX_SAFE_INTEGER }, this.share);
  }

  /** Bytes still available to the answer: what a statement that writes its own JSON may return. */
  get bytesLeft(): number {
    return this.limits ? Math.max(0, this.limits.responseMaxBytes - this.bytesRead) : Number.MAX_SAFE_INTEGER;
  }

  /** Counts `bytes` of the answer read from the database; past the limit the request is refused. */
  spend(bytes: number): void {
    this.bytesRead += bytes;
    if (this.limits && this.bytesRead > this.limits.responseMaxBytes) this.refuse();
  }

  /** Throws when an answer of `length` characters is past the limit (the answer as written, references repeated). */
  checkAnswer(length: number): void {
    if (this.limits && length > this.limits.responseMaxBytes) this.refuse();
  }

  /**
   * Throws when `answer` would be written longer than the limit: its texts and names summed, stopping as
   * soon as they are past it. An answer built from shared objects (one row referenced by many) may be
   * far larger written out than read, and is refused before it is written.
   */
  checkAnswerValue(answer: unknown): void {
    if (!this.admitsAnswer(answer)) throw this.refusal;
  }

  /** Whether `answer` may be written (see `checkAnswerValue`); if not, the request's refusal is recorded. */
  admitsAnswer(answer: unknown): boolean {
    if (!this.limits || !writtenLengthExceeds(answer, this.limits.responseMaxBytes)) return true;
    this.refusal ??= responseTooLarge(this.limits.responseMaxBytes);
    return false;
  }

  /** Throws the refusal when the answer has already been found too large. */
  assertWithinBudget(): void {
    if (this.refusal) throw this.refusal;
  }

  get exceeded(): BadRequestError | undefined {
    return this.refusal;
  }

  /** Runs `work` holding one of the request's connections: beyond the limit, it waits for one to be released. */
  lease<R>(work: () => Promise<R>): Promise<R> {
    this.assertWithinBudget();
    const run = () => {
      this.assertWithinBudget();
      return work();
    };
    return this.connections.holding(() => (this.share ? this.share.shares.holding(this.share.user, run) : run()));
  }

  private refuse(): never {
    this.refusal ??= responseTooLarge(this.limits!.responseMaxBytes);
    throw this.refusal;
  }
}

/** Whether the JSON text of `value` would be longer than `limit` (a lower estimate: punctuation counts one). */
function writtenLengthExceeds(value: unknown, limit: number): boolean {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length) {
    const next = pending.pop();
    if (typeof next === 'string') length += next.length + 2;
    else if (Array.isArray(next)) {
      length += next.length + 1;
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      for (const [key, item] of Object.entries(next)) {
        length += key.length + 4;
        pending.push(item);
      }
    } else length += 5;
    if (length > limit) return true;
  }
  return false;
}
