import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { PipelineStepType } from './enums';
import { Organization } from './organization';

/** The steps an activity runs, declared once per organization (referenced as `activity-plan://<orgSlug>/<slug>`). */
@ObjectType({
  simpleResolvers: true,
  description: 'The steps an activity runs, declared once per organization (referenced as activity-plan://<orgSlug>/<slug>)',
})
@Entity({ tableName: 'activity_plan' })
@Unique({ properties: ['organizationId', 'slug'] })
export class ActivityPlan extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the activity plan', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the activity plan', searchable: true })
  description!: string;

  @Attr.json({
    default: [],
    description:
      'The steps, checked on create and on update (400 naming steps[i].<field>): each an object whose stepType is a PipelineStepType; ' +
      'CREATE_TASK needs options.taskData (an object), BRIDGE_CALL options.bridge (a service bridge id or slug) and options.endpointName, ' +
      'SCRIPT options.expression (JSONata). Each step gets an id (a UUID, kept when given) and a ref (step-<n> when omitted), both unique within the plan',
    schema: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: {
            type: 'string',
            minLength: 1,
            description:
              'Stable identifier, unique within the plan: a UUID given by the server when omitted (an update keeps the id of the step with the same ref)',
          },
          ref: { type: 'string', minLength: 1, description: 'Unique within the plan; step-<n> (1-based position) when omitted' },
          name: { type: 'string' },
          stepType: { type: 'string', description: `One of ${PipelineStepType.values.join(', ')}` },
          options: {
            type: 'object',
            nullable: true,
            additionalProperties: true,
            description: 'Per step type: CREATE_TASK {taskData}, BRIDGE_CALL {bridge, endpointName}, SCRIPT {expression}',
          },
          executionPolicy: { type: 'object', additionalProperties: true },
        },
        additionalProperties: true,
      },
    },
  })
  steps!: Record<string, unknown>[];

  @Attr.reference(() => Organization, {
    description: 'The organization the activity plan belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'activityPlans',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
