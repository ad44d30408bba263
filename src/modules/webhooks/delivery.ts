import { performance } from 'node:perf_hooks';
import { runOnConnection } from '../../database/prepared-in-transaction';
import { UpstreamExchange } from '../../egress/upstream-call';
import { WebhookDelivery } from '../../entities/webhook-delivery';
import { WebhookEndpoint } from '../../entities/webhook-endpoint';
import { ConflictError, EgressDeniedError } from '../../errors/api-error';
import { enqueueKeyedJob } from '../../jobs/job-queue';
import { logger } from '../../logging/logger';
import type { RequestContext } from '../../engine/context';
import { retryDelayMs } from './settings';
import { signatureHeader } from './signing';

export const DELIVER_WEBHOOK_JOB = 'deliver-webhook';

/** The job of one attempt of one delivery. */
export interface DeliveryAttempt {
  deliveryId: string;
}

/** A delivery has one job at a time: a redelivery or a retry replaces the one waiting. */
export function deliveryJobKey(deliveryId: string): string {
  return `webhook-delivery:${deliveryId}`;
}

/** The body every attempt of a delivery sends: `{type, timestamp, data}`. */
export function webhookBody(type: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ type, timestamp, data });
}

/** A delivery's job adds it to its organization's queue of the delivery, in the transaction that (re)starts it. */
export async function enqueueAttempt(tx: RequestContext, delivery: { id: string; organizationId: string }, runAt?: Date): Promise<void> {
  const owner = tx.services.jobOwner(delivery.organizationId, delivery.id);
  await enqueueKeyedJob(tx.em, DELIVER_WEBHOOK_JOB, { deliveryId: delivery.id } satisfies DeliveryAttempt, owner, deliveryJobKey(delivery.id), runAt);
}

/** What an attempt needs: the delivery, and the endpoint it goes to. */
interface DeliveryTarget {
  id: string;
  organizationId: string;
  status: WebhookDelivery['status'];
  payload: string;
  roundAttempts: number;
  endpointId: string;
  url: string;
  sealedSecret: string;
  enabled: boolean;
}

const TARGET = {
  name: 'webhook-delivery-target',
  text: `select d.id, d.organization_id as "organizationId", d.status, d.payload, d.round_attempts as "roundAttempts", d.endpoint_id as "endpointId",
                e.url, e.sealed_secret as "sealedSecret", e.enabled
           from webhook_delivery d join webhook_endpoint e on e.id = d.endpoint_id
          where d.id = $1`,
};

/** How one attempt went: a 2xx (no `error`), or why not and whether the schedule tries again. */
interface Outcome {
  statusCode: number | null;
  durationMs: number;
  error?: string;
  retry: boolean;
}

/**
 * The delivery job: one attempt, then its outcome recorded (and the next attempt's job, when one is
 * due). No transaction is held during the call. A worker that dies mid-call leaves the job to the queue,
 * which runs it again: the receiver may get the delivery twice, under the same `webhook-id`.
 */
export async function attemptDelivery(ctx: RequestContext, { deliveryId }: DeliveryAttempt): Promise<void> {
  const [target] = await runOnConnection<DeliveryTarget>(ctx.em, TARGET, [deliveryId]);
  if (!target || (target.status !== 'PENDING' && target.status !== 'RETRYING')) return;
  if (!target.enabled) {
    await abandon(ctx, target.id, 'the endpoint is disabled');
    return;
  }
  const outcome = await send(ctx, target);
  await ctx.transaction((tx) => record(tx, target, outcome));
}

/** One signed POST through the egress guard, redirects not followed, within the attempt timeout. */
async function send(ctx: RequestContext, target: DeliveryTarget): Promise<Outcome> {
  const { egress, secrets, webhooks } = ctx.services;
  if (!egress || !secrets) throw new Error('webhook deliveries need the egress guard and the secrets key');
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'webhook-id': target.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets.open(target.sealedSecret), target.id, timestamp, target.payload),
  };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const exchange = new UpstreamExchange(egress, {
    url: new URL(target.url),
    method: 'POST',
    headers,
    body: target.payload,
    timeoutMs: webhooks.timeoutMs,
    followRedirects: false,
  });
  try {
    const answer = await exchange.open();
    // Read and dropped, so that the connection can serve the next attempt.
    await answer.body.dump().catch(() => undefined);
    const delivered = answer.statusCode >= 200 && answer.statusCode < 300;
    return {
      statusCode: answer.statusCode,
      durationMs: elapsed(),
      retry: !delivered,
      ...(delivered ? {} : { error: `the endpoint answered ${answer.statusCode}` }),
    };
  } catch (error) {
    const failure = exchange.failure(error);
    // The guard refuses before any request is made, and would refuse again: no retry. Members read the
    // delivery log, so the refusal names the host and the kind of address, never the address itself.
    if (failure instanceof EgressDeniedError)
      return { statusCode: null, durationMs: elapsed(), error: `refused by the egress policy: ${failure.reasonWithoutAddress}`, retry: false };
    return { statusCode: null, durationMs: elapsed(), error: failure.message, retry: true };
  } finally {
    exchange.finish();
  }
}

const SUCCEEDED = {
  name: 'webhook-delivery-succeeded',
  text: `update webhook_delivery set status = 'SUCCEEDED', attempts = attempts + 1, round_attempts = round_attempts + 1, last_status_code = $2,
                last_error = null, last_duration_ms = $3, next_attempt_at = null, delivered_at = $4, updated_on = $4, change_sequence = change_sequence + 1
          where id = $1 and status in ('PENDING', 'RETRYING') returning id`,
};

