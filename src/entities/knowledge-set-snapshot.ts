import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { KnowledgeSet } from './knowledge-set';

/** A versioned copy of a knowledge set's content (the specification's "snapshot fields"); its organization is the set's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'knowledge_set_snapshot' })
export class KnowledgeSetSnapshot extends BaseEntity {
  @Attr.reference(() => KnowledgeSet, { required: true, writable: 'create', inverse: 'snapshots', onDelete: 'cascade' })
  knowledgeSetId!: string;

  @Attr.string()
  changeReason!: string;

  @Attr.string()
  contentHash!: string;

  @Attr.string()
  createdBy!: string;

  @Attr.int()
  version!: number;

  @Attr.dateTime({ nullable: true })
  createdAt?: Date | null;

  @Attr.dateTime({ nullable: true })
  validatedAt?: Date | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  data!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  buildContext!: Record<string, unknown>;

  @Attr.number({ nullable: true })
  reproductionScore?: number | null;
}
