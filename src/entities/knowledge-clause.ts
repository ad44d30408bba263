import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { KnowledgeItem } from './knowledge-item';

/** A numbered passage of a knowledge item; its organization is the item's set's. */
@ObjectType({ simpleResolvers: true, description: "A numbered passage of a knowledge item; its organization is the item's set's" })
@Entity({ tableName: 'knowledge_clause' })
export class KnowledgeClause extends BaseEntity {
  @Attr.reference(() => KnowledgeItem, {
    description: 'The knowledge item the knowledge clause belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'clauses',
    onDelete: 'cascade',
  })
  knowledgeItemId!: string;

  @Attr.string({ description: 'Text of the clause', searchable: true })
  text!: string;

  @Attr.int({ description: 'Number of the clause within its item' })
  sequence!: number;

  @Attr.json({ description: 'Further values of the clause, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;
}
