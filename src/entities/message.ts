import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { Assistant } from './assistant';
import { BaseEntity } from './base';
import { Channel } from './channel';
import { ChatMessageRole } from './enums';
import { PlatformUser } from './platform-user';

/** A message of a channel, written by a user, an assistant, the system or a tool; its project is the channel's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'message' })
export class Message extends BaseEntity {
  @Attr.reference(() => Channel, { required: true, writable: 'create', inverse: 'messages', onDelete: 'cascade' })
  channelId!: string;

  @Attr.enum(ChatMessageRole, { required: true })
  role!: string;

  @Attr.string({ searchable: true })
  content!: string;

  @Attr.reference(() => PlatformUser, { nullable: true, onDelete: 'set null' })
  userId?: string | null;

  @Attr.reference(() => Assistant, { nullable: true, onDelete: 'set null' })
  assistantId?: string | null;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  context!: Record<string, unknown>;
}
