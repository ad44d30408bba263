import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { TaskStatusType } from './enums';
import { Organization } from './organization';

/** A status a task can be in; tasks refer to it by slug within their organization. */
@ObjectType({ simpleResolvers: true, description: 'A status a task can be in; tasks refer to it by slug within their organization' })
@Entity({ tableName: 'task_status' })
export class TaskStatus extends SoftDeletableEntity {
  @Attr.slug({ description: 'Derived from the label when omitted' })
  slug!: string;

  @Attr.string({ description: 'Text shown for the status, 1-255 characters', required: true, minLength: 1, maxLength: 255, searchable: true })
  label!: string;

  @Attr.string({ description: 'Display color' })
  color!: string;

  @Attr.string({ description: 'Display icon' })
  icon!: string;

  @Attr.enum(TaskStatusType, { description: 'The kind of state this status stands for (default OPEN)', default: 'OPEN' })
  statusType!: TaskStatusType;

  @Attr.int({ description: 'Order of the status among the task statuses of its organization' })
  sequence!: number;

  @Attr.reference(() => Organization, {
    description: 'The organization the task status belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'taskStatuses',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
