import { ServiceUnavailableError } from '../../errors/api-error';
import type { ChangeFeed, RowChange } from './change-feed';

/**
 * Changes heard but not yet delivered, per subscription. A subscriber that falls this far behind (its
 * socket does not drain) has its subscription ended with an error rather than the server holding more.
 */
export const MAX_PENDING_CHANGES = 1_000;

export interface StreamOptions<T> {
  feed: ChangeFeed;
  key: string;
  /** Changes worth reading (platform events: creates only); all when absent. */
  wants?(change: RowChange): boolean;
  /** A change that ends the stream (the deletion of the one row it follows). */
  ends?(change: RowChange): boolean;
  /** The row as the subscriber may read it now; undefined when it may not, or it is gone. */
  read(change: RowChange): Promise<T | undefined>;
  /** Rows worth delivering once read (a filter on what the row holds); all when absent. */
  accepts?(row: T): boolean;
}

/**
 * The rows of one subscription, as an async iterator for graphql's `subscribe`: each change of `key`
 * is queued when heard and read when the subscriber takes it, one at a time, in commit order. A change
 * whose row the subscriber may not read is skipped. Returning (the client completes or disconnects)
 * unsubscribes at once.
 */
export class ChangeStream<T> implements AsyncIterableIterator<T> {
  private readonly pending: RowChange[] = [];
  private waiting?: () => void;
  private done = false;
  private overflowed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: StreamOptions<T>) {
    this.unsubscribe = options.feed.subscribe(options.key, (change) => this.hear(change));
  }

  private hear(change: RowChange): void {
    if (this.done || (this.options.wants && !this.options.wants(change))) return;
    if (this.pending.length >= MAX_PENDING_CHANGES) {
      this.overflowed = true;
      this.unsubscribe();
    } else {
      this.pending.push(change);
    }
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  async next(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      if (this.overflowed) {
        this.finish();
        throw new ServiceUnavailableError(`this subscription fell more than ${MAX_PENDING_CHANGES} changes behind and was ended: subscribe again`);
      }
      const change = this.pending.shift();
      if (!change) {
        await new Promise<void>((resolve) => (this.waiting = resolve));
        continue;
      }
      if (this.options.ends?.(change)) {
        this.finish();
        continue;
      }
      const row = await this.options.read(change);
      if (row !== undefined && !this.done && (!this.options.accepts || this.options.accepts(row))) return { done: false, value: row };
    }
  }

  async return(): Promise<IteratorResult<T>> {
    this.finish();
    return { done: true, value: undefined };
  }

  async throw(error?: unknown): Promise<IteratorResult<T>> {
    this.finish();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.pending.length = 0;
    this.unsubscribe();
    this.wake();
  }
}
