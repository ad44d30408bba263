import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { executionPolicySchema, Project } from './project';

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

/** A step of an assistant's pipeline (spec "Pipeline step"). */
export const pipelineStepSchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    ref: { type: 'string' },
    stepType: { type: 'string', description: 'For example MODULE' },
    conditional: { type: 'string' },
    options: anyObject,
    executionPolicy: executionPolicySchema,
  },
};

/** `{instances: [{description, message, option}]}`, as an assistant's validationErrors. */
export const validationErrorSchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: { description: { type: 'string' }, message: { type: 'string' }, option: { type: 'string' } },
};

/** An assistant of a project: a pipeline of steps run on the project's content (spec "Assistant"). */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'assistant' })
@Unique({ properties: ['projectId', 'slug'] })
export class Assistant extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({
    description:
      'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...). Renaming without sending a slug re-derives it from the new name',
  })
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.string()
  color!: string;

  @Attr.string()
  assistantRole!: string;

  @Attr.string()
  subscription!: string;

  @Attr.reference(() => Project, { embed: true, required: true, writable: 'create', inverse: 'assistants', onDelete: 'cascade' })
  projectId!: string;

  @Attr.boolean({ default: true })
  active!: boolean;

  @Attr.boolean()
  chatEnabled!: boolean;

  @Attr.boolean()
  runOnExistingContent!: boolean;

  @Attr.boolean()
  showInTraining!: boolean;

  @Attr.int({ nullable: true })
  priorityHint?: number | null;

  @Attr.json({ default: {}, schema: anyObject })
  testOptions!: Record<string, unknown>;

  @Attr.json({
    default: {},
    schema: {
      type: 'object',
      additionalProperties: true,
      properties: {
        agentRuntimeId: { type: 'string' },
        complete_label: { type: 'string' },
        moduleRefs: { type: 'array', items: { type: 'string' } },
        prompt: { type: 'string' },
        taxonomies: { type: 'array', items: { type: 'string' } },
        pipeline: { type: 'object', additionalProperties: true, properties: { steps: { type: 'array', items: pipelineStepSchema } } },
      },
    },
  })
  options!: Record<string, unknown>;

  @Attr.json({
    default: { instances: [] },
    writable: 'never',
    schema: { type: 'object', additionalProperties: true, properties: { instances: { type: 'array', items: validationErrorSchema } } },
    description: 'Kept by the server',
  })
  validationErrors!: Record<string, unknown>;
}
