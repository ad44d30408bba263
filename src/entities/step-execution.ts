import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { BaseEntity } from './base';
import { EXCEPTION_DETAILS_SCHEMA, Execution } from './execution';
import { executionPolicySchema } from './project';

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

/** One step of an execution's pipeline as it ran (spec "Pipeline step execution"); its organization is the execution's. */
@ObjectType({ simpleResolvers: true, description: "One step of an execution's pipeline as it ran; its organization is the execution's" })
@Entity({ tableName: 'step_execution' })
export class StepExecution extends BaseEntity {
  @Attr.reference(() => Execution, {
    description: 'The execution the step execution belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'steps',
    onDelete: 'cascade',
  })
  executionId!: string;

  @Attr.string({ description: 'Reference of the step within the pipeline', searchable: true })
  ref!: string;

  @Attr.string({ description: 'Name of the step', searchable: true })
  name!: string;

  @Attr.string({ description: 'Id of the input the step read, or null', nullable: true })
  inputId?: string | null;

  @Attr.string({ description: 'Id of the output the step wrote, or null', nullable: true })
  outputId?: string | null;

  @Attr.stringArray({ description: 'Ids of the outputs the step wrote' })
  outputIds!: string[];

  @Attr.dateTime({ description: 'When the step started, or null', nullable: true })
  start?: Date | null;

  @Attr.dateTime({ description: 'When the step ended, or null', nullable: true })
  end?: Date | null;

  @Attr.string({ default: 'PENDING', description: 'Where the step stands (free text, for example PENDING; default PENDING)' })
  status!: string;

  @Attr.string({ description: 'Message about the status of the step, or null', nullable: true })
  statusMessage?: string | null;

  @Attr.string({ description: 'What the step does (free text, for example MODULE)' })
  stepType!: string;

  @Attr.int({ description: 'Time the step spent processing' })
  processingTime!: number;

  @Attr.int({ description: 'Progress made, out of progressMax' })
  progress!: number;

  @Attr.int({ description: 'Progress value at which the step is done' })
  progressMax!: number;

  @Attr.string({ description: 'Condition under which the step runs, or null', nullable: true })
  conditional?: string | null;

  @Attr.json({ description: 'Context of the step, as free JSON', default: {}, schema: anyObject })
  context!: Record<string, unknown>;

  @Attr.json({ description: 'Options the step ran with, as free JSON', default: {}, schema: anyObject })
  options!: Record<string, unknown>;

  @Attr.json({ description: 'Types of the options, as free JSON', default: {}, schema: anyObject })
  optionTypes!: Record<string, unknown>;

  @Attr.json({
    description: 'Retry and timeout policy of the step: backoffBaseSeconds, backoffStrategy, maxAttempts, onExhausted, timeoutSeconds',
    default: {},
    schema: executionPolicySchema,
  })
  executionPolicy!: Record<string, unknown>;

  @Attr.string({ description: 'Reference of the extension pack the step comes from, or null', nullable: true })
  extensionPackRef?: string | null;

  @Attr.json({
    description: 'What went wrong, when something did: message, error type, cause, advice, validation errors ...',
    default: {},
    schema: EXCEPTION_DETAILS_SCHEMA,
  })
  exceptionDetails!: Record<string, unknown>;
}
