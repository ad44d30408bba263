import type { FollowingStatement } from '../../database/row-writes';
import { runOnConnection } from '../../database/prepared-in-transaction';
import { PlatformEvent } from '../../entities/platform-event';
import { JOB_MAX_ATTEMPTS, JOB_SCHEMA, jobStatementIf, organizationQueueSql } from '../../jobs/job-queue';
import { NotFoundError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';
import { present } from '../../rest/present';
import { DELIVER_WEBHOOK_JOB, deliveryJobKey, webhookBody } from './delivery';

export const DISPATCH_WEBHOOKS_JOB = 'dispatch-webhooks';

/** The job that turns one recorded event into a delivery (and its job) per matching endpoint. */
export interface WebhookDispatch {
  eventId: string;
}

/** What decides which endpoints an event goes to. */
export interface DispatchedEvent {
  id: string;
  organizationId: string;
  projectId: string | null;
  eventType: string;
}

/**
 * The enabled endpoints of the event's organization that take it (`$1` organization, `$2` project,
 * `$3` type, the endpoint aliased `w`): of its project or of none, listening to its type or to all.
 */
const MATCHING_ENDPOINTS = `from webhook_endpoint w
 where w.organization_id = $1::uuid and w.enabled and not w.parent_hidden
   and (w.project_id is null or w.project_id = $2::uuid)
   and (w.event_types = '[]'::jsonb or w.event_types @> jsonb_build_array($3::text))`;

/**
 * The statement that asks for the event's dispatch, sent with the event's INSERT (as its trigger
 * evaluation is): only when an endpoint takes the event, so an organization without webhooks adds no
 * job, and a change rolled back asks for nothing.
 */
export function webhookDispatchJob(ctx: RequestContext, event: DispatchedEvent): FollowingStatement {
  return jobStatementIf(DISPATCH_WEBHOOKS_JOB, { eventId: event.id } satisfies WebhookDispatch, ctx.services.jobOwner(event.organizationId, event.id), {
    key: 'webhook-endpoint',
    sql: `select 1 ${MATCHING_ENDPOINTS}`,
    params: [event.organizationId, event.projectId, event.eventType],
  });
}

/** Events created through the API are dispatched as recorded ones are, in the create's transaction. */
export const platformEventWebhookRules: ResourceRules<PlatformEvent> = {
  async afterCreate(tx, event) {
    const statement = webhookDispatchJob(tx, {
      id: event.id,
      organizationId: event.organizationId,
      projectId: event.projectId ?? null,
      eventType: event.eventType,
    });
    await runOnConnection(tx.em, { name: '', text: statement.sql }, statement.params);
  },
};

/**
 * One delivery per matching endpoint, each with its job (in the organization's queue of the delivery, as
 * `enqueueAttempt` picks it), in one statement: the unique (endpoint, event) makes a dispatch that runs
 * twice (a worker that died) add nothing the first run added.
 */
const CREATE_DELIVERIES = {
  name: 'create-webhook-deliveries',
  text: `with created as (
    insert into webhook_delivery (id, uuid, created_on, updated_on, change_sequence, organization_id, endpoint_id, event_id, event_type, status, attempts, round_attempts, payload)
    select gen_random_uuid(), gen_random_uuid(), now(), now(), 0, w.organization_id, w.id, $4::uuid, $3::text, 'PENDING', 0, 0, $5::text
    ${MATCHING_ENDPOINTS}
    on conflict (endpoint_id, event_id) do nothing
    returning id, organization_id)
  select 1 from created, ${JOB_SCHEMA}.add_job($6::text, json_build_object('deliveryId', created.id), max_attempts => $7::int,
    queue_name => ${organizationQueueSql('created.organization_id', 'created.id', '$9')}, job_key => $8::text || created.id, job_key_mode => 'replace')`,
};

/**
 * The dispatch job: the event as `GET /api/events/{id}` answers it, sent to every endpoint that takes it
 * now. In a transaction, so that the event is read where it was written (never from a lagging replica).
 */
export function dispatchEvent(ctx: RequestContext, dispatch: WebhookDispatch): Promise<void> {
  return ctx.transaction((tx) => createDeliveries(tx, dispatch));
}

async function createDeliveries(ctx: RequestContext, { eventId }: WebhookDispatch): Promise<void> {
  const event = await eventAsAnswered(ctx, eventId);
  // Deleted before it could be dispatched: there is nothing left to send.
  if (!event) return;
  const payload = webhookBody(event.eventType, event.answer.dateTime, event.answer);
  await runOnConnection(ctx.em, CREATE_DELIVERIES, [
    event.organizationId,
    event.projectId ?? null,
    event.eventType,
    eventId,
    payload,
    DELIVER_WEBHOOK_JOB,
    JOB_MAX_ATTEMPTS,
    // The job key's prefix: each delivery's id completes it.
    deliveryJobKey(''),
    ctx.services.jobQueuesPerOrganization,
  ]);
}

/** The event, and its JSON as `GET /api/events/{id}` answers it; undefined when it is gone. */
async function eventAsAnswered(ctx: RequestContext, eventId: string): Promise<(PlatformEvent & { answer: { dateTime: string } }) | undefined> {
  const events = ctx.services.forEntity(PlatformEvent)!;
  try {
    const event = await events.get(ctx, eventId);
    return { ...event, answer: (await present(ctx, events.resource, event)) as { dateTime: string } };
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
