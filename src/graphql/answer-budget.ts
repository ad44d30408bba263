import { GraphQLError, type ExecutionResult } from 'graphql';
import { responseTooLarge } from '../engine/request-budget';
import type { GraphqlContext } from './context';

/**
 * The whole answer refused when the request's budget refused a read (engine/request-budget.ts): its
 * other root fields may have been answered, but an answer past RESPONSE_MAX_BYTES is given no data.
 */
export function budgetRefusal(context: GraphqlContext): ExecutionResult | undefined {
  const refusal = context.ctx.budget.exceeded;
  return refusal && { errors: [new GraphQLError(refusal.message, { originalError: refusal })] };
}

/**
 * The response text, unless it is longer than `limit` (a large value repeated in many rows may make the
 * text larger than the reads it was written from): then the refusal alone.
 */
export function boundedAnswerText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return JSON.stringify({ errors: [responseTooLarge(limit).toGraphqlError()] });
}
