import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { TaskGroup } from './task-group';

/** A unit of work in a project; its status is a task-status slug of the project's organization. */
@ObjectType({ simpleResolvers: true, description: "A unit of work in a project; its status is a task-status slug of the project's organization" })
@Entity({ tableName: 'task' })
export class Task extends SoftDeletableEntity {
  @Attr.string({ description: 'Title of the task, at most 1000 characters', maxLength: 1000, searchable: true })
  title!: string;

  @Attr.string({ description: 'Free-text description of the task', searchable: true })
  description!: string;

  @Attr.reference(() => Project, {
    description: 'The project the task belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'tasks',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.string({ description: "Slug of the task's status among the task statuses of the project's organization, or null", nullable: true, maxLength: 100 })
  statusSlug?: string | null;

  @Attr.reference(() => PlatformUser, { description: 'The user the task is assigned to (its id), or null', nullable: true, onDelete: 'set null' })
  assigneeId?: string | null;

  @Attr.int({ description: 'Priority of the task' })
  priority!: number;

  @Attr.dateTime({ description: 'When the task is due, or null', nullable: true })
  dueDate?: Date | null;

  @Attr.dateTime({ description: 'When the task was completed, or null', nullable: true })
  completedDate?: Date | null;

  @Attr.reference(() => TaskGroup, {
    description: 'The task group the task belongs to (its id), or null; the group must be of the same project',
    nullable: true,
    onDelete: 'set null',
    inverse: 'tasks',
    inverseFilter: 'memberTask',
    within: 'projectId',
  })
  taskGroupId?: string | null;

  @Attr.reference(() => Task, {
    description: 'The task this one is a sub-task of (its id), or null',
    nullable: true,
    inverse: 'subTasks',
    onDelete: 'set null',
  })
  parentTaskId?: string | null;

  @Attr.uuid({ description: 'Id of the task template the task was started from, or null', nullable: true })
  templateId?: string | null;

  @Attr.boolean({ writable: 'never', description: 'Changed only by the lock and unlock operations' })
  locked!: boolean;

  @Attr.dateTime({ description: 'When the task was locked; set by the lock operation, null when unlocked', nullable: true, writable: 'never' })
  lockedAt?: Date | null;

  @Attr.string({ description: 'Id of the user who locked the task; set by the lock operation, null when unlocked', nullable: true, writable: 'never' })
  lockedById?: string | null;

  @Attr.string({ description: 'Id of the activity that created the task, or null', nullable: true })
  createdByActivityId?: string | null;

  @Attr.json({ description: 'Further values of the task, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;

  @Attr.stringArray({ description: 'Ids of the document families the task is about', default: [] })
  documentFamilyIds!: string[];
}
