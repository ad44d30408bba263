import express, { type Request, type Response, Router } from 'express';
import type { DomainOperation } from '../model/operation';
import type { Resource } from '../model/resource';
import { runOperation } from '../services/operations';
import { BODY_LIMIT, jsonBody } from './json-body';
import { present } from './present';
import { contextOf, expressPath } from './resource-router';

/** The REST routes of the domain operations: parse, run the operation's service method, shape the answer. */
export function operationRouter(operations: readonly DomainOperation[], resources: readonly Resource[]): Router {
  const router = Router();
  const body = [express.raw({ type: () => true, limit: BODY_LIMIT }), jsonBody];
  for (const operation of operations) {
    const answered = 'entity' in operation.answer ? resources.find((r) => r.entity === (operation.answer as { entity: unknown }).entity) : undefined;
    router[operation.method](`/api/${expressPath(operation.path)}`, body, async (req: Request, res: Response) => {
      const ctx = contextOf(req);
      const id = req.params.id === undefined ? undefined : String(req.params.id);
      const result = await runOperation(ctx, operation, id, req.body);
      res.status(operation.status).json(answered ? await present(ctx, answered, result) : result);
    });
  }
  return router;
}
