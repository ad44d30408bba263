import type { NextFunction, Request, Response } from 'express';
import { identityOf } from '../auth/authenticate';

const READS = new Set(['GET', 'HEAD']);

/**
 * REST answers (mounted at /api) within the caller's RESPONSE_MAX_BYTES: the answer is measured before its JSON text is
 * written, so that an answer whose rows fit but whose text does not (a large referenced row embedded in
 * every row) is refused like one whose rows do not (see engine/request-budget.ts), without writing it.
 * The refusal itself is small.
 */
export function boundedJsonAnswers(req: Request, res: Response, next: NextFunction): void {
  const context = identityOf(req).context;
  // A write answers what it wrote: never refused after its writes are made.
  if (context && !READS.has(req.method)) context.budget = context.budget.withoutByteLimit();
  res.json = function boundedJson(body: unknown): Response {
    // Error bodies (the refusal itself among them) are small: only answers are measured.
    const budget = res.statusCode < 400 ? context?.budget : undefined;
    // A read refused by the budget fails the answer, wherever it was caught.
    budget?.assertWithinBudget();
    // Measured before it is written: rows embed their references, one large row repeated in every one.
    budget?.checkAnswerValue(body);
    const text = JSON.stringify(body) ?? '';
    budget?.checkAnswer(text.length);
    if (!res.get('Content-Type')) res.type('json');
    return res.send(text);
  };
  next();
}
