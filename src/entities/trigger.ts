import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Project } from './project';

/** Starts an activity plan when an event of a kind happens in a project (declaration only: nothing here fires it). */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'trigger' })
@Unique({ properties: ['projectId', 'slug'] })
export class Trigger extends BaseEntity {
  @Attr.slug({ description: 'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ maxLength: 255, searchable: true })
  name!: string;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'triggers', onDelete: 'cascade' })
  projectId!: string;

  @Attr.string({ maxLength: 255, searchable: true, description: 'The event type it listens to, e.g. task_created' })
  eventKind!: string;

  @Attr.string({ nullable: true, description: 'A condition on the event' })
  eventFilter?: string | null;

  @Attr.json({ nullable: true, description: 'How the event becomes the activity inputs' })
  inputMapping?: unknown;

  @Attr.string({ description: 'activity-plan://<orgSlug>/<slug>' })
  activityPlanRef!: string;

  @Attr.boolean({ default: true })
  enabled!: boolean;
}
