import { Field, ID, ObjectType } from 'type-graphql';
import { ChatMessageRole } from '../entities/enums';
import { DateTimeScalar } from '../model/scalars';

/** How many of a channel's messages a transcript holds: the most recent ones. */
export const TRANSCRIPT_MESSAGES = 50;

/**
 * The answer of `getChannelTranscript` (docs/ai-gateway.md), declared once:
 * these classes are the GraphQL types, and the OpenAPI components of the same names are read from them.
 */

@ObjectType('ChannelTranscriptMessage', { description: 'One message of a transcript' })
export class ChannelTranscriptMessage {
  @Field(() => ID, { description: "The message's id" })
  id!: string;

  @Field(() => ChatMessageRole.graphql, { description: 'Who wrote the message' })
  role!: string;

  @Field(() => String, { description: 'Text of the message' })
  content!: string;

  @Field(() => ID, { nullable: true, description: 'The user who wrote it, if a user did' })
  userId!: string | null;

  @Field(() => DateTimeScalar, { description: 'When the message was written' })
  createdOn!: Date;
}

@ObjectType('ChannelTranscript', { description: `The most recent ${TRANSCRIPT_MESSAGES} messages of a channel, oldest first` })
export class ChannelTranscript {
  @Field(() => ID, { description: "The channel's id" })
  channelId!: string;

  @Field(() => [ChannelTranscriptMessage], { description: 'The messages, oldest first' })
  messages!: ChannelTranscriptMessage[];

  @Field(() => Boolean, { description: 'Older messages exist beyond those listed' })
  truncated!: boolean;
}

/**
 * `?format=text`: one `ROLE: content` line per message, oldest first; a line break inside a message is
 * written as the two characters `\n`, so that each message stays one line.
 */
export function transcriptText(transcript: ChannelTranscript): string {
  return transcript.messages.map((message) => `${message.role}: ${message.content.replace(/\r\n|\r|\n/g, '\\n')}\n`).join('');
}
