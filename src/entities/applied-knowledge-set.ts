import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';
import { KnowledgeSet } from './knowledge-set';
import { KnowledgeSetSnapshot } from './knowledge-set-snapshot';

/** A knowledge set (one snapshot of it) applied to a document family (spec "AppliedKnowledgeSet"); its organization is the family's. */
@ObjectType({ simpleResolvers: true, description: "A knowledge set (one snapshot of it) applied to a document family; its organization is the family's" })
@Entity({ tableName: 'applied_knowledge_set' })
export class AppliedKnowledgeSet extends BaseEntity {
  @Attr.reference(() => DocumentFamily, {
    description: 'The document family the knowledge set is applied to (its id); set on create, an update leaves it unchanged',
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'appliedKnowledgeSets',
    embedInverse: 'appliedKnowledgeSets',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.reference(() => KnowledgeSet, {
    description: 'The knowledge set applied (its id), or null',
    nullable: true,
    inverse: 'appliedKnowledgeSets',
    onDelete: 'set null',
  })
  knowledgeSetId?: string | null;

  @Attr.reference(() => KnowledgeSetSnapshot, {
    description: 'The snapshot of the knowledge set applied (its id), or null',
    embed: true,
    nullable: true,
    inverse: 'appliedKnowledgeSets',
    onDelete: 'set null',
  })
  snapshotId?: string | null;

  @Attr.dateTime({ description: 'When it was applied', nullable: true })
  appliedAt?: Date | null;

  @Attr.dateTime({ description: 'When a later application superseded it; null while current', nullable: true })
  supersededAt?: Date | null;

  @Attr.string({ description: 'Who applied it' })
  appliedBy!: string;

  @Attr.string({ description: 'Id of the content object it was applied from, or null', nullable: true })
  sourceContentObjectId?: string | null;

  @Attr.string({ description: 'Id of the application that superseded this one, or null', nullable: true })
  supersededById?: string | null;

  @Attr.string({ description: 'State of the application (free text)' })
  status!: string;

  @Attr.string({ description: 'What caused the application (free text)' })
  trigger!: string;

  @Attr.number({ description: 'Confidence score of the application, or null', nullable: true })
  confidence?: number | null;
}
