import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { TaskStatusType } from './enums';
import { Organization } from './organization';

/** A status a task can be in; tasks refer to it by slug within their organization. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task_status' })
export class TaskStatus extends SoftDeletableEntity {
  @Attr.slug({ description: 'Derived from the label when omitted' })
  slug!: string;

  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  label!: string;

  @Attr.string()
  color!: string;

  @Attr.string()
  icon!: string;

  @Attr.enum(TaskStatusType, { default: 'OPEN' })
  statusType!: TaskStatusType;

  @Attr.int()
  sequence!: number;

  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'taskStatuses', onDelete: 'cascade' })
  organizationId!: string;
}
