import type { RequestContext } from './context';

/** The PostgreSQL channel on which a write that changes who may do what is announced to every process. */
export const ACCESS_CHANGED_CHANNEL = 'platform_access_changed';

/** More entries than this and the cache starts afresh: it is a shortcut, never a store. */
const MAX_ENTRIES = 10_000;

interface Entry {
  value: unknown;
  expires: number;
}

/**
 * Credentials (API keys, bearer subjects) and memberships, kept per process so that a request does not
 * look them up again. A write that changes any of them announces it (see `announceAccessChange`) and
 * every process drops everything at once; the time limit only covers a lost announcement.
 */
export class AccessCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every clear: a lookup that began before it must not store what it read. */
  private generation = 0;

  constructor(private readonly ttlMs: number) {}

  /** Changes whenever what is cached may have become stale: what was derived from it must be derived again. */
  get version(): number {
    return this.generation;
  }

  /** The cached value, or what `load` finds (kept when `keep` accepts it: refusals are not worth keeping). */
  async get<V extends object>(key: string, load: () => Promise<V | null | undefined>, keep: (value: V) => boolean = () => true): Promise<V | null | undefined> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value as V;
    const generation = this.generation;
    const value = await load();
    if (value && keep(value) && this.ttlMs > 0 && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    }
    return value;
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

/**
 * Called inside the transaction of a write that changes keys, users, teams or memberships: the
 * notification reaches every process when the transaction commits (and never if it rolls back); this
 * process drops its own entries at once, and again as soon as the transaction has committed: what was
 * read in between still saw the access as it was before the commit.
 */
export async function announceAccessChange(ctx: RequestContext): Promise<void> {
  await ctx.em.getConnection().execute(`select pg_notify('${ACCESS_CHANGED_CHANNEL}', '')`, [], 'all', ctx.em.getTransactionContext());
  ctx.services.accessCache.clear();
  await ctx.afterCommit(async (outside) => outside.services.accessCache.clear());
}
