import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentActorType, TaskActivityType } from './enums';
import { Task } from './task';

/** Something that happened to a task (created, status changed, a comment ...); never updated. Its project is the task's. */
@ObjectType({
  simpleResolvers: true,
  description: "Something that happened to a task (created, status changed, a comment ...); never updated. Its project is the task's",
})
@Entity({ tableName: 'task_activity' })
export class TaskActivity extends BaseEntity {
  @Attr.reference(() => Task, {
    description: 'The task the task activity belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'activities',
    onDelete: 'cascade',
  })
  taskId!: string;

  @Attr.enum(TaskActivityType, { default: 'COMMENT', description: 'Clients write COMMENT (the default); the server writes the others' })
  type!: string;

  @Attr.string({ description: 'Text of the activity (a comment, or what happened)', searchable: true })
  text!: string;

  @Attr.string({ nullable: true, writable: 'never', description: 'The user who did it (the caller)' })
  actorId?: string | null;

  @Attr.enum(DocumentActorType, { nullable: true, writable: 'never', description: 'USER (bearer, Basic), API_KEY or SYSTEM' })
  actorType?: string | null;

  @Attr.json({ description: 'Details of what happened, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  details!: Record<string, unknown>;
}
