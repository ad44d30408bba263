import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A status a project can be in, defined per organization. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'project_status' })
export class ProjectStatus extends BaseEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  status!: string;

  @Attr.string()
  color!: string;

  @Attr.string()
  icon!: string;

  @Attr.boolean()
  production!: boolean;

  @Attr.reference(() => Organization, { embed: true, required: true, writable: 'create', inverse: 'projectStatuses', embedRequired: true, onDelete: 'cascade' })
  organizationId!: string;
}
