import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';

/** An external HTTP service an organization's projects and agents call through the proxy (modules/integrations/service-bridges.ts). */
@ObjectType({ simpleResolvers: true, description: "An external HTTP service an organization's projects and agents call through the proxy" })
@Entity({ tableName: 'service_bridge' })
@Unique({ properties: ['organizationId', 'slug'] })
export class ServiceBridge extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the service bridge', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the service bridge', searchable: true })
  description!: string;

  @Attr.string({ description: 'Base URL of the external service that calls through the bridge go to', maxLength: 2048 })
  baseUrl!: string;

  @Attr.boolean({ description: 'Whether agent sessions may call the bridge' })
  agentCallable!: boolean;

  @Attr.json({
    description: 'Headers sent with every call (name, value); ${secrets.NAME} in a value is replaced by that organization secret',
    default: [],
    schema: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, additionalProperties: true },
    },
  })
  defaultHeaders!: Record<string, unknown>[];

  @Attr.json({
    description: 'Endpoints of the external service the bridge may call, each with its name, method, path and requestSchema',
    default: [],
    schema: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          method: { type: 'string' },
          path: { type: 'string' },
          requestSchema: { type: 'object', additionalProperties: true },
          headers: {
            type: 'array',
            items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, additionalProperties: true },
          },
        },
        additionalProperties: true,
      },
    },
  })
  endpoints!: Record<string, unknown>[];

  @Attr.reference(() => Organization, {
    description: 'The organization the service bridge belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'serviceBridges',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
