import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { Team } from './team';

/** A group of tasks of a project, with its own status, priority, team and assignee. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task_group' })
export class TaskGroup extends SoftDeletableEntity {
  @Attr.string({ maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'taskGroups', onDelete: 'cascade' })
  projectId!: string;

  @Attr.string({ nullable: true, maxLength: 100, description: 'Slug of a task status of the organization' })
  statusSlug?: string | null;

  @Attr.int()
  priority!: number;

  @Attr.reference(() => Team, { nullable: true, onDelete: 'set null' })
  teamId?: string | null;

  @Attr.reference(() => PlatformUser, { nullable: true, onDelete: 'set null' })
  assigneeId?: string | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  metadata!: Record<string, unknown>;
}
