import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { Assistant } from './assistant';
import { BaseEntity } from './base';
import { Channel } from './channel';
import { ChatMessageRole } from './enums';
import { PlatformUser } from './platform-user';

/** A message of a channel, written by a user, an assistant, the system or a tool; its project is the channel's. */
@ObjectType({
  simpleResolvers: true,
  description: "A message of a channel, written by a user, an assistant, the system or a tool; its project is the channel's",
})
@Entity({ tableName: 'message' })
export class Message extends BaseEntity {
  @Attr.reference(() => Channel, {
    description: 'The channel the message belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'messages',
    onDelete: 'cascade',
  })
  channelId!: string;

  @Attr.enum(ChatMessageRole, { description: 'Who wrote the message', required: true })
  role!: string;

  @Attr.string({ description: 'Text of the message', searchable: true })
  content!: string;

  @Attr.reference(() => PlatformUser, { description: 'The user who wrote the message (its id), or null', nullable: true, onDelete: 'set null' })
  userId?: string | null;

  @Attr.reference(() => Assistant, { description: 'The assistant that wrote the message (its id), or null', nullable: true, onDelete: 'set null' })
  assistantId?: string | null;

  @Attr.json({ description: 'Context of the message, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  context!: Record<string, unknown>;
}
