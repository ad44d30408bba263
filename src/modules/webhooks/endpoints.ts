import { WebhookDelivery } from '../../entities/webhook-delivery';
import { WebhookEndpoint } from '../../entities/webhook-endpoint';
import { runOnConnection } from '../../database/prepared-in-transaction';
import { BadRequestError, ConflictError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';
import { assertEnabled, enqueueAttempt, webhookBody } from './delivery';
import { generateSigningSecret } from './signing';

/** The event type of the deliveries `POST /api/webhook-endpoints/{id}/test` sends. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** The signing secret sealed with SECRETS_KEY, as organization secrets are. */
function sealed(ctx: RequestContext, secret: string): string {
  if (!ctx.services.secrets) throw new Error('webhook endpoints need a secrets key (SECRETS_KEY)');
  return ctx.services.secrets.seal(secret);
}

function assertWebhookUrl(url: unknown): void {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw BadRequestError.forField('url', 'must be an absolute http or https URL');
}

const ENDPOINTS_OF_ORGANIZATION = {
  name: 'webhook-endpoints-of-organization',
  text: `select count(*)::int as endpoints from webhook_endpoint where organization_id = $1 and not parent_hidden`,
};

/**
 * Every endpoint costs a delivery per event, so endpoints must not be free: an organization has at most
 * WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION, whoever creates them. Checked once the new row is written (after
 * the caller's right to create it), creates in one organization taking turns (a transaction lock), so
 * concurrent ones cannot overshoot: the count includes the new endpoint.
 */
async function assertWithinEndpointCap(tx: RequestContext, organizationId: string): Promise<void> {
  const max = tx.services.webhooks.maxEndpointsPerOrganization;
  await tx.em
    .getConnection()
    .execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`webhook-endpoints:${organizationId}`], 'all', tx.em.getTransactionContext());
  const [{ endpoints }] = await runOnConnection<{ endpoints: number }>(tx.em, ENDPOINTS_OF_ORGANIZATION, [organizationId]);
  if (endpoints > max) {
    throw new ConflictError(
      `the organization already has ${endpoints - 1} webhook endpoints, the limit of WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION (${max}): delete an endpoint before creating another`,
    );
  }
}

/**
 * An endpoint's URL is http(s); its signing secret is the server's, shown once in the create's answer.
 * Enabling an endpoint again (after the server disabled it) starts its failure count afresh.
 */
export const webhookEndpointRules: ResourceRules<WebhookEndpoint> = {
  async beforeCreate(ctx, values) {
    assertWebhookUrl(values.url);
    const secret = generateSigningSecret();
    Object.assign(values, { sealedSecret: sealed(ctx, secret), signingSecret: secret });
  },
  async afterCreate(tx, endpoint) {
    await assertWithinEndpointCap(tx, endpoint.organizationId);
  },
  async beforeUpdate(_ctx, endpoint, changes) {
    if (changes.url !== undefined) assertWebhookUrl(changes.url);
    if (changes.enabled === true && !endpoint.enabled) Object.assign(changes, { consecutiveFailures: 0, disabledAt: null });
  },
  updateWatches: ['url', 'enabled'],
};

/** `POST /api/webhook-endpoints/{id}/rotate-secret`: a new secret signs from now on (the old one no longer); answered once. */
export async function rotateSigningSecret(ctx: RequestContext, id: string): Promise<WebhookEndpoint> {
  const secret = generateSigningSecret();
  const endpoint = await ctx.services.forEntity(WebhookEndpoint)!.modify(ctx, id, async (tx) => ({ sealedSecret: sealed(tx, secret) }));
  return { ...endpoint, signingSecret: secret };
}

/**
 * `POST /api/webhook-endpoints/{id}/test`: a `webhook.test` delivery to the endpoint, whatever event types
 * it listens to; its data names the endpoint. Answers the delivery, to follow in the log.
 */
export async function sendTestEvent(ctx: RequestContext, id: string): Promise<WebhookDelivery> {
  let delivery: WebhookDelivery | undefined;
  await ctx.services.forEntity(WebhookEndpoint)!.modify(ctx, id, async (tx, endpoint) => {
    assertEnabled(endpoint);
    const now = new Date().toISOString();
    const data = {
      eventType: TEST_EVENT_TYPE,
      organizationId: endpoint.organizationId,
      projectId: endpoint.projectId ?? null,
      eventDetail: { endpointId: endpoint.id },
      dateTime: now,
    };
    delivery = await tx.services.forEntity(WebhookDelivery)!.record(tx, {
      organizationId: endpoint.organizationId,
      endpointId: endpoint.id,
      eventId: null,
      eventType: TEST_EVENT_TYPE,
      status: 'PENDING',
      attempts: 0,
      roundAttempts: 0,
      payload: webhookBody(TEST_EVENT_TYPE, now, data),
    });
    await enqueueAttempt(tx, delivery);
    return {};
  });
  return delivery!;
}
