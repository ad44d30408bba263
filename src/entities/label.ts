import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A tag applied to documents and tasks; its name is unique within the organization. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'label' })
@Unique({ properties: ['organizationId', 'name'] })
export class Label extends BaseEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ searchable: true })
  label!: string;

  @Attr.string()
  color!: string;

  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'labels', onDelete: 'cascade' })
  organizationId!: string;
}
