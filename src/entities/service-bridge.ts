import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';

/** An external HTTP service an organization's projects and agents call through the proxy (modules/integrations/service-bridges.ts). */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'service_bridge' })
@Unique({ properties: ['organizationId', 'slug'] })
export class ServiceBridge extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.string({ maxLength: 2048 })
  baseUrl!: string;

  @Attr.boolean()
  agentCallable!: boolean;

  @Attr.json({
    default: [],
    schema: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, additionalProperties: true },
    },
  })
  defaultHeaders!: Record<string, unknown>[];

  @Attr.json({
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

  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'serviceBridges', onDelete: 'cascade' })
  organizationId!: string;
}
