import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { PlatformUser } from './platform-user';
import { Team } from './team';

/** A user's membership in a team. */
@ObjectType({ simpleResolvers: true, description: "A user's membership in a team" })
@Entity({ tableName: 'team_member' })
@Unique({ properties: ['teamId', 'userId'] })
export class TeamMember extends BaseEntity {
  @Attr.reference(() => Team, { description: 'The team (its id)', embed: true, required: true, nullable: true, inverse: 'members', onDelete: 'cascade' })
  teamId!: string | null;

  @Attr.reference(() => PlatformUser, {
    description: 'The user who is a member (its id); any live user may be named, also one the caller cannot otherwise see',
    embed: true,
    required: true,
    nullable: true,
    anyRecord: true,
    onDelete: 'cascade',
  })
  userId!: string | null;
}
