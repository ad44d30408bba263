import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A tag applied to documents and tasks; its name is unique within the organization. */
@ObjectType({ simpleResolvers: true, description: 'A tag applied to documents and tasks; its name is unique within the organization' })
@Entity({ tableName: 'label' })
@Unique({ properties: ['organizationId', 'name'] })
export class Label extends BaseEntity {
  @Attr.string({ description: 'Name of the label, unique within the organization', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ description: 'Text shown for the label', searchable: true })
  label!: string;

  @Attr.string({ description: 'Display color' })
  color!: string;

  @Attr.reference(() => Organization, {
    description: 'The organization the label belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'labels',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
