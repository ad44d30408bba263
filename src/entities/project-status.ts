import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A status a project can be in, defined per organization. */
@ObjectType({ simpleResolvers: true, description: 'A status a project can be in, defined per organization' })
@Entity({ tableName: 'project_status' })
export class ProjectStatus extends BaseEntity {
  @Attr.string({ description: 'Name of the status, 1-255 characters', required: true, minLength: 1, maxLength: 255, searchable: true })
  status!: string;

  @Attr.string({ description: 'Display color' })
  color!: string;

  @Attr.string({ description: 'Display icon' })
  icon!: string;

  @Attr.boolean({ description: 'Whether projects in this status are in production' })
  production!: boolean;

  @Attr.reference(() => Organization, {
    description: 'The organization the project status belongs to (its id); set on create, an update leaves it unchanged',
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'projectStatuses',
    embedRequired: true,
    onDelete: 'cascade',
  })
  organizationId!: string;
}
