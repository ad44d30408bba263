import { PlatformEvent, WebhookEndpoint } from '../../entities';
import { rulesOf, type PlatformModule } from '../../engine/module';
import { redeliver } from './delivery';
import { platformEventWebhookRules } from './dispatch';
import { rotateSigningSecret, sendTestEvent, webhookEndpointRules } from './endpoints';
import { webhookSettings, type WebhookSettings } from './settings';

declare module '../../engine/services' {
  interface ModuleDependencies {
    /** How deliveries are attempted: WEBHOOK_MAX_CONSECUTIVE_FAILURES, the retry schedule, the attempt timeout. */
    webhooks: WebhookSettings;
  }
}

/** Signed webhooks: endpoints, the delivery of platform events to them, and the delivery log. */
export const webhooksModule: PlatformModule = {
  name: 'webhooks',
  rules: [rulesOf(WebhookEndpoint, webhookEndpointRules), rulesOf(PlatformEvent, platformEventWebhookRules)],
  operations: {
    rotateWebhookEndpointSecret: (ctx, id) => rotateSigningSecret(ctx, id!),
    testWebhookEndpoint: (ctx, id) => sendTestEvent(ctx, id!),
    redeliverWebhookDelivery: (ctx, id) => redeliver(ctx, id!),
  },
  defaults: { webhooks: () => webhookSettings() },
};
