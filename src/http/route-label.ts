import type { NextFunction, Request, Response } from 'express';

/** The `route` label of a request that reached no route (refused before routing, or no route matches). */
export const UNMATCHED_ROUTE = 'unmatched';

const templates = new WeakMap<Request, string>();

/**
 * Remembers the template (`/api/tasks/:id`, never the path itself) of each route the request is
 * dispatched to. Express's router sets `req.route` when a route takes the request, while `req.baseUrl`
 * still holds the mount path of its router; an error answered later by the application's error handler
 * has lost that mount path, so it is read at that moment.
 */
export function trackRouteTemplate(req: Request): void {
  let route: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: unknown) => {
      route = value;
      const path = routePath(value);
      if (path !== undefined) templates.set(req, joinPaths(req.baseUrl, path));
    },
  });
}

/** Middleware naming the template of the handlers mounted after it (for mounts that are not routes: GraphQL, static files). */
export function labelRoute(template: string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    templates.set(req, template);
    next();
  };
}

/** The request's route template, or UNMATCHED_ROUTE. */
export function routeTemplateOf(req: Request): string {
  return templates.get(req) ?? UNMATCHED_ROUTE;
}

function routePath(route: unknown): string | undefined {
  const path = typeof route === 'object' && route !== null ? (route as { path?: unknown }).path : undefined;
  return typeof path === 'string' ? path : undefined;
}

function joinPaths(base: string, path: string): string {
  const joined = `${base}${path === '/' ? '' : path}`;
  return joined === '' ? '/' : joined;
}
