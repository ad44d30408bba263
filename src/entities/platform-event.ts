import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Project } from './project';

/** The domain events the server records (BEHAVIOURS.md "Platform events"); triggers listen to them. */
export type EventType =
  | 'task_created'
  | 'task_status_changed'
  | 'task_locked'
  | 'task_unlocked'
  | 'activity_completed'
  | 'document_locked'
  | 'knowledge_set_updated';

/**
 * Something that happened in a project (spec "PlatformEvent"): what triggers listen to. Integrations may
 * create their own; the server records domain events itself (services/platform-events.ts).
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'platform_event' })
export class PlatformEvent extends BaseEntity {
  @Attr.reference(() => Project, { embed: true, required: true, writable: 'create', inverse: 'events', onDelete: 'cascade' })
  projectId!: string;

  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true, description: 'For example task_created' })
  eventType!: string;

  @Attr.json({ nullable: true, description: 'Free-form JSON value (object, array or scalar)' })
  eventDetail?: unknown;

  @Attr.boolean()
  notified!: boolean;

  @Attr.dateTime({ default: () => new Date(), description: 'When it happened; the creation time when omitted' })
  dateTime!: Date;
}
