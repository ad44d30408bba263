import { Entity, Property } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';

export const PLATFORM_ADMIN = 'PLATFORM_ADMIN';

const nullableBoolean = { type: 'boolean', nullable: true };

/** A person (or service identity) that calls the platform. */
@ObjectType({ simpleResolvers: true, description: 'A person (or service identity) that calls the platform' })
@Entity({ tableName: 'platform_user' })
export class PlatformUser extends BaseEntity {
  @Attr.string({
    description: 'Email address, unique; trimmed and lowercased on write',
    required: true,
    unique: true,
    maxLength: 320,
    pattern: /^[^\s@]+@[^\s@]+$/,
    normalize: (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    searchable: true,
  })
  email!: string;

  @Attr.string({ description: 'First name', searchable: true })
  firstName!: string;

  @Attr.string({ description: 'Last name', searchable: true })
  lastName!: string;

  @Attr.string({ description: 'Short biography' })
  bio!: string;

  @Attr.string({ description: 'Job title' })
  title!: string;

  @Attr.string({ description: 'Business group the user belongs to' })
  businessGroup!: string;

  @Attr.string({ description: 'Image of the user' })
  image!: string;

  @Attr.string({ description: 'Hash identifying the user' })
  userHash!: string;

  @Attr.string({ description: 'Kind of user (free text)' })
  userType!: string;

  @Attr.string({
    description: 'The searchable fields, lowercased and joined by spaces: what the free-text query matches; kept by the server',
    writable: 'never',
  })
  searchText!: string;

  @Attr.string({ description: 'Groups of the user, as JSON text' })
  groupsJson!: string;

  @Attr.string({ description: 'Roles of the user, as JSON text' })
  rolesJson!: string;

  @Attr.boolean({ description: 'Whether the user is active (default true)', default: true })
  active!: boolean;

  @Attr.boolean({ description: 'Whether the user was invited' })
  invited!: boolean;

  @Attr.boolean({ description: 'Whether the user is managed by an external identity provider' })
  isExternallyManaged!: boolean;

  @Attr.boolean({ description: 'Whether developer tools are shown to the user' })
  showDeveloperTools!: boolean;

  @Attr.json({
    description: 'Display preferences: showOnboarding, showScrollbars, showWelcomeMessage',
    default: {},
    schema: {
      type: 'object',
      properties: { showOnboarding: nullableBoolean, showScrollbars: nullableBoolean, showWelcomeMessage: nullableBoolean },
    },
  })
  preferences!: { showOnboarding?: boolean | null; showScrollbars?: boolean | null; showWelcomeMessage?: boolean | null };

  @Attr.json({
    description: 'Security settings: roles',
    default: { roles: [] },
    schema: { type: 'object', properties: { roles: { type: 'array', nullable: true, items: { type: 'string' } } } },
  })
  security!: { roles?: string[] | null };

  @Attr.json({
    description: 'What clients keep for the user: favoriteLinks',
    default: { favoriteLinks: [] },
    schema: {
      type: 'object',
      properties: {
        favoriteLinks: {
          type: 'array',
          nullable: true,
          items: { type: 'object', properties: { link: { type: 'string' } } },
        },
      },
    },
  })
  userStorage!: { favoriteLinks?: { link: string }[] | null };

  /** The identity provider's `sub` for this user, set when a bearer token first signs them in. */
  @Property({ type: 'text', nullable: true, unique: true, hidden: true })
  authSubject?: string | null;
}

export function isPlatformAdmin(user: PlatformUser): boolean {
  return user.security?.roles?.includes(PLATFORM_ADMIN) ?? false;
}
