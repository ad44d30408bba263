import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Project } from './project';

/** A status a document of a project can be in. */
@ObjectType({ simpleResolvers: true, description: 'A status a document of a project can be in' })
@Entity({ tableName: 'document_status' })
@Unique({ properties: ['projectId', 'slug'] })
export class DocumentStatus extends BaseEntity {
  @Attr.string({ description: 'Name of the status, 1-255 characters', required: true, minLength: 1, maxLength: 255, searchable: true })
  status!: string;

  @Attr.slug({ description: 'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...); derived from the status when omitted' })
  slug!: string;

  @Attr.string({ description: 'Display color' })
  color!: string;

  @Attr.string({ description: 'Display icon' })
  icon!: string;

  @Attr.string({ description: 'The kind of state the status stands for (free text, for example UNRESOLVED)' })
  statusType!: string;

  @Attr.reference(() => Project, {
    description: 'The project the document status belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'documentStatuses',
    embed: true,
    embedInverse: 'documentStatuses',
    onDelete: 'cascade',
  })
  projectId!: string;
}
