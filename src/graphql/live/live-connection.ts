import type { EntityClass } from '@mikro-orm/core';
import { Activity } from '../../entities/activity';
import type { BaseEntity } from '../../entities/base';
import { PlatformEvent } from '../../entities/platform-event';
import { Task } from '../../entities/task';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors/api-error';
import type { GraphqlContext } from '../context';
import { logger } from '../../logging/logger';
import type { RequestContext } from '../../engine/context';
import type { ChangedEntity, ChangeFeed, RowChange } from './change-feed';
import { ChangeStream, type StreamOptions } from './change-stream';

const ENTITY_CLASSES: Record<ChangedEntity, EntityClass<BaseEntity>> = { task: Task, platform_event: PlatformEvent, activity: Activity };

/**
 * What a subscription's resolvers receive: the GraphQL context, whose `ctx` is renewed for every row
 * delivered (a unit of work of its own, with the caller's credentials checked again), and the connection.
 */
export interface LiveContext extends GraphqlContext {
  live?: LiveConnection;
}

/** The live connection of a subscription's context; refused for an operation that did not come over one. */
export function liveOf(context: LiveContext): LiveConnection {
  if (!context.live) throw new BadRequestError('subscriptions run over a WebSocket (the graphql-ws protocol) at /graphql, not over HTTP');
  return context.live;
}

/**
 * The rows each caller has read of a change, by caller: subscribers of one user read a change once
 * (what a user may read depends on that user alone). Kept as long as the change is.
 */
const readsOf = new WeakMap<RowChange, Map<string, Promise<unknown>>>();

function viewerKey(ctx: RequestContext): string {
  return ctx.actor.kind === 'system' ? 'system' : `${ctx.actor.isAdmin ? 'admin' : 'user'}:${ctx.actor.user.id}`;
}

/**
 * The changed row as `ctx` may read it, through the resource's service (its tenancy and privacy rules),
 * as a GET by id would answer it; a deleted row as it is on record. Undefined when the caller may not
 * read it or it is gone.
 */
function readAs<T>(ctx: RequestContext, change: RowChange): Promise<T | undefined> {
  let reads = readsOf.get(change);
  if (!reads) {
    reads = new Map();
    readsOf.set(change, reads);
  }
  const key = viewerKey(ctx);
  let read = reads.get(key) as Promise<T | undefined> | undefined;
  if (!read) {
    const service = ctx.services.forEntity(ENTITY_CLASSES[change.entity])!;
    // The change was just committed on the primary; a replica may not have replayed it yet.
    ctx.readsLatest = true;
    read = (change.op === 'delete' ? service.getOnRecord(ctx, change.id) : service.get(ctx, change.id)).then(
      (row) => row as T,
      (error: unknown) => {
        if (!(error instanceof NotFoundError || error instanceof ForbiddenError || error instanceof BadRequestError)) {
          logger.warn({ err: error, change }, 'live updates: could not read a changed row');
        }
        return undefined;
      },
    );
    reads.set(key, read);
  }
  return read;
}

/**
 * One WebSocket connection's caller: `identify` checks its credentials again (from the access cache)
 * and answers a fresh context, or undefined when they no longer hold (the connection is then closed).
 */
export class LiveConnection {
  constructor(
    private readonly feed: ChangeFeed,
    readonly identify: () => Promise<RequestContext | undefined>,
  ) {}

  /**
   * The rows of the changes of `key` the caller may read, each as it is when delivered; the stream
   * starts once this process listens, so every change committed after it is returned is delivered.
   */
  async stream<T>(context: LiveContext, options: Omit<StreamOptions<T>, 'feed' | 'read'>): Promise<ChangeStream<T>> {
    await this.feed.start();
    return new ChangeStream<T>({
      ...options,
      feed: this.feed,
      read: async (change) => {
        const ctx = await this.identify();
        if (!ctx) return undefined;
        context.ctx = ctx;
        return readAs<T>(ctx, change);
      },
    });
  }
}
