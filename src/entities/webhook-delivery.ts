import { Entity, Index, Property, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { WebhookDeliveryStatus } from './enums';
import { Organization } from './organization';
import { PlatformEvent } from './platform-event';
import { WebhookEndpoint } from './webhook-endpoint';

/**
 * One event sent to one endpoint, and how it went: its id is the `webhook-id` of every attempt, so that
 * receivers recognise a repeat. The collection is read-only: the server alone writes it. Kept 30 days.
 */
@ObjectType({
  simpleResolvers: true,
  description:
    'One event sent to one webhook endpoint, and how it went: its id is the webhook-id of every attempt, so that receivers recognise a repeat. Read-only: the server alone writes it; kept 30 days',
})
@Entity({ tableName: 'webhook_delivery' })
@Unique({ properties: ['endpointId', 'eventId'] })
@Index({ properties: ['createdOn'] })
export class WebhookDelivery extends BaseEntity {
  @Attr.reference(() => Organization, { description: 'The organization of the endpoint (its id)', required: true, onDelete: 'cascade' })
  organizationId!: string;

  @Attr.reference(() => WebhookEndpoint, {
    description: 'The webhook endpoint the event is sent to (its id)',
    required: true,
    inverse: 'deliveries',
    onDelete: 'cascade',
  })
  endpointId!: string;

  @Attr.reference(() => PlatformEvent, { nullable: true, onDelete: 'cascade', description: 'Null for a webhook.test delivery' })
  eventId?: string | null;

  @Attr.string({ required: true, description: 'The event type sent (webhook.test for a test)' })
  eventType!: string;

  @Attr.enum(WebhookDeliveryStatus, { description: 'Where the delivery stands; set by the server', writable: 'never', default: 'PENDING' })
  status!: (typeof WebhookDeliveryStatus.values)[number];

  @Attr.int({ writable: 'never', description: 'Attempts made so far' })
  attempts!: number;

  @Attr.int({ nullable: true, writable: 'never', description: "The HTTP status of the last attempt's answer; null when none came" })
  lastStatusCode?: number | null;

  @Attr.string({ nullable: true, writable: 'never', description: 'Why the last attempt failed; null after a success' })
  lastError?: string | null;

  @Attr.int({ nullable: true, writable: 'never', description: 'How long the last attempt took, in milliseconds' })
  lastDurationMs?: number | null;

  @Attr.dateTime({ nullable: true, writable: 'never', description: 'When the next attempt is due, while RETRYING' })
  nextAttemptAt?: Date | null;

  @Attr.dateTime({ nullable: true, writable: 'never', description: 'When an attempt succeeded' })
  deliveredAt?: Date | null;

  /** Attempts since the delivery was (re)started: where it stands in the retry schedule. */
  @Property({ type: 'integer', default: 0, hidden: true })
  roundAttempts!: number;

  /** The JSON body, fixed when the delivery is created: every attempt sends the same bytes. */
  @Property({ type: 'text', default: '{}', hidden: true })
  payload!: string;
}
