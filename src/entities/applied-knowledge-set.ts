import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';
import { KnowledgeSet } from './knowledge-set';
import { KnowledgeSetSnapshot } from './knowledge-set-snapshot';

/** A knowledge set (one snapshot of it) applied to a document family (spec "AppliedKnowledgeSet"); its organization is the family's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'applied_knowledge_set' })
export class AppliedKnowledgeSet extends BaseEntity {
  @Attr.reference(() => DocumentFamily, {
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'appliedKnowledgeSets',
    embedInverse: 'appliedKnowledgeSets',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.reference(() => KnowledgeSet, { nullable: true, inverse: 'appliedKnowledgeSets', onDelete: 'set null' })
  knowledgeSetId?: string | null;

  @Attr.reference(() => KnowledgeSetSnapshot, { embed: true, nullable: true, inverse: 'appliedKnowledgeSets', onDelete: 'set null' })
  snapshotId?: string | null;

  @Attr.dateTime({ nullable: true })
  appliedAt?: Date | null;

  @Attr.dateTime({ nullable: true })
  supersededAt?: Date | null;

  @Attr.string()
  appliedBy!: string;

  @Attr.string({ nullable: true })
  sourceContentObjectId?: string | null;

  @Attr.string({ nullable: true })
  supersededById?: string | null;

  @Attr.string()
  status!: string;

  @Attr.string()
  trigger!: string;

  @Attr.number({ nullable: true })
  confidence?: number | null;
}
