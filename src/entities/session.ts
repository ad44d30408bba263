import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { SessionState } from './enums';
import { Organization } from './organization';
import { PlatformUser } from './platform-user';
import { Project } from './project';

/** A working session of an organization, optionally of a user and on a project; `context` is free JSON kept with it. */
@ObjectType({
  simpleResolvers: true,
  description: 'A working session of an organization, optionally of a user and on a project; context is free JSON kept with it',
})
@Entity({ tableName: 'session' })
export class Session extends BaseEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the session belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'sessions',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.string({ description: 'Name of the session', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.enum(SessionState, { description: 'Where the session stands (default ACTIVE)', default: 'ACTIVE' })
  state!: SessionState;

  @Attr.reference(() => PlatformUser, { description: 'The user of the session (its id), or null', nullable: true, onDelete: 'set null' })
  userId?: string | null;

  @Attr.reference(() => Project, {
    description: 'The project the session works on (its id), or null; set on create, an update leaves it unchanged',
    nullable: true,
    writable: 'create',
    onDelete: 'set null',
  })
  projectId?: string | null;

  @Attr.json({ description: 'Context kept with the session, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  context!: Record<string, unknown>;
}
