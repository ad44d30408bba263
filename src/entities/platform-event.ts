import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';
import { Project } from './project';

/** The domain events the server records (docs/operations.md); triggers listen to them. */
export type EventType =
  'task_created' | 'task_status_changed' | 'task_locked' | 'task_unlocked' | 'activity_completed' | 'document_locked' | 'knowledge_set_updated';

/**
 * Something that happened in an organization, in one of its projects or in none (spec "PlatformEvent"):
 * what triggers listen to (those of its project). Integrations may create their own; the server records
 * domain events itself (modules/workflow/platform-events.ts).
 */
@ObjectType({
  simpleResolvers: true,
  description:
    'Something that happened in an organization, in one of its projects or in none: what triggers and webhooks listen to. Integrations may create their own; the server records domain events itself',
})
@Entity({ tableName: 'platform_event' })
export class PlatformEvent extends BaseEntity {
  @Attr.reference(() => Project, {
    embed: true,
    nullable: true,
    writable: 'create',
    inverse: 'events',
    onDelete: 'cascade',
    description: 'Null when the subject belongs to no project (a document family locked with no status and no linked task)',
  })
  projectId?: string | null;

  // Declared after projectId: a create naming a project the caller may not see is refused on projectId
  // before the organization derived from that project is looked at.
  @Attr.reference(() => Organization, {
    writable: 'create',
    inverse: 'events',
    onDelete: 'cascade',
    description: "The organization of the event's subject; on create, the project's when omitted",
  })
  organizationId!: string;

  @Attr.string({
    required: true,
    minLength: 1,
    maxLength: 255,
    searchable: true,
    description: 'What happened, for example task_created; what triggers and webhook endpoints select events by',
  })
  eventType!: string;

  @Attr.json({ nullable: true, description: 'Free-form JSON value (object, array or scalar)' })
  eventDetail?: unknown;

  @Attr.boolean({ description: 'Whether the event has been notified' })
  notified!: boolean;

  @Attr.dateTime({ default: () => new Date(), description: 'When it happened; the creation time when omitted' })
  dateTime!: Date;
}
