import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';

/** The top-level tenant: every project, store and resource belongs to one organization. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'organization' })
export class Organization extends BaseEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ unique: true, minLength: 3, description: '3-100 characters, lowercased automatically, ^[a-z0-9-]+$; derived from the name when omitted' })
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.string({ writable: 'never' })
  searchText!: string;

  @Attr.string({ default: 'ACTIVE', description: 'For example ACTIVE, SUSPENDED' })
  organizationStatus!: string;

  @Attr.boolean()
  publicAccess!: boolean;

  @Attr.json({ default: {}, schema: { type: 'object', properties: { authGroup: { type: 'string', nullable: true } } } })
  authGroupLink!: { authGroup?: string | null };

  @Attr.boolean()
  hasImage!: boolean;

  @Attr.boolean()
  defaultToPrivateTemplates!: boolean;

  @Attr.json({
    default: { orderedDashboards: [] },
    schema: { type: 'object', properties: { orderedDashboards: { type: 'array', nullable: true, items: { type: 'string' } } } },
  })
  memory!: { orderedDashboards?: string[] | null };

  @Attr.boolean()
  supportAccess!: boolean;

  @Attr.dateTime({ nullable: true })
  supportAccessExpiresAt?: Date | null;

  @Attr.string({ description: 'Identifier of the organization at the external payment provider' })
  billingCustomerId!: string;

  @Attr.boolean({ nullable: true })
  enterpriseOrganization?: boolean | null;

  @Attr.json({ nullable: true, schema: { type: 'object', additionalProperties: true } })
  properties?: Record<string, unknown> | null;

  @Attr.json({ nullable: true, schema: { type: 'object', additionalProperties: true } })
  features?: Record<string, unknown> | null;

  @Attr.boolean({ writable: 'never', responseRequired: false, description: 'true once the organization is deleted, false until then' })
  archived!: boolean;
}
