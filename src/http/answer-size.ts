import type { NextFunction, Request, Response } from 'express';
import { identityOf } from '../auth/authenticate';

/**
 * REST answers within the caller's RESPONSE_MAX_BYTES: the JSON text is written once and measured before
 * it is sent, so that an answer whose rows fit but whose text does not (a large value repeated in many
 * rows) is refused like one whose rows do not (see engine/request-budget.ts). The refusal itself is small.
 */
export function boundedJsonAnswers(req: Request, res: Response, next: NextFunction): void {
  res.json = function boundedJson(body: unknown): Response {
    const text = JSON.stringify(body) ?? '';
    identityOf(req).context?.budget.checkAnswer(text.length);
    if (!res.get('Content-Type')) res.type('json');
    return res.send(text);
  };
  next();
}
