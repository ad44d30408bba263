import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { ActivityPlan } from './activity-plan';
import { BaseEntity } from './base';
import { Project } from './project';
import { Trigger } from './trigger';

/** One run of an activity plan in a project; modules/workflow/activity-runner.ts runs it on the job queue. */
@ObjectType({ simpleResolvers: true, description: 'One run of an activity plan in a project' })
@Entity({ tableName: 'activity' })
export class Activity extends BaseEntity {
  @Attr.reference(() => ActivityPlan, {
    description: 'The activity plan this activity runs (its id), or null',
    nullable: true,
    inverse: 'activities',
    onDelete: 'set null',
  })
  activityPlanId?: string | null;

  @Attr.reference(() => Project, {
    description: 'The project the activity belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'activities',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.string({ description: 'Title of the activity', maxLength: 255, searchable: true })
  title!: string;

  @Attr.string({
    default: 'PENDING',
    pattern: /^(PENDING|RUNNING|COMPLETED|FAILED|CANCELLED)$/,
    description: 'One of PENDING, RUNNING, COMPLETED, FAILED, CANCELLED (default PENDING)',
  })
  status!: string;

  @Attr.json({ description: 'The inputs the activity runs with, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  inputs!: Record<string, unknown>;

  @Attr.json({
    description: "The plan's steps as this activity runs them, each with its state",
    default: [],
    schema: { type: 'array', items: { type: 'object', additionalProperties: true } },
  })
  steps!: Record<string, unknown>[];

  @Attr.reference(() => Trigger, {
    nullable: true,
    inverse: 'activities',
    onDelete: 'set null',
    within: 'projectId',
    description: 'The trigger that started it, if any (GraphQL `startedByTrigger`)',
  })
  startedByTriggerId?: string | null;

  @Attr.dateTime({ description: 'When the activity started running; null until then', nullable: true })
  startedOn?: Date | null;

  @Attr.dateTime({ description: 'When the activity completed; null until then', nullable: true })
  completedOn?: Date | null;

  @Attr.json({ nullable: true, description: 'Why it failed, as free JSON' })
  errorDetails?: unknown;
}
