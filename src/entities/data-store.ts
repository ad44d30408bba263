import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { ContentStoreEntity } from './content-store';
import { Organization } from './organization';

/** A store of an organization's structured data; the same shape as a document store. */
@ObjectType({ simpleResolvers: true, description: "A store of an organization's structured data; the same shape as a document store" })
@Entity({ tableName: 'data_store' })
@Unique({ properties: ['organizationId', 'slug'] })
export class DataStore extends ContentStoreEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the data store belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'dataStores',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
