import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';

/** A batch of operations on a document family's data objects and the state of applying it. */
@ObjectType({ simpleResolvers: true, description: "A batch of operations on a document family's data objects and the state of applying it" })
@Entity({ tableName: 'linked_delta' })
export class LinkedDelta extends BaseEntity {
  @Attr.reference(() => DocumentFamily, {
    description: 'The document family the linked delta belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'linkedDeltas',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  /** Applied when the delta is created; a record of what was asked afterwards, so never changed. */
  @Attr.json({
    default: [],
    writable: 'create',
    description:
      'Applied in order to the family\'s data objects on create: {op: "create", id?, parentId?, path, taxonomyRef?, attributes}, ' +
      '{op: "update", id, attributes}, {op: "delete", id}',
    schema: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        required: ['op'],
        properties: {
          op: { type: 'string', enum: ['create', 'update', 'delete'] },
          id: { type: 'string', format: 'uuid' },
          parentId: { type: 'string', format: 'uuid', nullable: true },
          path: { type: 'string' },
          taxonomyRef: { type: 'string' },
          attributes: { type: 'object', additionalProperties: true },
        },
      },
    },
  })
  operations!: Record<string, unknown>[];

  /** The outcome of applying the operations: the server's, never a body's. */
  @Attr.string({
    default: 'PENDING',
    writable: 'never',
    pattern: /^(PENDING|APPLIED|APPLIED_PARTIAL|FAILED)$/,
    description:
      'APPLIED (every operation applied), APPLIED_PARTIAL (some dropped), FAILED (none applied); PENDING only on rows stored before deltas were applied',
  })
  state!: string;

  @Attr.string({
    nullable: true,
    writable: 'never',
    description: 'Each dropped operation by index and cause, e.g. "operation 2 (update): data object <id> not found"; null when none was dropped',
  })
  errorMessage?: string | null;
}
