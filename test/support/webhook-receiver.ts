import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, and whether its signature verified with the path's current secret. */
export interface ReceivedWebhook {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
  /** The body parsed (when it verified): `{type, timestamp, data}`. */
  payload?: { type: string; timestamp: string; data: any };
}

/** What the receiver does with the n-th request (0-based) to a path: answer a status (at once, or after a while), or never answer. */
export type Behaviour = (attempt: number) => number | 'hang' | { status: number; afterMs: number };

/**
 * A real HTTP receiver of webhooks on 127.0.0.1, verifying each request with the `standardwebhooks`
 * package against the secret registered for its path. It also deduplicates as a receiver should: by
 * `webhook-id`, `processed` holds each verified delivery once.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Verified deliveries by webhook-id, the first of each id only. */
  readonly processed = new Map<string, ReceivedWebhook>();
  private readonly secrets = new Map<string, string>();
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly hanging = new Set<ServerResponse>();
  /** Called with each request as it arrives (a test waiting for the first). */
  onRequest?: (received: ReceivedWebhook) => void;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on `port` (any free one when absent). */
  static async start(port = 0): Promise<WebhookReceiver> {
    const handler: { receiver?: WebhookReceiver } = {};
    const server = createServer((req, res) => void handler.receiver!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    handler.receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    return handler.receiver;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** The secret a path's requests are verified with (a rotation registers the new one), and what it answers. */
  register(path: string, secret: string, behaviour: Behaviour = () => 204): void {
    this.secrets.set(path, secret);
    this.behaviours.set(path, behaviour);
  }

  to(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const header = (name: string) => String(req.headers[name] ?? '');
    const received: ReceivedWebhook = {
      path,
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      body,
      verified: false,
    };
    const secret = this.secrets.get(path);
    if (secret) {
      try {
        received.payload = new Webhook(secret).verify(body, req.headers as Record<string, string>) as ReceivedWebhook['payload'];
        received.verified = true;
      } catch {
        received.verified = false;
      }
    }
    const attempt = this.to(path).length;
    this.received.push(received);
    if (received.verified && !this.processed.has(received.id)) this.processed.set(received.id, received);
    this.onRequest?.(received);
    const behaviour = (this.behaviours.get(path) ?? (() => 404))(attempt);
    if (behaviour === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (typeof behaviour === 'object') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      await new Promise((resolve) => setTimeout(resolve, behaviour.afterMs));
      if (res.destroyed) return;
    }
    res.statusCode = typeof behaviour === 'object' ? behaviour.status : behaviour;
    res.end();
  }
}
