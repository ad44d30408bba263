import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';

/** A node of the data read out of a document family, in a tree (`parentId`); its organization is the family's. */
@ObjectType({ simpleResolvers: true, description: "A node of the data read out of a document family, in a tree (parentId); its organization is the family's" })
@Entity({ tableName: 'data_object' })
export class DataObject extends BaseEntity {
  @Attr.reference(() => DocumentFamily, {
    description: 'The document family the data object belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'dataObjects',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.reference(() => DataObject, {
    description: 'The parent data object in the tree (its id), or null for a root',
    nullable: true,
    inverse: 'children',
    onDelete: 'cascade',
  })
  parentId?: string | null;

  @Attr.string({ description: 'Path of the data object within the data read out of its document family', searchable: true })
  path!: string;

  @Attr.string({ description: 'Reference of the taxonomy the data object follows', searchable: true })
  taxonomyRef!: string;

  @Attr.json({ description: 'Values of the data object, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  attributes!: Record<string, unknown>;
}
