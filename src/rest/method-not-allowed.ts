import type { Request, RequestHandler } from 'express';
import { MethodNotAllowedError } from '../errors/api-error';

/**
 * The methods a path serves as its `Allow` header lists them: upper case, each once, HEAD right after
 * GET (Express answers HEAD wherever it answers GET). OPTIONS is served nowhere and never listed.
 */
export function allowList(methods: readonly string[]): string[] {
  const allow: string[] = [];
  for (const method of methods.map((m) => m.toUpperCase())) {
    if (!allow.includes(method)) allow.push(method);
    if (method === 'GET' && !allow.includes('HEAD')) allow.push('HEAD');
  }
  return allow;
}

/** The request's path as the client sent it, without the query string (`/api/tasks`, not the mounted router's `/`). */
export function requestedPath(req: Request): string {
  return `${req.baseUrl}${req.path === '/' ? '' : req.path}` || '/';
}

/**
 * The last handler of a path, for every method its routes above did not take: 405 with the error body
 * and an `Allow` header naming `methods` (rest/error-handler.ts), so that a method a path does not serve
 * is never mistaken for a path that does not exist (404).
 */
export function methodNotAllowed(methods: readonly string[]): RequestHandler {
  const allow = allowList(methods);
  return (req: Request) => {
    throw new MethodNotAllowedError(`${requestedPath(req)} does not support ${req.method}; allowed: ${allow.join(', ')}`, allow);
  };
}
