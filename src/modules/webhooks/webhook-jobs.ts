import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TaskList } from 'graphile-worker' with { 'resolution-mode': 'import' };
import { RequestContext } from '../../engine/context';
import type { Services } from '../../engine/services';
import { attemptDelivery, DELIVER_WEBHOOK_JOB, PURGE_WEBHOOK_DELIVERIES_JOB, purgeDeliveries, type DeliveryAttempt } from './delivery';
import { DISPATCH_WEBHOOKS_JOB, dispatchEvent, type WebhookDispatch } from './dispatch';

export { WEBHOOKS_CRONTAB } from './delivery';

/** The webhook jobs of the queue: each in a unit of work of its own, acting as the system. */
export function webhookJobs(orm: MikroORM, services: Services): TaskList {
  const system = () => new RequestContext(orm.em.fork() as EntityManager, { kind: 'system' }, services);
  return {
    [DISPATCH_WEBHOOKS_JOB]: (payload) => dispatchEvent(system(), payload as WebhookDispatch),
    [DELIVER_WEBHOOK_JOB]: (payload) => attemptDelivery(system(), payload as DeliveryAttempt),
    [PURGE_WEBHOOK_DELIVERIES_JOB]: () => purgeDeliveries(system()),
  };
}
