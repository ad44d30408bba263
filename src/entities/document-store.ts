import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { ContentStoreEntity } from './content-store';
import { Organization } from './organization';

/** A store of an organization's document families. */
@ObjectType({ simpleResolvers: true, description: "A store of an organization's document families" })
@Entity({ tableName: 'document_store' })
@Unique({ properties: ['organizationId', 'slug'] })
export class DocumentStore extends ContentStoreEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the document store belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'documentStores',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
