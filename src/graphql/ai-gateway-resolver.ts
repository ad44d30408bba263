import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { JSONScalar } from '../model/scalars';
import { chatCompletion } from '../modules/ai/ai-gateway';
import type { JsonObject } from '../modules/ai/chat-request';
import type { GraphqlContext } from './context';

/** `chatCompletion(input)`: the chat completion of POST /api/ai/chat/completions, answered whole (no streaming). */
@Resolver()
export class AiGatewayResolver {
  @Mutation(() => JSONScalar, {
    description:
      "A chat completion through the AI gateway, as POST /api/ai/chat/completions answers it without stream: the provider's OpenAI-compatible answer, " +
      'the model named as in the catalogue, reasoning only for models with reasoning_output',
  })
  chatCompletion(
    @Arg('input', () => JSONScalar, {
      description: '{model, messages: [{role, content}], tools?, ...further OpenAI-compatible parameters}; stream: true is refused',
    })
    input: unknown,
    @Ctx() { ctx }: GraphqlContext,
  ): Promise<JsonObject> {
    return chatCompletion(ctx, input);
  }
}
