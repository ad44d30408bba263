import { type NextFunction, type Request, type Response, Router } from 'express';
import { callBridgeEndpoint } from '../modules/integrations/service-bridges';
import { readJsonBody } from './json-body';
import { methodNotAllowed } from './method-not-allowed';
import { contextOf } from '../auth/authenticate';

/** The service bridge proxy's paths: the endpoint by name, or the sole endpoint of a single-endpoint bridge. */
export const BRIDGE_PROXY_PATH = '/api/service-bridges/:id/proxy{/:endpointName}';

/** The methods the proxy passes on; another (OPTIONS, TRACE ...) is 405 naming these. */
export const BRIDGE_PROXY_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const passedOn = new Set<string>(BRIDGE_PROXY_METHODS);

/**
 * The methods of BRIDGE_PROXY_METHODS on `/api/service-bridges/{id}/proxy/{endpointName}` and `/proxy`: the call as the caller
 * sent it (method, query string, JSON body, headers) to the bridge service, and the upstream's status,
 * headers and body back unchanged (Node sets the length; Express's content-type defaults stay out).
 */
export function bridgeProxyRouter(): Router {
  const router = Router();
  const refused = methodNotAllowed(BRIDGE_PROXY_METHODS);
  router.all(BRIDGE_PROXY_PATH, (req: Request, res: Response, next: NextFunction) => (passedOn.has(req.method) ? next() : refused(req, res, next)));
  router.all(BRIDGE_PROXY_PATH, readJsonBody(), async (req: Request, res: Response) => {
    const answer = await callBridgeEndpoint(contextOf(req), String(req.params.id), {
      endpointName: typeof req.params.endpointName === 'string' ? req.params.endpointName : undefined,
      method: req.method,
      query: rawQueryOf(req),
      body: req.body,
      headers: req.headers,
    });
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.end(answer.body);
  });
  return router;
}

/** The query string exactly as sent, without `?`. */
function rawQueryOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}
