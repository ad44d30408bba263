import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { BaseEntity } from './base';
import { EXCEPTION_DETAILS_SCHEMA, Execution } from './execution';
import { executionPolicySchema } from './project';

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

/** One step of an execution's pipeline as it ran (spec "Pipeline step execution"); its organization is the execution's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'step_execution' })
export class StepExecution extends BaseEntity {
  @Attr.reference(() => Execution, { required: true, writable: 'create', inverse: 'steps', onDelete: 'cascade' })
  executionId!: string;

  @Attr.string({ searchable: true })
  ref!: string;

  @Attr.string({ searchable: true })
  name!: string;

  @Attr.string({ nullable: true })
  inputId?: string | null;

  @Attr.string({ nullable: true })
  outputId?: string | null;

  @Attr.stringArray()
  outputIds!: string[];

  @Attr.dateTime({ nullable: true })
  start?: Date | null;

  @Attr.dateTime({ nullable: true })
  end?: Date | null;

  @Attr.string({ default: 'PENDING', description: 'For example PENDING' })
  status!: string;

  @Attr.string({ nullable: true })
  statusMessage?: string | null;

  @Attr.string({ description: 'For example MODULE' })
  stepType!: string;

  @Attr.int()
  processingTime!: number;

  @Attr.int()
  progress!: number;

  @Attr.int()
  progressMax!: number;

  @Attr.string({ nullable: true })
  conditional?: string | null;

  @Attr.json({ default: {}, schema: anyObject })
  context!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: anyObject })
  options!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: anyObject })
  optionTypes!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: executionPolicySchema })
  executionPolicy!: Record<string, unknown>;

  @Attr.string({ nullable: true })
  extensionPackRef?: string | null;

  @Attr.json({ default: {}, schema: EXCEPTION_DETAILS_SCHEMA })
  exceptionDetails!: Record<string, unknown>;
}
