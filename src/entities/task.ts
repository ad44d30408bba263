import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { TaskGroup } from './task-group';

/** A unit of work in a project; its status is a task-status slug of the project's organization. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task' })
export class Task extends SoftDeletableEntity {
  @Attr.string({ maxLength: 1000, searchable: true })
  title!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'tasks', onDelete: 'cascade' })
  projectId!: string;

  @Attr.string({ nullable: true, maxLength: 100 })
  statusSlug?: string | null;

  @Attr.reference(() => PlatformUser, { nullable: true, onDelete: 'set null' })
  assigneeId?: string | null;

  @Attr.int()
  priority!: number;

  @Attr.dateTime({ nullable: true })
  dueDate?: Date | null;

  @Attr.dateTime({ nullable: true })
  completedDate?: Date | null;

  @Attr.reference(() => TaskGroup, { nullable: true, onDelete: 'set null', inverse: 'tasks', inverseFilter: 'memberTask', within: 'projectId' })
  taskGroupId?: string | null;

  @Attr.reference(() => Task, { nullable: true, inverse: 'subTasks', onDelete: 'set null' })
  parentTaskId?: string | null;

  @Attr.uuid({ nullable: true })
  templateId?: string | null;

  @Attr.boolean({ writable: 'never', description: 'Changed only by the lock and unlock operations' })
  locked!: boolean;

  @Attr.dateTime({ nullable: true, writable: 'never' })
  lockedAt?: Date | null;

  @Attr.string({ nullable: true, writable: 'never' })
  lockedById?: string | null;

  @Attr.string({ nullable: true })
  createdByActivityId?: string | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;

  @Attr.stringArray({ default: [] })
  documentFamilyIds!: string[];
}
