import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import type { EventType } from './platform-event';
import { Project } from './project';

/** The event kinds a trigger listens to: platform events of its project, and `manual` (started by hand). */
export const TRIGGER_EVENT_KINDS = [
  'task_created',
  'task_status_changed',
  'activity_completed',
  'manual',
  'document_locked',
  'knowledge_set_updated',
] as const satisfies readonly (EventType | 'manual')[];

export type TriggerEventKind = (typeof TRIGGER_EVENT_KINDS)[number];

/** Starts an activity plan when an event of a kind happens in a project (modules/workflow/trigger-firing.ts fires it). */
@ObjectType({ simpleResolvers: true, description: 'Starts an activity plan when an event of a kind happens in a project' })
@Entity({ tableName: 'trigger' })
@Unique({ properties: ['projectId', 'slug'] })
export class Trigger extends BaseEntity {
  @Attr.slug({ description: 'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Name of the trigger', maxLength: 255, searchable: true })
  name!: string;

  @Attr.reference(() => Project, {
    description: 'The project the trigger belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'triggers',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.string({
    maxLength: 255,
    searchable: true,
    description: `The event kind it listens to, one of ${TRIGGER_EVENT_KINDS.join(', ')} (400 otherwise, on create and on update)`,
  })
  eventKind!: string;

  @Attr.string({
    nullable: true,
    description:
      'A condition on the event: a JSONata expression over {eventKind, project: {id, name}, task?, from?, to?, activity?, documentFamily?, input?}; null for none. One that does not parse is 400',
  })
  eventFilter?: string | null;

  @Attr.json({
    nullable: true,
    description:
      'How the event becomes the activity inputs: an object of input name to JSONata expression over the event, or null. An expression that does not parse is 400 naming inputMapping.<name>',
  })
  inputMapping?: unknown;

  @Attr.string({
    description:
      "The plan it starts: activity-plan://<orgSlug>/<planSlug>, naming a live (not deleted) activity plan of the project's organization; malformed or dangling is 400",
  })
  activityPlanRef!: string;

  @Attr.boolean({ description: 'Whether the trigger fires (default true)', default: true })
  enabled!: boolean;
}
