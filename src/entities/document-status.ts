import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Project } from './project';

/** A status a document of a project can be in. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'document_status' })
@Unique({ properties: ['projectId', 'slug'] })
export class DocumentStatus extends BaseEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  status!: string;

  @Attr.slug({ description: 'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...); derived from the status when omitted' })
  slug!: string;

  @Attr.string()
  color!: string;

  @Attr.string()
  icon!: string;

  @Attr.string({ description: 'For example UNRESOLVED' })
  statusType!: string;

  @Attr.reference(() => Project, {
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'documentStatuses',
    embedInverse: 'documentStatuses',
    onDelete: 'cascade',
  })
  projectId!: string;
}
