import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';

/** A batch of operations on a document family's data objects and the state of applying it. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'linked_delta' })
export class LinkedDelta extends BaseEntity {
  @Attr.reference(() => DocumentFamily, { required: true, writable: 'create', inverse: 'linkedDeltas', onDelete: 'cascade' })
  documentFamilyId!: string;

  @Attr.json({ default: [], schema: { type: 'array', items: { type: 'object', additionalProperties: true } } })
  operations!: Record<string, unknown>[];

  @Attr.string({
    default: 'PENDING',
    pattern: /^(PENDING|APPLIED|APPLIED_PARTIAL|FAILED)$/,
    description: 'One of PENDING, APPLIED, APPLIED_PARTIAL, FAILED (default PENDING)',
  })
  state!: string;

  @Attr.string({ nullable: true })
  errorMessage?: string | null;
}
