import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { KnowledgeSet } from './knowledge-set';

/** One entry of a knowledge set; its organization is the set's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'knowledge_item' })
export class KnowledgeItem extends BaseEntity {
  @Attr.reference(() => KnowledgeSet, { required: true, writable: 'create', inverse: 'items', onDelete: 'cascade' })
  knowledgeSetId!: string;

  @Attr.string({ maxLength: 1000, searchable: true })
  title!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.string()
  itemTypeRef!: string;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;
}
