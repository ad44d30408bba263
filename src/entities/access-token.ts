import { Entity, Property } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { PlatformUser } from './platform-user';

/** An API key of a user; only a hash of the key is stored. */
@ObjectType({ simpleResolvers: true, description: 'An API key of a user; only a hash of the key is stored' })
@Entity({ tableName: 'access_token' })
export class AccessToken extends BaseEntity {
  @Attr.string({ description: 'Name of the key, to tell keys apart', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.reference(() => PlatformUser, {
    writable: 'create',
    onDelete: 'cascade',
    description: "The key's owner; only administrators may name another user than themselves",
  })
  userId!: string;

  @Attr.dateTime({ description: 'When the key stops working; null: it never expires', nullable: true, writable: 'create' })
  expiresAt?: Date | null;

  @Attr.dateTime({ description: 'When the key last authenticated a request; null when never used', nullable: true, writable: 'never' })
  lastUsedAt?: Date | null;

  @Attr.string({ writable: 'never', description: 'First 8 characters of the key, to recognise it' })
  tokenPrefix!: string;

  @Attr.string({
    nullable: true,
    writable: 'never',
    persist: false,
    responseRequired: false,
    description: 'The key itself: present once, in the answer that creates it',
  })
  token?: string | null;

  /** SHA-256 of the key, hex; never leaves the server. */
  @Property({ type: 'text', unique: true, hidden: true })
  tokenHash!: string;
}
