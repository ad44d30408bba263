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
   * `afterCreate` only records other rows (`record`) and defers the rest until after the commit; it reads
   * nothing the create writes: the new row and those rows are then inserted by one statement.
   */
  afterCreateOnlyInserts?: boolean;
  /**
   * React to an update once it is written (not called when nothing changed): `entity` is the row as it
   * is now, `changes` the columns the write changed (the server's changeSequence and updatedOn among
   * them), `before` the row as it was.
   */
  afterUpdate?(ctx: RequestContext, entity: T, changes: Partial<T>, before: T): Promise<void>;
  /**
   * The only fields whose change `beforeUpdate` and `afterUpdate` react to: an update that sends none of
   * them is written without calling them (as one statement). Absent: they see every update.
   */
  updateWatches?: readonly string[];
  /** Refuse a delete that would break an invariant. */
  beforeDelete?(ctx: RequestContext, entity: T): Promise<void>;
  /** Record a delete once it is written (soft or hard); `entity` is the row as it was before. */
  afterDelete?(ctx: RequestContext, entity: T): Promise<void>;
}

/** A registered resource with the rules its service applies (none: the generic behaviour alone). */
export interface ResourceWithRules<T extends object = object> extends Resource<T> {
  rules: ResourceRules<T>;
}

type SequentialHook = 'beforeCreate' | 'beforeUpdate' | 'afterCreate' | 'afterUpdate' | 'beforeDelete' | 'afterDelete';
const SEQUENTIAL_HOOKS: SequentialHook[] = ['beforeCreate', 'beforeUpdate', 'afterCreate', 'afterUpdate', 'beforeDelete', 'afterDelete'];

/**
 * Several sets of rules of one resource as one: each hook runs that hook of `parts` in order (a
 * refusal stops the rest), and `replayOf` answers the first earlier row a part finds. A hook none of
 * the parts has stays absent (the service then skips it, e.g. a create without rules is one INSERT).
 */
export function combineRules<T extends object>(...parts: ResourceRules<T>[]): ResourceRules<T> {
  const combined: ResourceRules<T> = {};
  for (const hook of SEQUENTIAL_HOOKS) {
    const hooks = parts.flatMap((part) => (part[hook] ? [part[hook].bind(part) as (...args: unknown[]) => Promise<void>] : []));
    if (hooks.length === 0) continue;
    (combined as Record<SequentialHook, unknown>)[hook] = async (...args: unknown[]) => {
      for (const run of hooks) await run(...args);
    };
  }
  const creating = parts.filter((part) => part.afterCreate);
  if (creating.length && creating.every((part) => part.afterCreateOnlyInserts)) combined.afterCreateOnlyInserts = true;
  const watches = combinedWatches(parts);
  if (watches) combined.updateWatches = watches;
  const replays = parts.filter((part) => part.replayOf);
  if (replays.length) {
    combined.replayOf = async (ctx, values) => {
      for (const part of replays) {
        const earlier = await part.replayOf!(ctx, values);
        if (earlier) return earlier;
      }
      return undefined;
    };
  }
  return combined;
}

/** The fields the update hooks of `parts` watch together; undefined when one of them watches every update. */
function combinedWatches<T extends object>(parts: ResourceRules<T>[]): readonly string[] | undefined {
  const reacting = parts.filter((part) => part.beforeUpdate || part.afterUpdate);
  if (reacting.length === 0 || reacting.some((part) => !part.updateWatches)) return undefined;
  return [...new Set(reacting.flatMap((part) => part.updateWatches!))];
}
