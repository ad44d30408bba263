import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { Team } from './team';

/** A group of tasks of a project, with its own status, priority, team and assignee. */
@ObjectType({ simpleResolvers: true, description: 'A group of tasks of a project, with its own status, priority, team and assignee' })
@Entity({ tableName: 'task_group' })
export class TaskGroup extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the task group', maxLength: 255, searchable: true })
  name!: string;

  @Attr.string({ description: 'Free-text description of the task group', searchable: true })
  description!: string;

  @Attr.reference(() => Project, {
    description: 'The project the task group belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'taskGroups',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.string({ nullable: true, maxLength: 100, description: 'Slug of a task status of the organization' })
  statusSlug?: string | null;

  @Attr.int({ description: 'Priority of the group' })
  priority!: number;

  @Attr.reference(() => Team, { description: 'The team the group is given to (its id), or null', nullable: true, onDelete: 'set null' })
  teamId?: string | null;

  @Attr.reference(() => PlatformUser, { description: 'The user the group is assigned to (its id), or null', nullable: true, onDelete: 'set null' })
  assigneeId?: string | null;

  @Attr.json({ description: 'Further values of the group, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  metadata!: Record<string, unknown>;
}
