import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Project } from './project';

/** A template new tasks of a project start from. */
@ObjectType({ simpleResolvers: true, description: 'A template new tasks of a project start from' })
@Entity({ tableName: 'task_template' })
@Unique({ properties: ['projectId', 'slug'] })
export class TaskTemplate extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the task template', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the task template', searchable: true })
  description!: string;

  @Attr.reference(() => Project, {
    description: 'The project the task template belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'taskTemplates',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.json({ description: 'What a task started from the template gets, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  metadata!: Record<string, unknown>;
}
