import { raw } from '@mikro-orm/core';
import { Execution } from '../../entities/execution';
import { StepExecution } from '../../entities/step-execution';
import { ConflictError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';

/** Executions beyond storage (docs/operations.md): cancel, and creates made idempotent by a key. */

/** The states an execution can still leave; the others are final. */
const UNFINISHED = ['PENDING', 'RUNNING'];

/**
 * A create with an `idempotencyKey` already used in the organization answers the execution created
 * with it and writes nothing. Concurrent creates with one key wait here for each other (a lock on the
 * key held until commit), so the later one finds the earlier instead of failing on the unique index
 * (organization_id, idempotency_key), which stays the guarantee.
 */
export const executionRules: ResourceRules<Execution> = {
  async replayOf(tx, values) {
    const key = values.idempotencyKey;
    if (typeof key !== 'string' || typeof values.organizationId !== 'string') return undefined;
    const organizationId = values.organizationId.toLowerCase();
    await tx.em
      .getConnection()
      .execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`execution:${organizationId}:${key}`], 'all', tx.em.getTransactionContext());
    const [earlier] = await tx.em.createQueryBuilder(Execution).select('*').where({ organizationId, idempotencyKey: key }).limit(1).execute('all', true);
    return earlier as Execution | undefined;
  },
};

/**
 * PUT /api/executions/{executionId}/cancel: a PENDING or RUNNING execution becomes CANCELLED with its
 * end date, and so do its PENDING or RUNNING step executions, in one transaction; 409 once it is final.
 */
export function cancelExecution(ctx: RequestContext, id: string): Promise<Execution> {
  return ctx.services.forEntity(Execution)!.modify(ctx, id, async (tx, execution) => {
    if (!UNFINISHED.includes(execution.status)) throw new ConflictError(`execution ${execution.id} is already ${execution.status} and cannot be cancelled`);
    const now = new Date();
    await cancelUnfinishedSteps(tx, execution.id, now);
    return { status: 'CANCELLED', endDate: now };
  });
}

/** The execution's steps that had not finished end now, as CANCELLED, each with its next changeSequence. */
async function cancelUnfinishedSteps(tx: RequestContext, executionId: string, now: Date): Promise<void> {
  await tx.em
    .createQueryBuilder(StepExecution)
    .update({ status: 'CANCELLED', end: now, updatedOn: now, changeSequence: raw('change_sequence + 1') } as never)
    .where({ executionId, status: { $in: UNFINISHED } })
    .execute();
}
