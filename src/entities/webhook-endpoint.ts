import { Entity, Property } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';
import { Project } from './project';

/** Longest URL an endpoint may name. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Where an organization's platform events are sent, signed (docs/integrations.md "Webhooks"): every
 * event of the organization (or of one project), of the listed types or of all, while enabled.
 */
@ObjectType({
  simpleResolvers: true,
  description:
    "Where an organization's platform events are sent, signed: every event of the organization (or of one project), of the listed types or of all, while enabled",
})
@Entity({ tableName: 'webhook_endpoint' })
export class WebhookEndpoint extends BaseEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the webhook endpoint belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'webhookEndpoints',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.reference(() => Project, {
    nullable: true,
    writable: 'create',
    onDelete: 'cascade',
    description: "Only this project's events; null: every event of the organization",
  })
  projectId?: string | null;

  @Attr.string({
    required: true,
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    pattern: /^https?:\/\/\S+$/,
    searchable: true,
    description: 'The http or https URL events are POSTed to',
  })
  url!: string;

  @Attr.stringArray({ default: [], description: 'The platform event types sent (for example task_created); empty: all of them' })
  eventTypes!: string[];

  @Attr.boolean({ default: true, description: 'Events are sent only while true; set false by the server after too many consecutive failures' })
  enabled!: boolean;

  @Attr.string({ description: 'Free-text description of the webhook endpoint', maxLength: 1000, searchable: true })
  description!: string;

  @Attr.int({ writable: 'never', description: 'Failed delivery attempts since the last successful one' })
  consecutiveFailures!: number;

  @Attr.dateTime({ nullable: true, writable: 'never', description: 'When the server disabled the endpoint after too many consecutive failures' })
  disabledAt?: Date | null;

  @Attr.string({
    nullable: true,
    writable: 'never',
    persist: false,
    responseRequired: false,
    description: 'The signing secret (whsec_...): present only in the answers to the create and to rotate-secret',
  })
  signingSecret?: string | null;

  /** The signing secret encrypted with SECRETS_KEY (modules/access/secret-box.ts); never leaves the server. */
  @Property({ type: 'text', hidden: true })
  sealedSecret!: string;

  @Attr.string({
    description: 'The searchable fields, lowercased and joined by spaces: what the free-text query matches; kept by the server',
    writable: 'never',
  })
  searchText!: string;
}
