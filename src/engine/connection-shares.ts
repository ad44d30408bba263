/** A count of connections held and the reads waiting for one, up to a bound. */
export class Semaphore {
  private held = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  get idle(): boolean {
    return this.held === 0 && this.queue.length === 0;
  }

  async acquire(): Promise<void> {
    if (this.held < this.limit) {
      this.held += 1;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  /** The connection passes to the next waiting read as it is: the count stays. */
  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.held -= 1;
  }

  /** Runs `work` holding one place: once one is free. */
  async holding<R>(work: () => Promise<R>): Promise<R> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}

/**
 * The read connections each user's requests hold together: at most `perUser` at once, so that one user
 * sending many requests (each within REQUEST_MAX_DB_CONNECTIONS) leaves the rest of the read pool to
 * everyone else; their further statements wait their turn.
 */
export class ConnectionShares {
  private readonly byUser = new Map<string, Semaphore>();

  constructor(readonly perUser: number) {}

  /** Runs `work` holding one of `user`'s connections. */
  async holding<R>(user: string, work: () => Promise<R>): Promise<R> {
    let share = this.byUser.get(user);
    if (!share) this.byUser.set(user, (share = new Semaphore(this.perUser)));
    try {
      return await share.holding(work);
    } finally {
      if (share.idle) this.byUser.delete(user);
    }
  }
}
