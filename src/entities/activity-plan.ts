import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { PipelineStepType } from './enums';
import { Organization } from './organization';

/** The steps an activity runs, declared once per organization (referenced as `activity-plan://<orgSlug>/<slug>`). */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'activity_plan' })
@Unique({ properties: ['organizationId', 'slug'] })
export class ActivityPlan extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.json({
    default: [],
    schema: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          ref: { type: 'string' },
          name: { type: 'string' },
          stepType: { type: 'string', description: `One of ${PipelineStepType.values.join(', ')}` },
          options: { type: 'object', additionalProperties: true },
          executionPolicy: { type: 'object', additionalProperties: true },
        },
        additionalProperties: true,
      },
    },
  })
  steps!: Record<string, unknown>[];

  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'activityPlans', onDelete: 'cascade' })
  organizationId!: string;
}
