import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Project } from './project';

/** A template new tasks of a project start from. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'task_template' })
@Unique({ properties: ['projectId', 'slug'] })
export class TaskTemplate extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the project: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.reference(() => Project, { required: true, writable: 'create', inverse: 'taskTemplates', onDelete: 'cascade' })
  projectId!: string;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  metadata!: Record<string, unknown>;
}
