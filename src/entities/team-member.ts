import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { PlatformUser } from './platform-user';
import { Team } from './team';

/** A user's membership in a team. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'team_member' })
@Unique({ properties: ['teamId', 'userId'] })
export class TeamMember extends BaseEntity {
  @Attr.reference(() => Team, { embed: true, required: true, nullable: true, inverse: 'members', onDelete: 'cascade' })
  teamId!: string | null;

  @Attr.reference(() => PlatformUser, { embed: true, required: true, nullable: true, anyRecord: true, onDelete: 'cascade' })
  userId!: string | null;
}
