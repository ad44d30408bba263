import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { DocumentFamily } from './document-family';
import { Task } from './task';

/** Links a task to a document family, each family at most once per task; its project is the task's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task_document_family' })
@Unique({ properties: ['taskId', 'documentFamilyId'] })
export class TaskDocumentFamily extends BaseEntity {
  @Attr.reference(() => Task, { required: true, writable: 'create', inverse: 'taskDocumentFamilies', onDelete: 'cascade' })
  taskId!: string;

  // A family's `tasks` are its assignments: which task, in which role.
  @Attr.reference(() => DocumentFamily, {
    required: true,
    writable: 'create',
    inverse: 'taskDocumentFamilies',
    embedInverse: 'tasks',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.string()
  role!: string;
}
