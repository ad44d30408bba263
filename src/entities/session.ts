import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { SessionState } from './enums';
import { Organization } from './organization';
import { PlatformUser } from './platform-user';
import { Project } from './project';

/** A working session of an organization, optionally of a user and on a project; `context` is free JSON kept with it. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'session' })
export class Session extends BaseEntity {
  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'sessions', onDelete: 'cascade' })
  organizationId!: string;

  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.enum(SessionState, { default: 'ACTIVE' })
  state!: SessionState;

  @Attr.reference(() => PlatformUser, { nullable: true, onDelete: 'set null' })
  userId?: string | null;

  @Attr.reference(() => Project, { nullable: true, writable: 'create', onDelete: 'set null' })
  projectId?: string | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  context!: Record<string, unknown>;
}
