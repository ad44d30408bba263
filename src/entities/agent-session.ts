import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { Agent } from './agent';
import { BaseEntity } from './base';
import { SessionState } from './enums';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { Task } from './task';

/** One run of an agent, optionally on a project's task and for a user; its organization is the agent's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'agent_session' })
export class AgentSession extends BaseEntity {
  @Attr.reference(() => Agent, { required: true, writable: 'create', inverse: 'sessions', onDelete: 'cascade' })
  agentId!: string;

  @Attr.reference(() => Project, { nullable: true, writable: 'create', onDelete: 'set null' })
  projectId?: string | null;

  @Attr.reference(() => Task, { nullable: true, onDelete: 'set null' })
  taskId?: string | null;

  @Attr.reference(() => PlatformUser, { nullable: true, onDelete: 'set null' })
  userId?: string | null;

  @Attr.enum(SessionState, { default: 'ACTIVE' })
  state!: SessionState;

  @Attr.dateTime({ nullable: true })
  startedAt?: Date | null;

  @Attr.dateTime({ nullable: true })
  endedAt?: Date | null;
}
