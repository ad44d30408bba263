import { Channel } from '../../entities/channel';
import { Message } from '../../entities/message';
import { TRANSCRIPT_MESSAGES, type ChannelTranscript } from '../../catalog/channel-transcript';
import type { RequestContext } from '../../engine/context';

/**
 * The most recent messages of a channel, oldest first (docs/ai-gateway.md): the channel read as GET /api/channels/{id} reads it (403 and 404 alike), its messages
 * listed as GET /api/messages lists them (their channel's visibility), newest first and then turned.
 */
export async function getChannelTranscript(ctx: RequestContext, id: string): Promise<ChannelTranscript> {
  const channel = await ctx.services.forEntity(Channel)!.get(ctx, id);
  const page = await ctx.services.forEntity(Message)!.list(ctx, {
    pageSize: TRANSCRIPT_MESSAGES,
    sort: 'createdOn:desc;id:desc',
    match: { channelId: channel.id },
    columns: ['id', 'role', 'content', 'userId', 'createdOn'],
  });
  const messages = page.items.map(({ id, role, content, userId, createdOn }) => ({ id, role, content, userId: userId ?? null, createdOn }));
  return { channelId: channel.id, messages: messages.reverse(), truncated: page.totalElements > messages.length };
}
