import express, { type Request, type Response, Router } from 'express';
import { MethodNotAllowedError } from '../errors/api-error';
import type { Resource } from '../model/resource';
import { identityOf } from '../auth/authenticate';
import type { RequestContext } from '../services/context';
import type { ListParams } from '../services/resource-service';
import { BODY_LIMIT, jsonBody } from './json-body';
import { pageBody } from './page';
import { present, presentAll } from './present';

/** The request's context, attached by authentication (routes below `requireCaller` always have one). */
export function contextOf(req: Request): RequestContext {
  return identityOf(req).context!;
}

function listParams(req: Request): ListParams {
  const q = req.query as Record<string, string | string[] | undefined>;
  const single = (name: string) => {
    const value = q[name];
    return Array.isArray(value) ? value[value.length - 1] : value;
  };
  return { page: single('page'), pageSize: single('pageSize'), filter: single('filter'), query: single('query'), sort: q.sort };
}

/**
 * GET/POST /api/{path}, GET/PUT/DELETE /api/{path}/{id} and GET /api/{path}/{id}/sequence for one
 * resource; the writes it does not have (`operations`) answer 405 with an `Allow` header.
 */
export function resourceRouter(resource: Resource): Router {
  const router = Router();
  const body = [express.raw({ type: () => true, limit: BODY_LIMIT }), jsonBody];
  const service = (req: Request) => contextOf(req).services.resource(resource.path);
  const { create, update, delete: remove } = resource.operations;
  const collectionMethods = ['GET', 'HEAD', ...(create ? ['POST'] : [])];
  const itemMethods = ['GET', 'HEAD', ...(update ? ['PUT'] : []), ...(remove ? ['DELETE'] : [])];
  const refuse = (allow: string[]) => (req: Request) => {
    throw new MethodNotAllowedError(`${resource.path} does not support ${req.method}; allowed: ${allow.join(', ')}`, allow);
  };

  router.get('/', async (req: Request, res: Response) => {
    const ctx = contextOf(req);
    const result = await service(req).list(ctx, listParams(req));
    res.json(pageBody(result, await presentAll(ctx, resource, result.items)));
  });

  if (!create) router.post('/', refuse(collectionMethods));
  else router.post('/', body, async (req: Request, res: Response) => {
    const ctx = contextOf(req);
    const created = await service(req).create(ctx, req.body);
    res.status(201).location(`${req.baseUrl}/${created.id}`).json(await present(ctx, resource, created));
  });

  router.get('/:id', async (req: Request, res: Response) => {
    const ctx = contextOf(req);
    res.json(await present(ctx, resource, await service(req).get(ctx, String(req.params.id))));
  });

  router.get('/:id/sequence', async (req: Request, res: Response) => {
    res.json(await service(req).sequence(contextOf(req), String(req.params.id)));
  });

  if (!update) router.put('/:id', refuse(itemMethods));
  else router.put('/:id', body, async (req: Request, res: Response) => {
    const ctx = contextOf(req);
    res.json(await present(ctx, resource, await service(req).update(ctx, String(req.params.id), req.body)));
  });

  if (!remove) router.delete('/:id', refuse(itemMethods));
  else router.delete('/:id', async (req: Request, res: Response) => {
    await service(req).delete(contextOf(req), String(req.params.id));
    res.status(204).end();
  });

  return router;
}
