import { logger } from './logger';

/**
 * The log of one long-lived connection (or one kind of them) to a peer that may go away: one warning
 * when it is lost, one info line when it is back, and nothing at warn in between, however often the
 * connection retries or its users fail meanwhile (those go to debug). An outage of any length costs two
 * lines per connection, so an operator sees that it happened and when it ended without the log filling.
 */
export class OutageLog {
  private lostAt?: number;

  /** `what` names the connection in every line (`job queue`, `read pool` ...); `fields` go with each. */
  constructor(
    private readonly what: string,
    private readonly fields: Record<string, unknown> = {},
  ) {}

  /** Whether the connection is known lost (since `lost` and until `restored`). */
  get isLost(): boolean {
    return this.lostAt !== undefined;
  }

  /** The connection failed: a warning the first time, debug until it is restored. Returns whether this began the outage. */
  lost(error: unknown): boolean {
    const fields = { ...this.fields, err: messageOf(error) };
    if (this.lostAt !== undefined) {
      logger.debug(fields, `${this.what}: still unreachable`);
      return false;
    }
    this.lostAt = Date.now();
    logger.warn(fields, `${this.what}: connection lost; reconnecting by itself`);
    return true;
  }

  /** The connection works again: one info line when it had been lost. Returns whether this ended an outage. */
  restored(): boolean {
    if (this.lostAt === undefined) return false;
    const downSeconds = Math.round((Date.now() - this.lostAt) / 100) / 10;
    this.lostAt = undefined;
    logger.info({ ...this.fields, downSeconds }, `${this.what}: connection restored`);
    return true;
  }
}

/** An error's message alone: the outage's cause, without a stack (the failure is expected, not a defect). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
