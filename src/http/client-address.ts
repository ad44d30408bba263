import type { Express, Request } from 'express';
import type { IncomingMessage } from 'node:http';

/**
 * The client address of a request that does not pass through Express (a WebSocket upgrade), read as
 * `req.ip` reads it under the application's `trust proxy` (TRUST_PROXY): the same address, hence the
 * same anonymous budget, as the client's HTTP requests.
 */
export function clientAddressOf(app: Express, request: IncomingMessage): string | undefined {
  const asExpress = Object.create(app.request, {
    headers: { value: request.headers },
    socket: { value: request.socket },
  }) as Request;
  return asExpress.ip ?? request.socket.remoteAddress;
}
