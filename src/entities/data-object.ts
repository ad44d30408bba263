import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';

/** A node of the data read out of a document family, in a tree (`parentId`); its organization is the family's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'data_object' })
export class DataObject extends BaseEntity {
  @Attr.reference(() => DocumentFamily, { required: true, writable: 'create', inverse: 'dataObjects', onDelete: 'cascade' })
  documentFamilyId!: string;

  @Attr.reference(() => DataObject, { nullable: true, inverse: 'children', onDelete: 'cascade' })
  parentId?: string | null;

  @Attr.string({ searchable: true })
  path!: string;

  @Attr.string({ searchable: true })
  taxonomyRef!: string;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  attributes!: Record<string, unknown>;
}
