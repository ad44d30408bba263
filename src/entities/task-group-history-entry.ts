import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { AuditAction } from './enums';
import { Project } from './project';

/**
 * One change of a task group (read-only over the API). `taskGroupId` is a plain id, not a reference,
 * so the entry outlives the group; the project decides who may read it.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task_group_history_entry' })
export class TaskGroupHistoryEntry extends BaseEntity {
  @Attr.uuid({ index: true, description: 'The task group changed (it may since have been deleted)' })
  taskGroupId!: string;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'taskGroupHistory', onDelete: 'cascade' })
  projectId!: string;

  @Attr.enum(AuditAction, { required: true })
  action!: string;

  @Attr.json({ default: {}, description: 'What changed, as recorded' })
  changes!: unknown;

  @Attr.string({ nullable: true })
  actorId?: string | null;

  @Attr.dateTime({ default: () => new Date(), description: 'When the change happened' })
  occurredAt!: Date;
}
