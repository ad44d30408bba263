import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the upstream received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP service on 127.0.0.1 for service bridge tests, recording every request it gets:
 * - `/echo...` answers 200 JSON `{method, url, headers, body}`;
 * - `/status/<n>` answers `<n>` with `text/x-teapot; charset=latin1`, `x-upstream: yes` and hop-by-hop headers;
 * - `/redirect?to=<location>&status=<n>` redirects (302 unless `status`);
 * - `/loop/<n>` redirects to `/loop/<n+1>` forever;
 * - `/slow` answers after 5 s;
 * - `/bytes/<n>` streams `n` bytes of `a` (`?length=declared` sets Content-Length);
 * - `/json-bytes/<n>` a JSON string of about `n` bytes.
 */
export class Upstream {
  readonly received: Received[] = [];
  private server!: Server;
  port = 0;

  static async start(): Promise<Upstream> {
    const upstream = new Upstream();
    upstream.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        upstream.received.push(received);
        upstream.answer(received, res);
      });
    });
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
    upstream.port = (upstream.server.address() as AddressInfo).port;
    return upstream;
  }

  /** `http://<host>:<port>`, 127.0.0.1 by default. */
  origin(host = '127.0.0.1'): string {
    return `http://${host}:${this.port}`;
  }

  /** The requests received while `work` ran. */
  async during(work: () => Promise<unknown>): Promise<Received[]> {
    const before = this.received.length;
    await work();
    return this.received.slice(before);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(received: Received, res: ServerResponse): void {
    const url = new URL(received.url, 'http://upstream');
    const [, route, argument] = url.pathname.split('/');
    switch (route) {
      case 'status':
        res.writeHead(Number(argument), {
          'content-type': 'text/x-teapot; charset=latin1',
          'x-upstream': 'yes',
          'proxy-authenticate': 'Basic realm="upstream"',
          'x-upstream-hop': '1',
          connection: 'x-upstream-hop',
          'set-cookie': 'upstream=1',
        });
        res.end('short and stout');
        return;
      case 'redirect':
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to')! });
        res.end();
        return;
      case 'loop':
        res.writeHead(302, { location: `/loop/${Number(argument) + 1}` });
        res.end();
        return;
      case 'slow':
        setTimeout(() => res.end('late'), 5_000).unref();
        return;
      case 'bytes':
        this.stream(res, Number(argument), url.searchParams.get('length') === 'declared');
        return;
      case 'json-bytes':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify('b'.repeat(Number(argument))));
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(received));
    }
  }

  private stream(res: ServerResponse, size: number, declared: boolean): void {
    res.writeHead(200, { 'content-type': 'application/octet-stream', ...(declared ? { 'content-length': String(size) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => undefined);
    more();
  }
}

/**
 * A request with node:http, which (unlike fetch) sends hop-by-hop headers such as Connection, TE and
 * Proxy-Authorization as given.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
