import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { KnowledgeSet } from './knowledge-set';

/** One entry of a knowledge set; its organization is the set's. */
@ObjectType({ simpleResolvers: true, description: "One entry of a knowledge set; its organization is the set's" })
@Entity({ tableName: 'knowledge_item' })
export class KnowledgeItem extends BaseEntity {
  @Attr.reference(() => KnowledgeSet, {
    description: 'The knowledge set the knowledge item belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'items',
    onDelete: 'cascade',
  })
  knowledgeSetId!: string;

  @Attr.string({ description: 'Title of the item', maxLength: 1000, searchable: true })
  title!: string;

  @Attr.string({ description: 'Free-text description of the knowledge item', searchable: true })
  description!: string;

  @Attr.string({ description: 'Reference of the kind of item' })
  itemTypeRef!: string;

  @Attr.json({ description: 'Further values of the item, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;
}
