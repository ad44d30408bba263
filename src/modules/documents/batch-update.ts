import type { EntityManager } from '@mikro-orm/postgresql';
import { ContentObject } from '../../entities/content-object';
import { ApiError, BadRequestError, StaleChangeSequenceError } from '../../errors/api-error';
import { normalizeError } from '../../errors/normalize-error';
import { BATCH_UPDATE_LIMIT, type BatchUpdateContentObject, type BatchUpdateOperationResult, type BatchUpdateResult } from '../../model/batch-update';
import { RequestContext } from '../../engine/context';
import { isPlainObject } from '../../engine/input';
import type { ResourceService } from '../../engine/resource-service';
import { memberships } from '../../engine/tenancy';

/**
 * POST /api/batch-update (docs/operations.md): each operation is the single
 * PUT /api/content-objects/{id}, run by the same service method in a transaction of its own, so one
 * failure never undoes another; its result says what that PUT would have answered.
 */

/**
 * Operations in flight at once. Each is four round trips (begin, the locking read, the update, commit),
 * so a batch is bound by their latency; measured on 1,000 updates (docs/benchmarks.md), 8 at a time
 * took 5.4 s where 4 took 7.0 s and 1 took 14.0 s. Each holds one connection of the ORM's pool (10)
 * while it runs, which leaves two for other writes; reads use the read pool.
 */
const CONCURRENCY = 8;

type Operation = Record<string, unknown>;

export async function batchUpdate(ctx: RequestContext, input: Record<string, unknown>): Promise<BatchUpdateResult> {
  const operations = checkedOperations(input.operations);
  const contentObjects = ctx.services.forEntity(ContentObject)!;
  // Looked up once here, and shared by every operation's context rather than by each of them.
  await memberships(ctx);
  const results: BatchUpdateOperationResult[] = new Array(operations.length);
  const run = (index: number) => updateOne(ctx, contentObjects, index, operations[index]).then((result) => void (results[index] = result));
  await inOrderPerObject(operations, run);
  return { results };
}

/** `{operations: [...]}` with 1 to BATCH_UPDATE_LIMIT objects; anything else is 400. */
function checkedOperations(value: unknown): Operation[] {
  if (!Array.isArray(value)) throw BadRequestError.forField('operations', 'must be an array');
  if (value.length === 0 || value.length > BATCH_UPDATE_LIMIT) {
    throw BadRequestError.forField('operations', `must hold 1 to ${BATCH_UPDATE_LIMIT} operations, not ${value.length}`);
  }
  const misfit = value.findIndex((operation) => !isPlainObject(operation));
  if (misfit >= 0) throw BadRequestError.forField(`operations[${misfit}]`, 'must be a JSON object {id, changeSequence?, ...fields}');
  return value as Operation[];
}

/**
 * Runs `run(index)` for every operation, CONCURRENCY at a time, taken in request order. Operations on
 * the same object run one after the other in request order (the second may count on the first's new
 * changeSequence); a later one waits for the earlier, which has always started already, so none waits forever.
 */
async function inOrderPerObject(operations: Operation[], run: (index: number) => Promise<void>): Promise<void> {
  const lastOnObject = new Map<string, Promise<void>>();
  let next = 0;
  const worker = async () => {
    while (next < operations.length) {
      const index = next++;
      const key = String(operations[index].id ?? '').toLowerCase();
      const done = (lastOnObject.get(key) ?? Promise.resolve()).then(() => run(index));
      lastOnObject.set(key, done);
      await done;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, operations.length) }, worker));
}

/** One operation as its single PUT, on a unit of work of its own; never throws: a failure is its result. */
async function updateOne(
  ctx: RequestContext,
  contentObjects: ResourceService<ContentObject>,
  index: number,
  operation: Operation,
): Promise<BatchUpdateOperationResult> {
  const { id, ...body } = operation;
  const own = ownContext(ctx);
  try {
    if (id === undefined || id === null) throw BadRequestError.forField('id', 'is required');
    const updated = await contentObjects.update(own, String(id), body);
    return { index, ok: true, status: 200, contentObject: { id: updated.id, changeSequence: updated.changeSequence } };
  } catch (error) {
    const refusal = normalizeError(error);
    return {
      index,
      ok: false,
      status: refusal.status,
      error: refusal.toBody().error as string,
      reason: refusal.message,
      contentObject: await currentState(own, contentObjects, id, refusal),
    };
  }
}

/** The caller on a unit of work of its own (operations run side by side), with the memberships already looked up. */
function ownContext(ctx: RequestContext): RequestContext {
  const own = new RequestContext(ctx.em.fork() as EntityManager, ctx.actor, ctx.services);
  own.memberships = ctx.memberships;
  return own;
}

/** The object as it stands after a refused operation: null when it does not exist or the caller may not see it. */
async function currentState(
  ctx: RequestContext,
  contentObjects: ResourceService<ContentObject>,
  id: unknown,
  refusal: ApiError,
): Promise<BatchUpdateContentObject | null> {
  if (typeof id !== 'string') return null;
  // A stale changeSequence already says what the current one is.
  if (refusal instanceof StaleChangeSequenceError) return { id: id.toLowerCase(), changeSequence: refusal.extra.currentChangeSequence as number };
  try {
    const row = await contentObjects.get(ctx, id);
    return { id: row.id, changeSequence: row.changeSequence };
  } catch (error) {
    // 400, 404 or 403: nothing the caller may see; anything else is the server's failure, not this operation's.
    if (error instanceof ApiError) return null;
    throw error;
  }
}
