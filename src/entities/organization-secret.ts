import { Entity, Property, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A named value of an organization (an upstream's API key) that `${secrets.NAME}` puts into service bridge headers. */
@ObjectType({
  simpleResolvers: true,
  description: "A named value of an organization (an upstream's API key) that ${secrets.NAME} puts into service bridge headers; its value is never answered",
})
@Entity({ tableName: 'organization_secret' })
@Unique({ properties: ['organizationId', 'name'] })
export class OrganizationSecret extends BaseEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the organization secret belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'secrets',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.string({
    required: true,
    minLength: 1,
    maxLength: 255,
    pattern: /^[A-Z0-9_]+$/,
    searchable: true,
    description: 'Unique within the organization; `${secrets.NAME}` names it',
  })
  name!: string;

  @Attr.string({ description: 'Free-text description of the secret', searchable: true })
  description!: string;

  @Attr.string({
    required: true,
    maxLength: 65_536,
    writeOnly: true,
    persist: false,
    description: 'Write-only: stored encrypted, never returned',
  })
  value?: string;

  /** The value encrypted with SECRETS_KEY (modules/access/secret-box.ts); never leaves the server. */
  @Property({ type: 'text', hidden: true })
  sealedValue!: string;

  @Attr.string({
    description: 'The searchable fields, lowercased and joined by spaces: what the free-text query matches; kept by the server',
    writable: 'never',
  })
  searchText!: string;
}
