import type { Express, NextFunction, Request, Response } from 'express';

/** The `route` label of a request that reached no route (refused before routing, or no route matches). */
export const UNMATCHED_ROUTE = 'unmatched';

const TEMPLATE = Symbol('routeTemplate');
const ROUTE = Symbol('route');
type Labelled = Request & { [TEMPLATE]?: string; [ROUTE]?: unknown };

/** Per route: the last mount path it was dispatched under and the template that made (mount paths rarely vary). */
const lastTemplate = new WeakMap<object, { base: string; template: string }>();

/**
 * Remembers, for every request of `app`, the template (`/api/tasks/:id`, never the path itself) of each
 * route the request is dispatched to. Express's router sets `req.route` when a route takes the request,
 * while `req.baseUrl` still holds the mount path of its router; an error answered later by the
 * application's error handler has lost that mount path, so it is read at that moment. The accessor is
 * installed once on the application's request prototype rather than on every request.
 */
export function trackRouteTemplates(app: Express): void {
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    enumerable: true,
    get(this: Labelled) {
      return this[ROUTE];
    },
    set(this: Labelled, value: unknown) {
      this[ROUTE] = value;
      const template = templateOf(value, this.baseUrl);
      if (template !== undefined) this[TEMPLATE] = template;
    },
  });
}

/** Middleware naming the template of the handlers mounted after it (for mounts that are not routes: GraphQL, static files). */
export function labelRoute(template: string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    (req as Labelled)[TEMPLATE] = template;
    next();
  };
}

/** The request's route template, or UNMATCHED_ROUTE. */
export function routeTemplateOf(req: Request): string {
  return (req as Labelled)[TEMPLATE] ?? UNMATCHED_ROUTE;
}

function templateOf(route: unknown, base: string): string | undefined {
  if (typeof route !== 'object' || route === null) return undefined;
  const cached = lastTemplate.get(route);
  if (cached?.base === base) return cached.template;
  const path = (route as { path?: unknown }).path;
  if (typeof path !== 'string') return undefined;
  const template = joinPaths(base, path);
  lastTemplate.set(route, { base, template });
  return template;
}

function joinPaths(base: string, path: string): string {
  const joined = `${base}${path === '/' ? '' : path}`;
  return joined === '' ? '/' : joined;
}
