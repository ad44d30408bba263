import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { Task } from './task';
import { Workspace } from './workspace';

/** A conversation of a project, optionally about a task or a workspace; it holds messages. */
@ObjectType({ simpleResolvers: true, description: 'A conversation of a project, optionally about a task or a workspace; it holds messages' })
@Entity({ tableName: 'channel' })
export class Channel extends BaseEntity {
  @Attr.string({ description: 'Name of the channel', maxLength: 255, searchable: true })
  name!: string;

  @Attr.reference(() => Project, {
    description: 'The project the channel belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'channels',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.reference(() => Task, { description: 'The task the channel is about (its id), or null', nullable: true, inverse: 'channels', onDelete: 'set null' })
  taskId?: string | null;

  @Attr.reference(() => Workspace, {
    description: 'The workspace the channel is about (its id), or null',
    nullable: true,
    inverse: 'channels',
    onDelete: 'set null',
  })
  workspaceId?: string | null;

  /** Who sees the channel is declared in the registry (`privacy`). */
  @Attr.reference(() => PlatformUser, {
    nullable: true,
    writable: 'never',
    onDelete: 'set null',
    description: 'The user who created the channel (server-set); they always see it',
  })
  ownerId?: string | null;

  @Attr.boolean({ description: 'Whether the channel is marked private' })
  isPrivate!: boolean;
}
