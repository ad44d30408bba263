import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { Assistant } from './assistant';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';
import { ExecutionStatus } from './enums';
import { Organization } from './organization';

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

/** The spec's exceptionDetails fields, of an execution and of a step execution. */
export const EXCEPTION_DETAILS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    advice: { type: 'string' },
    cause: { type: 'string' },
    description: { type: 'string' },
    documentationUrl: { type: 'string' },
    errorMessage: { type: 'string' },
    errorType: { type: 'string' },
    executedVersion: { type: 'string' },
    help: { type: 'string' },
    message: { type: 'string' },
    optionErrors: anyObject,
    stackTrace: { type: 'string' },
    statusCode: { type: 'integer' },
    validationErrors: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: { description: { type: 'string' }, message: { type: 'string' }, option: { type: 'string' } },
      },
    },
  },
};

/** A run of an assistant's pipeline (or of another execution's part) on an organization's content. */
@ObjectType({ simpleResolvers: true, description: "A run of an assistant's pipeline (or of another execution's part) on an organization's content" })
@Entity({ tableName: 'execution' })
// One execution per idempotency key in an organization, whatever the race between two creates.
@Unique({
  name: 'execution_organization_id_idempotency_key_unique',
  expression:
    'create unique index "execution_organization_id_idempotency_key_unique" on "execution" ("organization_id", "idempotency_key") where "idempotency_key" is not null',
})
export class Execution extends BaseEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the execution belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'executions',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.enum(ExecutionStatus, { default: 'PENDING', writable: 'create', description: 'Set on create (default PENDING); ignored in update bodies' })
  status!: string;

  @Attr.reference(() => Assistant, {
    description: 'The assistant that runs the execution (its id), or null',
    nullable: true,
    inverse: 'executions',
    onDelete: 'set null',
  })
  assistantId?: string | null;

  @Attr.reference(() => DocumentFamily, {
    description: 'The document family the execution processes (its id), or null',
    nullable: true,
    inverse: 'executions',
    onDelete: 'set null',
  })
  documentFamilyId?: string | null;

  @Attr.reference(() => Execution, {
    description: 'The execution that started this one (its id), or null',
    nullable: true,
    inverse: 'childExecutions',
    onDelete: 'set null',
  })
  parentExecutionId?: string | null;

  @Attr.string({ description: 'Id of the session the execution belongs to, or null', nullable: true })
  sessionId?: string | null;

  @Attr.string({ description: 'Path of the document family processed, or null', nullable: true })
  documentFamilyPath?: string | null;

  @Attr.string({ description: 'Free-text description of the execution', searchable: true })
  description!: string;

  @Attr.string({ description: 'Key that identifies a repeated request for the same execution, or null', nullable: true })
  idempotencyKey?: string | null;

  @Attr.int({ description: 'Priority of the execution' })
  priority!: number;

  @Attr.int({ description: 'Time the execution spent processing' })
  processingTime!: number;

  @Attr.dateTime({ description: 'When the execution started, or null', nullable: true })
  startDate?: Date | null;

  @Attr.dateTime({ description: 'When the execution ended, or null', nullable: true })
  endDate?: Date | null;

  @Attr.json({ description: 'Context of the execution, as free JSON', default: {}, schema: anyObject })
  context!: Record<string, unknown>;

  @Attr.json({
    description: 'What went wrong, when something did: message, error type, cause, advice, validation errors ...',
    default: {},
    schema: EXCEPTION_DETAILS_SCHEMA,
  })
  exceptionDetails!: Record<string, unknown>;

  @Attr.json({
    description: 'Progress of the execution: detail, message, progress, progressMax and stepStatus',
    default: {},
    schema: {
      type: 'object',
      additionalProperties: true,
      properties: {
        detail: { type: 'string' },
        message: { type: 'string' },
        progress: { type: 'integer' },
        progressMax: { type: 'integer' },
        stepStatus: anyObject,
      },
    },
  })
  statusDetails!: Record<string, unknown>;

  @Attr.json({
    description: 'What the execution runs on (instances)',
    default: { instances: [] },
    schema: { type: 'object', additionalProperties: true, properties: { instances: { type: 'array', items: anyObject } } },
  })
  targets!: Record<string, unknown>;

  @Attr.json({
    description: 'The pipeline the execution runs: id, ref, valid, exceptions and steps',
    default: {},
    schema: {
      type: 'object',
      additionalProperties: true,
      properties: {
        id: { type: 'string' },
        ref: { type: 'string' },
        valid: { type: 'boolean' },
        exceptions: { type: 'array', items: anyObject },
        steps: { type: 'array', items: anyObject },
      },
    },
  })
  pipeline!: Record<string, unknown>;
}
