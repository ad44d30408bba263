import { ConflictError } from '../errors/api-error';
import type { RequestContext } from './context';

/** A row with the lock fields of tasks and document families. */
export interface Lockable {
  id: string;
  locked: boolean;
}

export interface LockFields {
  locked: boolean;
  lockedAt: Date | null;
  lockedById: string | null;
}

/** The changes that lock `row` for the caller; 409 when it is already locked. */
export function lockOf(tx: RequestContext, row: Lockable, what: string): LockFields {
  if (row.locked) throw new ConflictError(`${what} ${row.id} is already locked`);
  return { locked: true, lockedAt: new Date(), lockedById: tx.user?.id ?? null };
}

/** The changes that unlock `row`; 409 when it is not locked. */
export function unlockOf(row: Lockable, what: string): LockFields {
  if (!row.locked) throw new ConflictError(`${what} ${row.id} is not locked`);
  return { locked: false, lockedAt: null, lockedById: null };
}
