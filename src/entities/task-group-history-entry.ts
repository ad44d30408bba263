import { Entity, Index } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { AuditAction } from './enums';
import { Project } from './project';

/**
 * One change of a task group (read-only over the API), written by the server in the change's
 * transaction (modules/tasks/task-groups.ts). `taskGroupId` is a plain id, not a reference, so the entry
 * outlives the group; the project decides who may read it.
 */
@ObjectType({
  simpleResolvers: true,
  description: 'One change of a task group, written by the server in the same transaction as the change (read-only); it outlives the group',
})
@Entity({ tableName: 'task_group_history_entry' })
// One group's history, newest first, read on an index of its order (the reference indexes of list-indexes.ts, for a plain id).
@Index({ properties: ['taskGroupId', 'createdOn', 'id'] })
export class TaskGroupHistoryEntry extends BaseEntity {
  @Attr.uuid({ description: 'The task group changed (it may since have been deleted)' })
  taskGroupId!: string;

  @Attr.reference(() => Project, {
    description: 'The project of the task group (its id)',
    required: true,
    writable: 'create',
    inverse: 'taskGroupHistory',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.enum(AuditAction, { description: 'What the change did to the task group', required: true })
  action!: string;

  @Attr.json({
    default: {},
    description: 'What changed: each written field with its value before and after ({from: null, to} on create; {deleted: {from: false, to: true}} on delete)',
    schema: { type: 'object', additionalProperties: { type: 'object', properties: { from: {}, to: {} }, required: ['from', 'to'] } },
  })
  changes!: unknown;

  @Attr.string({ nullable: true, description: "The caller's user id; null for the server itself" })
  actorId?: string | null;

  @Attr.dateTime({ default: () => new Date(), description: 'When the change happened' })
  occurredAt!: Date;
}
