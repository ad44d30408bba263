import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Project } from './project';

/** A working area inside a project; `storage` is whatever JSON its clients keep there. */
@ObjectType({ simpleResolvers: true, description: 'A working area inside a project; storage is whatever JSON its clients keep there' })
@Entity({ tableName: 'workspace' })
export class Workspace extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the workspace', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ description: 'Free-text description of the workspace', searchable: true })
  description!: string;

  @Attr.reference(() => Project, {
    description: 'The project the workspace belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'workspaces',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.json({ nullable: true, description: 'Free-form JSON value (object, array or scalar)' })
  storage?: unknown;
}
