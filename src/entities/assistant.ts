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
@ObjectType({ simpleResolvers: true, description: "An assistant of a project: a pipeline of steps run on the project's content" })
@Entity({ tableName: 'assistant' })
@Unique({ properties: ['projectId', 'slug'] })
export class Assistant extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the assistant', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({
    description:
      'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...). Renaming without sending a slug re-derives it from the new name',
  })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the assistant', searchable: true })
  description!: string;

  @Attr.string({ description: 'Display color' })
  color!: string;

  @Attr.string({ description: 'Role of the assistant (free text)' })
  assistantRole!: string;

  @Attr.string({ description: 'Subscription the assistant runs under (free text)' })
  subscription!: string;

  @Attr.reference(() => Project, {
    description: 'The project the assistant belongs to (its id); set on create, an update leaves it unchanged',
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'assistants',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.boolean({ description: 'Whether the assistant is active (default true)', default: true })
  active!: boolean;

  @Attr.boolean({ description: 'Whether the assistant can be chatted with' })
  chatEnabled!: boolean;

  @Attr.boolean({ description: "Whether the assistant also runs on the project's existing content" })
  runOnExistingContent!: boolean;

  @Attr.boolean({ description: 'Whether the assistant is shown in training' })
  showInTraining!: boolean;

  @Attr.int({ description: 'Priority hint for its runs, or null', nullable: true })
  priorityHint?: number | null;

  @Attr.json({ description: 'Options used when testing the assistant, as free JSON', default: {}, schema: anyObject })
  testOptions!: Record<string, unknown>;

  @Attr.json({
    description: 'Settings of the assistant: agentRuntimeId, complete_label, moduleRefs, prompt, taxonomies and the pipeline of steps it runs',
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
    description: 'Problems found in the options (instances of {description, message, option}); kept by the server',
  })
  validationErrors!: Record<string, unknown>;
}
