import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** Groups users for collaborative access control within an organization's projects. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'team' })
@Unique({ properties: ['organizationId', 'slug'] })
export class Team extends BaseEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.slug({ searchable: false, description: 'Derived from the name when omitted; unique within the organization' })
  slug!: string;

  @Attr.reference(() => Organization, { embed: true, required: true, writable: 'create', inverse: 'teams', embedRequired: true, onDelete: 'cascade' })
  organizationId!: string;

  @Attr.string({ writable: 'never' })
  searchText!: string;
}
