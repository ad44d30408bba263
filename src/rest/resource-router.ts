import { type Request, type Response, Router } from 'express';
import type { Resource } from '../model/resource';
import { contextOf } from '../auth/authenticate';
import type { ListParams } from '../engine/read-plan';
import { assertListAnswerAccepted, exportFormatOf, sendExport } from './export-answer';
import { readJsonBody } from './json-body';
import { methodNotAllowed } from './method-not-allowed';
import { pageAnswer, rowAnswer } from './json-answers';
import { present } from './present';
import { ifMatchOf, rowNotModified, sendPage, tagRow } from './validators';

/** `organizations/{orgId}/secrets` as Express writes it: `organizations/:orgId/secrets`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The parent row a nested collection's path names (`{orgId}`), if it is nested. */
function parentIdOf(req: Request, resource: Resource): string | undefined {
  return resource.parent ? String(req.params[resource.parent.param]) : undefined;
}

/** The list arguments of a query string (the last of a repeated one; `sort` may repeat). */
export function queryListParams(req: Request): ListParams {
  const q = req.query as Record<string, string | string[] | undefined>;
  const single = (name: string) => {
    const value = q[name];
    return Array.isArray(value) ? value[value.length - 1] : value;
  };
  return { page: single('page'), pageSize: single('pageSize'), filter: single('filter'), query: single('query'), sort: q.sort };
}

function listParams(req: Request, resource: Resource): ListParams {
  return { ...queryListParams(req), parentId: parentIdOf(req, resource) };
}

/** The path of a list's export below the list's own: `/api/tasks/export`. */
export const EXPORT_SEGMENT = 'export';

/**
 * GET/POST /api/{path}, GET /api/{path}/export, GET/PUT/DELETE /api/{path}/{id} and GET
 * /api/{path}/{id}/sequence for one resource (below its parent's path for a nested one). Every other
 * method of these paths, the writes the resource does not have (`operations`) among them, answers 405
 * with an `Allow` header. The export's path is routed before the item's: `export` is never read as an id.
 */
export function resourceRouter(resource: Resource): Router {
  const router = Router({ mergeParams: true });
  const body = readJsonBody();
  const service = (req: Request) => contextOf(req).services.resource(resource.path);
  const { create, update, delete: remove } = resource.operations;

  router.get('/', async (req: Request, res: Response) => {
    assertListAnswerAccepted(req, `${req.baseUrl}/${EXPORT_SEGMENT}`);
    sendPage(req, res, await pageAnswer(contextOf(req), resource, listParams(req, resource)));
  });

  if (create)
    router.post('/', body, async (req: Request, res: Response) => {
      const ctx = contextOf(req);
      const { row, created } = await service(req).createOrReplay(ctx, req.body, parentIdOf(req, resource));
      tagRow(res, row);
      // A create that repeats an earlier one (idempotency key) wrote nothing: 200 with the earlier row.
      res
        .status(created ? 201 : 200)
        .location(`${req.baseUrl}/${row.id}`)
        .json(await present(ctx, resource, row));
    });
  router.all('/', methodNotAllowed(['GET', ...(create ? ['POST'] : [])]));

  router.get(`/${EXPORT_SEGMENT}`, async (req: Request, res: Response) => {
    const ctx = contextOf(req);
    const format = exportFormatOf(req);
    // Counted from before the rows are counted until the last is written or the client has gone.
    const release = ctx.services.exportSlots.take(ctx.user?.id ?? '');
    try {
      const { batches } = await service(req).exportRows(ctx, listParams(req, resource));
      await sendExport(ctx, res, resource, format, batches);
    } finally {
      release();
    }
  });
  router.all(`/${EXPORT_SEGMENT}`, methodNotAllowed(['GET']));

  router.get('/:id', async (req: Request, res: Response) => {
    const answer = await rowAnswer(contextOf(req), resource, String(req.params.id), parentIdOf(req, resource));
    if (rowNotModified(req, res, answer)) return;
    res.type('json').send(answer.json);
  });

  if (update)
    router.put('/:id', body, async (req: Request, res: Response) => {
      const ctx = contextOf(req);
      const row = await service(req).update(ctx, String(req.params.id), req.body, parentIdOf(req, resource), ifMatchOf(req));
      tagRow(res, row);
      res.json(await present(ctx, resource, row));
    });

  if (remove)
    router.delete('/:id', async (req: Request, res: Response) => {
      await service(req).delete(contextOf(req), String(req.params.id), parentIdOf(req, resource), ifMatchOf(req));
      res.status(204).end();
    });
  router.all('/:id', methodNotAllowed(['GET', ...(update ? ['PUT'] : []), ...(remove ? ['DELETE'] : [])]));

  router.get('/:id/sequence', async (req: Request, res: Response) => {
    res.json(await service(req).sequence(contextOf(req), String(req.params.id), parentIdOf(req, resource)));
  });
  router.all('/:id/sequence', methodNotAllowed(['GET']));

  return router;
}
