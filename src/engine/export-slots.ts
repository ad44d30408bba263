import { RateLimitedError } from '../errors/api-error';

/** What a user refused another export is asked to wait: exports end when their clients have read them, which no one can foresee. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

/**
 * The exports streaming now in this process, counted by user (all their API keys and bearer tokens
 * together): each holds a batch of rows while its client reads, so one user may stream only so many.
 */
export class ExportSlots {
  private readonly streaming = new Map<string, number>();

  /** EXPORT_MAX_CONCURRENT_PER_USER. */
  constructor(readonly perUser: number) {}

  /**
   * Counts one more export of `user`, or refuses it (429) while they stream `perUser` already; the
   * function returned ends the count (calling it again does nothing).
   */
  take(user: string): () => void {
    const held = this.streaming.get(user) ?? 0;
    if (held >= this.perUser) throw tooManyExports(this.perUser);
    this.streaming.set(user, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.streaming.get(user) ?? 1) - 1;
      if (left === 0) this.streaming.delete(user);
      else this.streaming.set(user, left);
    };
  }
}

function tooManyExports(perUser: number): RateLimitedError {
  const error = new RateLimitedError(
    `too many exports at once: this user already streams ${perUser}, the limit of EXPORT_MAX_CONCURRENT_PER_USER (${perUser}); retry after ${EXPORT_RETRY_AFTER_SECONDS} s, once one has ended`,
  );
  error.retryAfter = EXPORT_RETRY_AFTER_SECONDS;
  return error;
}
