import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';

/** The image and settings agents of an organization run with. */
@ObjectType({ simpleResolvers: true, description: 'The image and settings agents of an organization run with' })
@Entity({ tableName: 'agent_runtime' })
@Unique({ properties: ['organizationId', 'slug'] })
export class AgentRuntime extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the agent runtime', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the agent runtime', searchable: true })
  description!: string;

  @Attr.string({ description: 'The container image the runtime starts' })
  image!: string;

  @Attr.json({ description: 'Settings of the runtime, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  options!: Record<string, unknown>;

  @Attr.reference(() => Organization, {
    description: 'The organization the agent runtime belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'agentRuntimes',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
