import type { Resource } from '../model/resource';
import type { RequestContext } from './context';

/**
 * Per-resource business rules the generic service calls at fixed points; each runs inside the write's
 * transaction, so anything it throws leaves nothing written.
 */
export interface ResourceRules<T extends object> {
  /**
   * Complete derived values (slugs, owner ids) of a new row before it is inserted. `sent` holds only
   * the fields the body carried (`values` is already completed with defaults).
   */
  beforeCreate?(ctx: RequestContext, values: Partial<T>, sent: Partial<T>): Promise<void>;
  /**
   * React to the changed values of an existing row before it is saved; may adjust `changes`. `sent`
   * holds every field the body carried, also those equal to the stored value (absent from `changes`).
   */
  beforeUpdate?(ctx: RequestContext, entity: T, changes: Partial<T>, sent: Partial<T>): Promise<void>;
  /**
   * The earlier row a create repeats (an execution's `idempotencyKey`), looked up once the caller may
   * create it: answered instead of a new row, and nothing is written.
   */
  replayOf?(ctx: RequestContext, values: Partial<T>): Promise<T | undefined>;
  /** Create dependent rows once the new row exists. */
  afterCreate?(ctx: RequestContext, entity: T): Promise<void>;
  /**
   * React to an update once it is written (not called when nothing changed): `entity` is the row as it
   * is now, `changes` the columns the write changed (the server's changeSequence and updatedOn among
   * them), `before` the row as it was.
   */
  afterUpdate?(ctx: RequestContext, entity: T, changes: Partial<T>, before: T): Promise<void>;
  /** Refuse a delete that would break an invariant. */
  beforeDelete?(ctx: RequestContext, entity: T): Promise<void>;
  /** Record a delete once it is written (soft or hard); `entity` is the row as it was before. */
  afterDelete?(ctx: RequestContext, entity: T): Promise<void>;
}

/** A registered resource with the rules its service applies (none: the generic behaviour alone). */
export interface ResourceWithRules<T extends object = object> extends Resource<T> {
  rules: ResourceRules<T>;
}
