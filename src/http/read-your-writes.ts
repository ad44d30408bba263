import type { NextFunction, Request, Response } from 'express';
import { identityOf } from '../auth/authenticate';
import type { ReplicatedReads } from '../database/read-replicas';
import { logger } from '../logging/logger';

/** Methods that write nothing a caller reads back. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Marks the caller of `req` as writing until its answer is over, then records the primary's log position
 * for them (see WritePositions): their reads meanwhile, and later ones until a replica has replayed that
 * position, go to the primary.
 */
export async function markWriting(reads: ReplicatedReads, req: Request): Promise<void> {
  const user = identityOf(req)?.context?.user?.id;
  if (user === undefined) return;
  await reads.writing(user);
  // 'close' follows the answer (or the client leaving): everything the request committed is committed by then.
  req.res!.once('close', () => {
    reads.written(user).catch((error: unknown) => {
      // The caller stays on the primary until the mark is forgotten.
      logger.warn({ err: (error as Error).message }, 'read replicas: could not read the position of a write');
    });
  });
}

/**
 * Middleware: REST writes (any method but GET, HEAD and OPTIONS) mark their caller as writing. GraphQL
 * documents are marked only when they are mutations, once parsed (see graphql/mutation-budget.ts).
 */
export function trackWrites(reads: ReplicatedReads) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (READ_METHODS.has(req.method) || req.path === '/graphql') return next();
    markWriting(reads, req).then(() => next(), next);
  };
}
