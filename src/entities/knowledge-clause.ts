import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { KnowledgeItem } from './knowledge-item';

/** A numbered passage of a knowledge item; its organization is the item's set's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'knowledge_clause' })
export class KnowledgeClause extends BaseEntity {
  @Attr.reference(() => KnowledgeItem, { required: true, writable: 'create', inverse: 'clauses', onDelete: 'cascade' })
  knowledgeItemId!: string;

  @Attr.string({ searchable: true })
  text!: string;

  @Attr.int()
  sequence!: number;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;
}
