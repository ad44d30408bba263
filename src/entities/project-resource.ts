import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Project } from './project';

/** Binds another resource (a service bridge, a store ...) to a project; each resource at most once per project. */
@ObjectType({
  simpleResolvers: true,
  description: 'Binds another resource (a service bridge, a store ...) to a project; each resource at most once per project',
})
@Entity({ tableName: 'project_resource' })
@Unique({ properties: ['projectId', 'resourceType', 'resourceId'] })
export class ProjectResource extends BaseEntity {
  @Attr.reference(() => Project, {
    description: 'The project the project resource belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'projectResources',
    onDelete: 'cascade',
  })
  projectId!: string;

  @Attr.string({ required: true, minLength: 1, maxLength: 255, description: 'Kind of the bound resource, for example SERVICE_BRIDGE' })
  resourceType!: string;

  @Attr.string({ description: 'Id of the resource bound to the project, 1-255 characters', required: true, minLength: 1, maxLength: 255 })
  resourceId!: string;

  @Attr.string({ description: 'URI of the resource bound to the project' })
  resourceUri!: string;
}
