import { Entity, Property } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';

export const PLATFORM_ADMIN = 'PLATFORM_ADMIN';

const nullableBoolean = { type: 'boolean', nullable: true };

/** A person (or service identity) that calls the platform. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'platform_user' })
export class PlatformUser extends BaseEntity {
  @Attr.string({
    required: true,
    unique: true,
    maxLength: 320,
    pattern: /^[^\s@]+@[^\s@]+$/,
    normalize: (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    searchable: true,
  })
  email!: string;

  @Attr.string({ searchable: true })
  firstName!: string;

  @Attr.string({ searchable: true })
  lastName!: string;

  @Attr.string()
  bio!: string;

  @Attr.string()
  title!: string;

  @Attr.string()
  businessGroup!: string;

  @Attr.string()
  image!: string;

  @Attr.string()
  userHash!: string;

  @Attr.string()
  userType!: string;

  @Attr.string({ writable: 'never' })
  searchText!: string;

  @Attr.string()
  groupsJson!: string;

  @Attr.string()
  rolesJson!: string;

  @Attr.boolean({ default: true })
  active!: boolean;

  @Attr.boolean()
  invited!: boolean;

  @Attr.boolean()
  isExternallyManaged!: boolean;

  @Attr.boolean()
  showDeveloperTools!: boolean;

  @Attr.json({
    default: {},
    schema: {
      type: 'object',
      properties: { showOnboarding: nullableBoolean, showScrollbars: nullableBoolean, showWelcomeMessage: nullableBoolean },
    },
  })
  preferences!: { showOnboarding?: boolean | null; showScrollbars?: boolean | null; showWelcomeMessage?: boolean | null };

  @Attr.json({
    default: { roles: [] },
    schema: { type: 'object', properties: { roles: { type: 'array', nullable: true, items: { type: 'string' } } } },
  })
  security!: { roles?: string[] | null };

  @Attr.json({
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
