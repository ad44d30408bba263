import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentActorType, TaskActivityType } from './enums';
import { Task } from './task';

/** Something that happened to a task (created, status changed, a comment ...); never updated. Its project is the task's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task_activity' })
export class TaskActivity extends BaseEntity {
  @Attr.reference(() => Task, { required: true, writable: 'create', inverse: 'activities', onDelete: 'cascade' })
  taskId!: string;

  @Attr.enum(TaskActivityType, { default: 'COMMENT', description: 'Clients write COMMENT (the default); the server writes the others' })
  type!: string;

  @Attr.string({ searchable: true })
  text!: string;

  @Attr.string({ nullable: true, writable: 'never', description: 'The user who did it (the caller)' })
  actorId?: string | null;

  @Attr.enum(DocumentActorType, { nullable: true, writable: 'never', description: 'USER (bearer, Basic), API_KEY or SYSTEM' })
  actorType?: string | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  details!: Record<string, unknown>;
}
