import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** Groups users for collaborative access control within an organization's projects. */
@ObjectType({ simpleResolvers: true, description: "Groups users for collaborative access control within an organization's projects" })
@Entity({ tableName: 'team' })
@Unique({ properties: ['organizationId', 'slug'] })
export class Team extends BaseEntity {
  @Attr.string({ description: 'Name of the team', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ description: 'Free-text description of the team', searchable: true })
  description!: string;

  @Attr.slug({ searchable: false, description: 'Derived from the name when omitted; unique within the organization' })
  slug!: string;

  @Attr.reference(() => Organization, {
    description: 'The organization the team belongs to (its id); set on create, an update leaves it unchanged',
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'teams',
    embedRequired: true,
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.string({
    description: 'The searchable fields, lowercased and joined by spaces: what the free-text query matches; kept by the server',
    writable: 'never',
  })
  searchText!: string;
}
