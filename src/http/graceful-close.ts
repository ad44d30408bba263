import type { Server, ServerResponse } from 'node:http';
import { within } from '../model/deadline';

/** How the server's connections ended: every answer given, or the rest cut at the end of the grace period. */
export type CloseOutcome = 'drained' | 'forced';

/**
 * Closes an HTTP server the way a load balancer expects: new connections are refused at once, the
 * requests in flight are answered, and the connections they came on are closed after their answer
 * (`Connection: close`) instead of being kept alive. Idle keep-alive connections are closed at once.
 * Whatever still runs after `graceMs` has its connection closed. Track the server from its start: a
 * response begun before `trackAnswers` is not told to close its connection.
 */
export class GracefulClose {
  private readonly answering = new Set<ServerResponse>();
  private closing = false;

  private constructor(private readonly server: Server) {}

  static trackAnswers(server: Server): GracefulClose {
    const closer = new GracefulClose(server);
    server.on('request', (_req, res: ServerResponse) => closer.track(res));
    return closer;
  }

  /** Resolves when every connection has ended; after `graceMs` the ones still open are closed. */
  async close(graceMs: number): Promise<CloseOutcome> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const res of this.answering) closeAfterAnswer(res);
    this.server.closeIdleConnections();
    if (
      await within(
        closed.then(() => true),
        graceMs,
        false,
      )
    )
      return 'drained';
    this.server.closeAllConnections();
    await closed;
    return 'forced';
  }

  /** Requests in flight right now. */
  get inFlight(): number {
    return this.answering.size;
  }

  private track(res: ServerResponse): void {
    if (this.closing) closeAfterAnswer(res);
    this.answering.add(res);
    res.once('close', () => {
      this.answering.delete(res);
      // An answer whose headers had gone out before the close kept its connection alive: now idle, it is closed.
      if (this.closing) this.server.closeIdleConnections();
    });
  }
}

/** The connection ends with this answer (a client sends its next request on a new connection, to another process). */
function closeAfterAnswer(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  else res.shouldKeepAlive = false;
}
