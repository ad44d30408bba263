import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { Arg, ID, Resolver, Root, Subscription, type PubSub } from 'type-graphql';
import { Activity } from '../entities/activity';
import { PlatformEvent } from '../entities/platform-event';
import { Project } from '../entities/project';
import { Task } from '../entities/task';
import { BadRequestError } from '../errors/api-error';
import { changeKeys } from './live/change-feed';
import { liveOf, type LiveContext } from './live/live-connection';
import { isUuid } from '../model/uuid';
import type { GraphqlContext } from './context';

/**
 * type-graphql builds no subscription without a PubSub, but every subscription here brings its own
 * `subscribe` (fed by PostgreSQL notifications, see live/change-feed.ts): this one is never used.
 */
export const noPubSub: PubSub = {
  publish() {
    throw new Error('subscriptions are fed by the database, not published');
  },
  subscribe() {
    throw new Error('subscriptions are fed by the database, not published');
  },
};

const PROJECT_ID = "The project's id (UUID)";

/** The id argument `field`, refused (400) unless it is a UUID. */
function idArgument(field: string, value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) throw BadRequestError.forField(field, 'must be a UUID');
  return value.toLowerCase();
}

/** 400, 404 or 403 (FORBIDDEN) unless the caller may read the project, as GET /api/projects/{id} answers. */
async function readableProject(context: LiveContext, value: unknown): Promise<string> {
  const projectId = idArgument('projectId', value);
  await context.ctx.services.forEntity(Project)!.get(context.ctx, projectId);
  return projectId;
}

function eventTypesArgument(value: unknown): Set<string> | undefined {
  if (value === null || value === undefined) return undefined;
  const types = value as string[];
  if (types.length === 0) throw BadRequestError.forField('eventTypes', 'name at least one event type, or leave it out for all');
  return new Set(types);
}

/**
 * Live updates over the graphql-ws protocol at /graphql: each subscription delivers the rows changed
 * after it started, as the subscriber may read them when they are delivered (read again through the
 * resource's service, as a GET by id), in commit order; rows the subscriber may not read are skipped.
 */
@Resolver()
export class SubscriptionResolver {
  @Subscription(() => Task, {
    description:
      'Every task of the project created, updated or deleted from now on, as it is when delivered (deleted: true once deleted; changeSequence 0 when just created). FORBIDDEN when the caller may not read the project.',
    subscribe: async ({ args, context }: { args: Record<string, unknown>; context: LiveContext }) => {
      const live = liveOf(context);
      const projectId = await readableProject(context, args.projectId);
      return live.stream(context, { key: changeKeys.ofProject('task', projectId) });
    },
  })
  taskChanged(@Root() task: Task, @Arg('projectId', () => ID, { description: PROJECT_ID }) _projectId: string): Task {
    return task;
  }

  @Subscription(() => PlatformEvent, {
    description:
      'Every platform event recorded in the project from now on, of the given types only when eventTypes is given. FORBIDDEN when the caller may not read the project.',
    subscribe: async ({ args, context }: { args: Record<string, unknown>; context: LiveContext }) => {
      const live = liveOf(context);
      const types = eventTypesArgument(args.eventTypes);
      const projectId = await readableProject(context, args.projectId);
      return live.stream<PlatformEvent>(context, {
        key: changeKeys.ofProject('platform_event', projectId),
        wants: (change) => change.op === 'create',
        accepts: (event) => !types || types.has(event.eventType),
      });
    },
  })
  platformEventRecorded(
    @Root() event: PlatformEvent,
    @Arg('projectId', () => ID, { description: PROJECT_ID }) _projectId: string,
    @Arg('eventTypes', () => [String], { nullable: true, description: 'Only events of these types (eventType); all when omitted' })
    _eventTypes?: string[] | null,
  ): PlatformEvent {
    return event;
  }

  @Subscription(() => Activity, {
    description:
      'The activity each time it changes (status, steps ...) from now on; the subscription completes when the activity is deleted. FORBIDDEN when the caller may not read it.',
    subscribe: async ({ args, context }: { args: Record<string, unknown>; context: LiveContext }) => {
      const live = liveOf(context);
      const id = idArgument('id', args.id);
      await context.ctx.services.forEntity(Activity)!.get(context.ctx, id);
      return live.stream(context, { key: changeKeys.ofRow('activity', id), ends: (change) => change.op === 'delete' });
    },
  })
  activityChanged(@Root() activity: Activity, @Arg('id', () => ID, { description: "The activity's id (UUID)" }) _id: string): Activity {
    return activity;
  }
}

/**
 * Apollo plugin of /graphql over HTTP: a subscription operation is refused (400) with where it runs,
 * rather than executed once as a query.
 */
export const subscriptionsOverWebSocket: ApolloServerPlugin<GraphqlContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== 'subscription') return;
        throw new GraphQLError('subscriptions run over a WebSocket (the graphql-ws protocol) at /graphql, not over HTTP', {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      },
    };
  },
};
