import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { KnowledgeSet } from './knowledge-set';

/** A versioned copy of a knowledge set's content (the specification's "snapshot fields"); its organization is the set's. */
@ObjectType({ simpleResolvers: true, description: "A versioned copy of a knowledge set's content; its organization is the set's" })
@Entity({ tableName: 'knowledge_set_snapshot' })
export class KnowledgeSetSnapshot extends BaseEntity {
  @Attr.reference(() => KnowledgeSet, {
    description: 'The knowledge set the knowledge set snapshot belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'snapshots',
    onDelete: 'cascade',
  })
  knowledgeSetId!: string;

  @Attr.string({ description: 'Why the snapshot was taken' })
  changeReason!: string;

  @Attr.string({ description: 'Hash of the snapshot content' })
  contentHash!: string;

  @Attr.string({ description: 'Who took the snapshot' })
  createdBy!: string;

  @Attr.int({ description: 'Version number of the snapshot within its knowledge set' })
  version!: number;

  @Attr.dateTime({ description: 'When the snapshot was taken, or null', nullable: true })
  createdAt?: Date | null;

  @Attr.dateTime({ description: 'When the snapshot was validated, or null', nullable: true })
  validatedAt?: Date | null;

  @Attr.json({ description: 'Content of the knowledge set at the snapshot, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  data!: Record<string, unknown>;

  @Attr.json({ description: 'How the snapshot was built, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  buildContext!: Record<string, unknown>;

  @Attr.number({ description: 'Reproduction score of the snapshot, or null', nullable: true })
  reproductionScore?: number | null;
}
