import { type Request, type Response, Router } from 'express';
import { BadRequestError } from '../errors/api-error';
import { entityAnswerOf, pageAnswerOf, rowParamOf, type DomainOperation } from '../model/operation';
import type { Resource } from '../model/resource';
import { runOperation } from '../engine/operations';
import type { PageResult } from '../engine/page';
import { readJsonBody } from './json-body';
import { methodNotAllowed } from './method-not-allowed';
import { pageBody } from './page';
import { present, presentAll } from './present';
import { sendPage } from './validators';
import { contextOf } from '../auth/authenticate';
import { expressPath, queryListParams } from './resource-router';

/**
 * The REST routes of the domain operations: parse, run the operation's service method, shape the answer.
 * A method an operation path does not serve answers 405 with an `Allow` header, as collections do.
 */
export function operationRouter(operations: readonly DomainOperation[], resources: readonly Resource[]): Router {
  const router = Router();
  const body = readJsonBody();
  const resourceOf = (entity: unknown) => resources.find((r) => r.entity === entity);
  for (const operation of operations) {
    const path = `/api/${expressPath(operation.path)}`;
    const param = rowParamOf(operation);
    const idOf = (req: Request) => (param === undefined ? undefined : String(req.params[param]));
    const paramsOf = (req: Request) => Object.fromEntries((operation.pathParams ?? []).map((name) => [name, String(req.params[name])]));
    const paged = resourceOf(pageAnswerOf(operation));
    if (paged) {
      router.get(path, async (req: Request, res: Response) => {
        const ctx = contextOf(req);
        const result = (await runOperation(ctx, operation, idOf(req), queryListParams(req))) as PageResult<object>;
        sendPage(req, res, JSON.stringify(pageBody(result, await presentAll(ctx, paged, result.items))));
      });
      continue;
    }
    const answered = resourceOf(entityAnswerOf(operation));
    router[operation.method](path, body, async (req: Request, res: Response) => {
      const ctx = contextOf(req);
      const asText = wantsText(operation, req);
      const result = await runOperation(ctx, operation, idOf(req), req.body, paramsOf(req));
      if (asText) res.status(operation.status).type('text/plain').send(operation.textFormat!(result));
      else res.status(operation.status).json(answered ? await present(ctx, answered, result) : result);
    });
  }
  for (const [path, allow] of allowedMethods(operations)) router.all(path, methodNotAllowed(allow));
  return router;
}

/** One `operationRouter` per first segment of the operations' paths (`tasks`, `document-families`), for ApiRoutes. */
export function operationRoutersBySegment(operations: readonly DomainOperation[], resources: readonly Resource[]): Router[] {
  const bySegment = new Map<string, DomainOperation[]>();
  for (const operation of operations) {
    const segment = operation.path.split('/')[0].toLowerCase();
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), operation]);
  }
  return [...bySegment.values()].map((group) => operationRouter(group, resources));
}

/** Whether the request asks for the operation's plain-text rendering (`?format=text`); another format than json or text is 400. */
function wantsText(operation: DomainOperation, req: Request): boolean {
  const format = req.query.format;
  if (!operation.textFormat || format === undefined || format === 'json') return false;
  if (format === 'text') return true;
  throw BadRequestError.forField('format', 'must be json or text');
}

/** The methods each operation path serves, by Express path. */
function allowedMethods(operations: readonly DomainOperation[]): Map<string, string[]> {
  const allowed = new Map<string, string[]>();
  for (const operation of operations) {
    const path = `/api/${expressPath(operation.path)}`;
    allowed.set(path, [...(allowed.get(path) ?? []), operation.method]);
  }
  return allowed;
}
