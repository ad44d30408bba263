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
@ObjectType({ simpleResolvers: true, description: "One run of an agent, optionally on a project's task and for a user; its organization is the agent's" })
@Entity({ tableName: 'agent_session' })
export class AgentSession extends BaseEntity {
  @Attr.reference(() => Agent, {
    description: 'The agent this session runs (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'sessions',
    onDelete: 'cascade',
  })
  agentId!: string;

  @Attr.reference(() => Project, {
    description: 'The project the session works on (its id), or null; set on create, an update leaves it unchanged',
    nullable: true,
    writable: 'create',
    onDelete: 'set null',
  })
  projectId?: string | null;

  @Attr.reference(() => Task, { description: 'The task the session works on (its id), or null', nullable: true, onDelete: 'set null' })
  taskId?: string | null;

  @Attr.reference(() => PlatformUser, { description: 'The user the session runs for (its id), or null', nullable: true, onDelete: 'set null' })
  userId?: string | null;

  @Attr.enum(SessionState, { description: 'Where the session stands (default ACTIVE)', default: 'ACTIVE' })
  state!: SessionState;

  @Attr.dateTime({ description: 'When the session started; null until then', nullable: true })
  startedAt?: Date | null;

  @Attr.dateTime({ description: 'When the session ended; null until then', nullable: true })
  endedAt?: Date | null;
}
