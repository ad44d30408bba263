import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { AgentRuntime } from './agent-runtime';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';
import { Project } from './project';

/** An agent of an organization, run on one of its agent runtimes, optionally tied to a project. */
@ObjectType({ simpleResolvers: true, description: 'An agent of an organization, run on one of its agent runtimes, optionally tied to a project' })
@Entity({ tableName: 'agent' })
@Unique({ properties: ['organizationId', 'slug'] })
export class Agent extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the agent', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the agent', searchable: true })
  description!: string;

  @Attr.reference(() => AgentRuntime, {
    description: 'The agent runtime the agent runs on (its id), or null',
    nullable: true,
    inverse: 'agents',
    onDelete: 'set null',
  })
  agentRuntimeId?: string | null;

  @Attr.reference(() => Project, {
    description: 'The project the agent is tied to (its id), or null; set on create, an update leaves it unchanged',
    nullable: true,
    writable: 'create',
    onDelete: 'set null',
  })
  projectId?: string | null;

  @Attr.json({ description: 'Settings of the agent, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  options!: Record<string, unknown>;

  @Attr.reference(() => Organization, {
    description: 'The organization the agent belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'agents',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
