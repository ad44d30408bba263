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
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'execution' })
// One execution per idempotency key in an organization, whatever the race between two creates.
@Unique({
  name: 'execution_organization_id_idempotency_key_unique',
  expression:
    'create unique index "execution_organization_id_idempotency_key_unique" on "execution" ("organization_id", "idempotency_key") where "idempotency_key" is not null',
})
export class Execution extends BaseEntity {
  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'executions', onDelete: 'cascade' })
  organizationId!: string;

  @Attr.enum(ExecutionStatus, { default: 'PENDING', writable: 'create', description: 'Set on create (default PENDING); ignored in update bodies' })
  status!: string;

  @Attr.reference(() => Assistant, { nullable: true, inverse: 'executions', onDelete: 'set null' })
  assistantId?: string | null;

  @Attr.reference(() => DocumentFamily, { nullable: true, inverse: 'executions', onDelete: 'set null' })
  documentFamilyId?: string | null;

  @Attr.reference(() => Execution, { nullable: true, inverse: 'childExecutions', onDelete: 'set null' })
  parentExecutionId?: string | null;

  @Attr.string({ nullable: true })
  sessionId?: string | null;

  @Attr.string({ nullable: true })
  documentFamilyPath?: string | null;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.string({ nullable: true })
  idempotencyKey?: string | null;

  @Attr.int()
  priority!: number;

  @Attr.int()
  processingTime!: number;

  @Attr.dateTime({ nullable: true })
  startDate?: Date | null;

  @Attr.dateTime({ nullable: true })
  endDate?: Date | null;

  @Attr.json({ default: {}, schema: anyObject })
  context!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: EXCEPTION_DETAILS_SCHEMA })
  exceptionDetails!: Record<string, unknown>;

  @Attr.json({
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
    default: { instances: [] },
    schema: { type: 'object', additionalProperties: true, properties: { instances: { type: 'array', items: anyObject } } },
  })
  targets!: Record<string, unknown>;

  @Attr.json({
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
