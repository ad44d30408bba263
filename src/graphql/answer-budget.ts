import { GraphQLError, type ExecutionResult } from 'graphql';
import { responseTooLarge } from '../engine/request-budget';
import type { GraphqlContext } from './context';

/**
 * The whole answer refused when the request's budget refused a read (engine/request-budget.ts), or when
 * `data` would be written past it: its other root fields may have been answered, but an answer past
 * RESPONSE_MAX_BYTES is given no data.
 */
export function budgetRefusal(context: GraphqlContext, data?: unknown): ExecutionResult | undefined {
  const { budget } = context.ctx;
  if (data !== undefined && !budget.exceeded) budget.admitsAnswer(data);
  const refusal = budget.exceeded;
  return refusal && { errors: [new GraphQLError(refusal.message, { originalError: refusal })] };
}

/**
 * The response text, unless it is longer than `limit` (or longer than a string can be): then the
 * refusal alone. A backstop: the executor measures the answer before it is written.
 */
export function boundedAnswerText(write: () => string, limit: number): string {
  let text: string | undefined;
  try {
    text = write();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  if (text !== undefined && text.length <= limit) return text;
  return JSON.stringify({ errors: [responseTooLarge(limit).toGraphqlError()] });
}
