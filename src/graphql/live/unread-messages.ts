import type { WebSocket } from 'ws';

/** Messages a user's connections may hold unread, all of them together, before one is closed (16 MB). */
export const MAX_UNREAD_BYTES_PER_USER = 16 * 1024 * 1024;
/** Close code of a connection whose client does not read its messages (RFC 6455: policy violation). */
export const CLOSE_NOT_READING = 1008;

/**
 * What the WebSocket connections of each user hold written and not yet taken by their clients: a client
 * that subscribes many times and never reads would otherwise make the server keep every change it is
 * sent, for every subscription. Before a message is sent, a user past MAX_UNREAD_BYTES_PER_USER loses the
 * connection it would go to (closed with 1008); their other connections, and everyone else's, go on.
 */
export class UnreadMessages {
  private readonly sockets = new Map<string, Set<WebSocket>>();

  /**
   * Counts `socket` as `user`'s until it closes, and checks the bound as each message is sent (the
   * messages of one change to many subscriptions are all formed before the first is sent).
   */
  add(user: string, socket: WebSocket): void {
    let own = this.sockets.get(user);
    if (!own) this.sockets.set(user, (own = new Set()));
    own.add(socket);
    socket.once('close', () => {
      own.delete(socket);
      if (own.size === 0 && this.sockets.get(user) === own) this.sockets.delete(user);
    });
    const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
    socket.send = ((data: unknown, ...rest: unknown[]) => {
      if (this.admits(user, socket)) return send(data, ...rest);
      // Dropped: the sender waits for nothing more on a connection that is closing.
      const done = rest.find((argument) => typeof argument === 'function') as ((error?: Error) => void) | undefined;
      done?.();
    }) as WebSocket['send'];
  }

  /** Whether `socket` may be sent another message; if not, it is closed. */
  private admits(user: string, socket: WebSocket): boolean {
    let unread = 0;
    for (const other of this.sockets.get(user) ?? []) unread += other.bufferedAmount;
    if (unread <= MAX_UNREAD_BYTES_PER_USER) return true;
    if (socket.readyState === socket.OPEN) socket.close(CLOSE_NOT_READING, `messages not read: more than ${MAX_UNREAD_BYTES_PER_USER} bytes wait`);
    return false;
  }
}
