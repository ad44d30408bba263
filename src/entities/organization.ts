import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';

/** The top-level tenant: every project, store and resource belongs to one organization. */
@ObjectType({ simpleResolvers: true, description: 'The top-level tenant: every project, store and resource belongs to one organization' })
@Entity({ tableName: 'organization' })
export class Organization extends BaseEntity {
  @Attr.string({ description: 'Name of the organization', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ unique: true, minLength: 3, description: '3-100 characters, lowercased automatically, ^[a-z0-9-]+$; derived from the name when omitted' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the organization', searchable: true })
  description!: string;

  @Attr.string({
    description: 'The searchable fields, lowercased and joined by spaces: what the free-text query matches; kept by the server',
    writable: 'never',
  })
  searchText!: string;

  @Attr.string({ default: 'ACTIVE', description: 'State of the organization (free text, for example ACTIVE, SUSPENDED; default ACTIVE)' })
  organizationStatus!: string;

  @Attr.boolean({ description: 'Whether the organization is publicly accessible' })
  publicAccess!: boolean;

  @Attr.json({
    description: 'Link to an identity-provider group: authGroup',
    default: {},
    schema: { type: 'object', properties: { authGroup: { type: 'string', nullable: true } } },
  })
  authGroupLink!: { authGroup?: string | null };

  @Attr.boolean({ description: 'Whether the organization has an image' })
  hasImage!: boolean;

  @Attr.boolean({ description: 'Whether templates are private by default' })
  defaultToPrivateTemplates!: boolean;

  @Attr.json({
    description: 'What clients keep for the organization: orderedDashboards',
    default: { orderedDashboards: [] },
    schema: { type: 'object', properties: { orderedDashboards: { type: 'array', nullable: true, items: { type: 'string' } } } },
  })
  memory!: { orderedDashboards?: string[] | null };

  @Attr.boolean({ description: 'Whether support staff may access the organization' })
  supportAccess!: boolean;

  @Attr.dateTime({ description: 'When support access ends, or null', nullable: true })
  supportAccessExpiresAt?: Date | null;

  @Attr.string({ description: 'Identifier of the organization at the external payment provider' })
  billingCustomerId!: string;

  @Attr.boolean({ description: 'Whether the organization is an enterprise organization, or null', nullable: true })
  enterpriseOrganization?: boolean | null;

  @Attr.json({ description: 'Arbitrary key-value properties, or null', nullable: true, schema: { type: 'object', additionalProperties: true } })
  properties?: Record<string, unknown> | null;

  @Attr.json({ description: 'Feature flags, or null', nullable: true, schema: { type: 'object', additionalProperties: true } })
  features?: Record<string, unknown> | null;

  @Attr.boolean({ writable: 'never', responseRequired: false, description: 'true once the organization is deleted, false until then' })
  archived!: boolean;
}
