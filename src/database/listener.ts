import pg from 'pg';
import { OutageLog } from '../logging/outage-log';

const RETRY_MS = 1_000;

/**
 * How long a long-lived connection of the server's own (LISTEN, the job queue's) waits to be opened: a
 * database that swallows connections (a network cut) would otherwise hold a try for minutes, and the
 * connection would come back that long after the database did.
 */
export const BACKGROUND_CONNECT_TIMEOUT_MS = 5_000;

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` (or on several, heard in commit order) over a connection of its own and calls
 * `onNotify` for every notification with its payload and channel, and without them once it listens, at
 * first and after a reconnection (notifications sent while it was away are lost). Reconnects every
 * second until closed; an outage is one warning at the loss and one info line when it listens again.
 */
export function listen(url: string, channel: string | readonly string[], onNotify: (payload?: string, channel?: string) => void): Listener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const outage = new OutageLog('notification listener', { channel });

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: BACKGROUND_CONNECT_TIMEOUT_MS });
    client = next;
    next.on('notification', (message) => onNotify(message.payload ?? '', message.channel));
    next.on('error', (error) => {
      if (!closed) outage.lost(error);
    });
    next.on('end', () => {
      if (!closed) outage.lost(new Error('the connection ended'));
      schedule();
    });
    try {
      await next.connect();
      for (const name of typeof channel === 'string' ? [channel] : channel) await next.query(`listen "${name}"`);
      outage.restored();
      onNotify();
    } catch (error) {
      outage.lost(error);
      void next.end().catch(() => undefined);
      schedule();
    }
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RETRY_MS);
    retry.unref();
  };

  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