const FAILED_ATTEMPT = {
  name: 'webhook-delivery-failed-attempt',
  text: `update webhook_delivery set status = $2, attempts = attempts + 1, round_attempts = round_attempts + 1, last_status_code = $3,
                last_error = $4, last_duration_ms = $5, next_attempt_at = $6, updated_on = $7, change_sequence = change_sequence + 1
          where id = $1 and status in ('PENDING', 'RETRYING') returning id`,
};

const ABANDONED = {
  name: 'webhook-delivery-abandoned',
  text: `update webhook_delivery set status = 'FAILED', last_error = $2, next_attempt_at = null, updated_on = now(), change_sequence = change_sequence + 1
          where id = $1 and status in ('PENDING', 'RETRYING')`,
};

const ENDPOINT_SUCCEEDED = {
  name: 'webhook-endpoint-succeeded',
  text: `update webhook_endpoint set consecutive_failures = 0, updated_on = now(), change_sequence = change_sequence + 1
          where id = $1 and consecutive_failures <> 0`,
};

/** A failed attempt counts against the endpoint; reaching the limit disables it (once: the row is locked by the update). */
const ENDPOINT_FAILED = {
  name: 'webhook-endpoint-failed',
  text: `update webhook_endpoint w set consecutive_failures = w.consecutive_failures + 1,
                enabled = w.enabled and w.consecutive_failures + 1 < $2,
                disabled_at = case when w.enabled and w.consecutive_failures + 1 >= $2 then $3::timestamptz else w.disabled_at end,
                updated_on = $3, change_sequence = w.change_sequence + 1
          where w.id = $1
      returning w.organization_id as "organizationId", w.url, w.consecutive_failures as "consecutiveFailures", w.disabled_at = $3::timestamptz as "disabledNow"`,
};

/** The outcome written: the delivery's state, the next attempt's job when one is due, and the endpoint's failure count. */
async function record(tx: RequestContext, target: DeliveryTarget, outcome: Outcome): Promise<void> {
  const now = new Date();
  if (outcome.error === undefined) {
    const [written] = await runOnConnection(tx.em, SUCCEEDED, [target.id, outcome.statusCode, outcome.durationMs, now]);
    if (written) await runOnConnection(tx.em, ENDPOINT_SUCCEEDED, [target.endpointId]);
    return;
  }
  const delay = outcome.retry ? retryDelayMs(tx.services.webhooks, target.roundAttempts + 1) : undefined;
  const nextAttemptAt = delay === undefined ? null : new Date(now.getTime() + delay);
  const [written] = await runOnConnection(tx.em, FAILED_ATTEMPT, [
    target.id,
    nextAttemptAt ? 'RETRYING' : 'FAILED',
    outcome.statusCode,
    outcome.error,
    outcome.durationMs,
    nextAttemptAt,
    now,
  ]);
  // Another attempt finished the delivery first: its outcome stands.
  if (!written) return;
  if (nextAttemptAt) await enqueueAttempt(tx, target, nextAttemptAt);
  await countFailure(tx, target.endpointId, now);
}

async function countFailure(tx: RequestContext, endpointId: string, now: Date): Promise<void> {
  const limit = tx.services.webhooks.maxConsecutiveFailures;
  const [endpoint] = await runOnConnection<{ organizationId: string; url: string; consecutiveFailures: number; disabledNow: boolean }>(tx.em, ENDPOINT_FAILED, [
    endpointId,
    limit,
    now,
  ]);
  if (endpoint?.disabledNow) {
    logger.warn(
      { endpointId, organizationId: endpoint.organizationId, url: endpoint.url, consecutiveFailures: endpoint.consecutiveFailures },
      `webhook endpoint disabled after ${limit} consecutive failed deliveries (WEBHOOK_MAX_CONSECUTIVE_FAILURES)`,
    );
  }
}

/** A delivery whose endpoint was disabled meanwhile is not attempted: it fails, saying why. */
async function abandon(ctx: RequestContext, deliveryId: string, reason: string): Promise<void> {
  await runOnConnection(ctx.em, ABANDONED, [deliveryId, reason]);
}

/** Deliveries go to enabled endpoints only: a test or a redelivery to a disabled one is 409. */
export function assertEnabled(endpoint: Pick<WebhookEndpoint, 'id' | 'enabled'>): void {
  if (!endpoint.enabled) throw new ConflictError(`webhook endpoint ${endpoint.id} is disabled: enable it first`);
}

/**
 * `POST /api/webhook-deliveries/{id}/redeliver`: the delivery starts again (PENDING, the retry schedule
 * from its beginning) under the same id, whatever its state; its attempts keep counting.
 */
export function redeliver(ctx: RequestContext, id: string): Promise<WebhookDelivery> {
  return ctx.services.forEntity(WebhookDelivery)!.modify(ctx, id, async (tx, delivery) => {
    const endpoint = await tx.em.findOneOrFail(WebhookEndpoint, { id: delivery.endpointId });
    assertEnabled(endpoint);
    await enqueueAttempt(tx, delivery);
    return { status: 'PENDING', nextAttemptAt: null, roundAttempts: 0 };
  });
}

/** How long the delivery log keeps a delivery. */
export const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

export const PURGE_WEBHOOK_DELIVERIES_JOB = 'purge-webhook-deliveries';
/** Hourly (graphile-worker crontab: minute 41 of every hour). */
export const WEBHOOKS_CRONTAB = `41 * * * * ${PURGE_WEBHOOK_DELIVERIES_JOB}`;

const PURGE = { name: 'purge-webhook-deliveries', text: `delete from webhook_delivery where created_on < now() - make_interval(days => $1)` };

export async function purgeDeliveries(ctx: RequestContext): Promise<void> {
  await runOnConnection(ctx.em, PURGE, [WEBHOOK_DELIVERY_RETENTION_DAYS]);
}
