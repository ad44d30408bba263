import { listen, type Listener } from '../../database/listener';
import { logger } from '../../logging/logger';
import { ACCESS_CHANGED_CHANNEL } from '../../engine/access-cache';

/**
 * The PostgreSQL channel of row changes: a row trigger on the tables below NOTIFYs it in the transaction
 * of every insert, update and delete (migration 20261126093000), so the notification goes out when that
 * transaction commits, to every process, and never for a change that was rolled back.
 */
export const ROW_CHANGED_CHANNEL = 'platform_row_changed';

/** The tables whose changes are announced. */
export type ChangedEntity = 'task' | 'platform_event' | 'activity';

/** One announced change: ids only; subscribers read the row itself as their caller. */
export interface RowChange {
  entity: ChangedEntity;
  id: string;
  /** Null for a platform event of no project: only the subscribers of its row hear it. */
  projectId: string | null;
  /** `delete` is also a task's soft delete. */
  op: 'create' | 'update' | 'delete';
}

const ENTITIES = new Set<string>(['task', 'platform_event', 'activity']);
const OPS = new Set<string>(['create', 'update', 'delete']);

function parseChange(payload: string): RowChange | undefined {
  try {
    const change = JSON.parse(payload) as Partial<RowChange>;
    const valid =
      ENTITIES.has(String(change.entity)) &&
      typeof change.id === 'string' &&
      (typeof change.projectId === 'string' || change.projectId === null) &&
      OPS.has(String(change.op));
    return valid ? (change as RowChange) : undefined;
  } catch {
    return undefined;
  }
}

/** The subscribers of a key: the rows of an entity in one project, or one row. */
export const changeKeys = {
  ofProject: (entity: ChangedEntity, projectId: string) => `${entity}:project:${projectId.toLowerCase()}`,
  ofRow: (entity: ChangedEntity, id: string) => `${entity}:row:${id.toLowerCase()}`,
};

export type ChangeHandler = (change: RowChange) => void;

/**
 * The changes this process hears on ROW_CHANGED_CHANNEL (over one connection of its own), handed to
 * the handlers of their project and of their row, in commit order. Listens from the first `start`.
 *
 * It hears the changes of access (ACCESS_CHANGED_CHANNEL) on the same connection, so in the same commit
 * order, and calls `accessChanged` (which drops the cached credentials and memberships) before handing
 * on any row changed after them: a subscriber removed from an organization is not handed the rows
 * changed after its removal, whichever connection of this process hears the removal first.
 */
export class ChangeFeed {
  private readonly handlers = new Map<string, Set<ChangeHandler>>();
  private listener?: Listener;
  private listening?: Promise<void>;

  constructor(
    private readonly databaseUrl: string,
    private readonly accessChanged: () => void,
  ) {}

  /** Starts listening; resolves once the LISTEN is in place (changes committed from then on are heard). */
  start(): Promise<void> {
    if (!this.listening) {
      this.listening = new Promise((resolve) => {
        let connections = 0;
        this.listener = listen(this.databaseUrl, [ROW_CHANGED_CHANNEL, ACCESS_CHANGED_CHANNEL], (payload, channel) => {
          if (channel === ACCESS_CHANGED_CHANNEL) return this.accessChanged();
          if (payload === undefined) {
            // Listening (again): changes committed while the connection was lost were not heard.
            if (connections++ > 0)
              logger.warn({ channel: ROW_CHANGED_CHANNEL }, 'live updates listener reconnected: changes made meanwhile were not delivered');
            resolve();
            return;
          }
          const change = parseChange(payload);
          if (change) this.dispatch(change);
          else logger.warn({ payload }, 'live updates: ignored a malformed change notification');
        });
      });
    }
    return this.listening;
  }

  /** Calls `handler` with every change of `key` until the returned function is called. */
  subscribe(key: string, handler: ChangeHandler): () => void {
    let set = this.handlers.get(key);
    if (!set) {
      set = new Set();
      this.handlers.set(key, set);
    }
    set.add(handler);
    return () => {
      const current = this.handlers.get(key);
      if (!current?.delete(handler)) return;
      if (current.size === 0) this.handlers.delete(key);
    };
  }

  /** How many handlers are subscribed (all keys). */
  get size(): number {
    let count = 0;
    for (const set of this.handlers.values()) count += set.size;
    return count;
  }

  private dispatch(change: RowChange): void {
    const keys = [changeKeys.ofRow(change.entity, change.id)];
    if (change.projectId !== null) keys.unshift(changeKeys.ofProject(change.entity, change.projectId));
    for (const key of keys) {
      for (const handler of this.handlers.get(key) ?? []) handler(change);
    }
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.handlers.clear();
  }
}
