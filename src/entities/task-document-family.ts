import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';
import { Task } from './task';

/** Links a task to a document family, each family at most once per task; its project is the task's. */
@ObjectType({ simpleResolvers: true, description: "Links a task to a document family, each family at most once per task; its project is the task's" })
@Entity({ tableName: 'task_document_family' })
@Unique({ properties: ['taskId', 'documentFamilyId'] })
export class TaskDocumentFamily extends BaseEntity {
  @Attr.reference(() => Task, {
    description: 'The task the task document family belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'taskDocumentFamilies',
    onDelete: 'cascade',
  })
  taskId!: string;

  // A family's `tasks` are its assignments: which task, in which role.
  @Attr.reference(() => DocumentFamily, {
    description: 'The document family linked to the task (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'taskDocumentFamilies',
    embedInverse: 'tasks',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.string({ description: 'Role of the document family for the task (free text)' })
  role!: string;
}
