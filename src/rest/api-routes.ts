import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** `tasks` of `/api/tasks/...`; undefined for a path not below /api/ or one not spelled literally there. */
function segmentOf(path: string): string | undefined {
  const match = /^\/api\/([^/]+)/i.exec(path);
  return match ? match[1].toLowerCase() : undefined;
}

/**
 * The routers under /api/ by the first segment of their paths (`tasks` of `/api/tasks/:id/lock`): a
 * request walks only those of its own segment, in the order they were added, rather than all fifty-odd
 * routers of the API one after the other. Express matches paths without regard to ASCII case, and so
 * does the lookup; what a router serves and in which order is unchanged, as long as every path added
 * under a segment begins with `/api/{segment}` literally (checked when added).
 */
export class ApiRoutes {
  private readonly bySegment = new Map<string, Router>();

  /** Mounts `handler` at `path` (`/api/tasks`, `/api/organizations/:orgId/secrets`), as `app.use(path, handler)` does. */
  mount(path: string, handler: RequestHandler): this {
    this.routerOf([path]).use(path, handler);
    return this;
  }

  /** Adds a router made only of routes below one segment (their full paths: `/api/tasks/:id/lock`). */
  add(router: Router): this {
    const paths = router.stack.map((layer) => layer.route?.path);
    if (paths.some((path) => typeof path !== 'string')) throw new Error('ApiRoutes: a router added by segment must hold routes only, each with one path');
    this.routerOf(paths as string[]).use(router);
    return this;
  }

  /**
   * Middleware: the routers of the request's segment, if any; else on to what follows. Like a Router,
   * it shows its layers in `stack` (every segment's), for what lists an application's routes.
   */
  readonly handle: RequestHandler & { readonly stack: Router['stack'] } = Object.defineProperty(
    (req: Request, res: Response, next: NextFunction) => {
      const segment = segmentOf(req.path);
      const router = segment === undefined ? undefined : this.bySegment.get(segment);
      if (router) router(req, res, next);
      else next();
    },
    'stack',
    { get: () => [...this.bySegment.values()].flatMap((router) => router.stack) },
  ) as RequestHandler & { readonly stack: Router['stack'] };

  private routerOf(paths: readonly string[]): Router {
    const segments = new Set(paths.map((path) => segmentOf(path)));
    const [segment] = segments;
    if (segments.size !== 1 || segment === undefined || !/^[a-z0-9_-]+$/.test(segment)) {
      throw new Error(`ApiRoutes: ${paths.join(', ')} must all begin with one literal /api/{segment}`);
    }
    let router = this.bySegment.get(segment);
    if (!router) this.bySegment.set(segment, (router = Router()));
    return router;
  }
}
