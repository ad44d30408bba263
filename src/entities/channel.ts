import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { Task } from './task';
import { Workspace } from './workspace';

/** A conversation of a project, optionally about a task or a workspace; it holds messages. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'channel' })
export class Channel extends BaseEntity {
  @Attr.string({ maxLength: 255, searchable: true })
  name!: string;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'channels', onDelete: 'cascade' })
  projectId!: string;

  @Attr.reference(() => Task, { nullable: true, inverse: 'channels', onDelete: 'set null' })
  taskId?: string | null;

  @Attr.reference(() => Workspace, { nullable: true, inverse: 'channels', onDelete: 'set null' })
  workspaceId?: string | null;

  /** Who sees the channel is declared in the registry (`privacy`). */
  @Attr.reference(() => PlatformUser, {
    nullable: true,
    writable: 'never',
    onDelete: 'set null',
    description: 'The user who created the channel (server-set); they always see it',
  })
  ownerId?: string | null;

  @Attr.boolean()
  isPrivate!: boolean;
}
