import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { ActivityPlan } from './activity-plan';
import { BaseEntity } from './base';
import { Project } from './project';
import { Trigger } from './trigger';

/** One run of an activity plan in a project; modules/workflow/activity-runner.ts runs it on the job queue. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'activity' })
export class Activity extends BaseEntity {
  @Attr.reference(() => ActivityPlan, { nullable: true, inverse: 'activities', onDelete: 'set null' })
  activityPlanId?: string | null;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'activities', onDelete: 'cascade' })
  projectId!: string;

  @Attr.string({ maxLength: 255, searchable: true })
  title!: string;

  @Attr.string({
    default: 'PENDING',
    pattern: /^(PENDING|RUNNING|COMPLETED|FAILED|CANCELLED)$/,
    description: 'One of PENDING, RUNNING, COMPLETED, FAILED, CANCELLED (default PENDING)',
  })
  status!: string;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  inputs!: Record<string, unknown>;

  @Attr.json({ default: [], schema: { type: 'array', items: { type: 'object', additionalProperties: true } } })
  steps!: Record<string, unknown>[];

  @Attr.reference(() => Trigger, {
    nullable: true,
    inverse: 'activities',
    onDelete: 'set null',
    within: 'projectId',
    description: 'The trigger that started it, if any (GraphQL `startedByTrigger`)',
  })
  startedByTriggerId?: string | null;

  @Attr.dateTime({ nullable: true })
  startedOn?: Date | null;

  @Attr.dateTime({ nullable: true })
  completedOn?: Date | null;

  @Attr.json({ nullable: true, description: 'Why it failed, as free JSON' })
  errorDetails?: unknown;
}
