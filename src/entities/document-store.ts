import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { ContentStoreEntity } from './content-store';
import { Organization } from './organization';

/** A store of an organization's document families. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'document_store' })
@Unique({ properties: ['organizationId', 'slug'] })
export class DocumentStore extends ContentStoreEntity {
  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'documentStores', onDelete: 'cascade' })
  organizationId!: string;
}
