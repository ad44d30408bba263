import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { AgentRuntime } from './agent-runtime';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';
import { Project } from './project';

/** An agent of an organization, run on one of its agent runtimes, optionally tied to a project. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'agent' })
@Unique({ properties: ['organizationId', 'slug'] })
export class Agent extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.reference(() => AgentRuntime, { nullable: true, inverse: 'agents', onDelete: 'set null' })
  agentRuntimeId?: string | null;

  @Attr.reference(() => Project, { nullable: true, writable: 'create', onDelete: 'set null' })
  projectId?: string | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  options!: Record<string, unknown>;

  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'agents', onDelete: 'cascade' })
  organizationId!: string;
}
