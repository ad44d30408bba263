import { type Request, type Response, Router } from 'express';
import { MethodNotAllowedError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';
import { chatCompletion } from '../modules/ai/ai-gateway';
import { EventStreamAnswer } from './event-stream-answer';
import { readJsonBody } from './json-body';
import { contextOf } from '../auth/authenticate';

export const CHAT_COMPLETIONS_PATH = '/api/ai/chat/completions';

/** Largest chat completion body: images and documents travel inside it as base64. */
export const CHAT_COMPLETION_BODY_LIMIT = '20mb';

/**
 * `POST /api/ai/chat/completions`: the chat completion service, its JSON answer whole, or with
 * `stream: true` its chunks as server-sent events (a failure before the first chunk is the plain error
 * body, after it an `event: error`). The client closing the connection aborts the upstream call.
 */
export function aiGatewayRouter(): Router {
  const router = Router();
  router.post(CHAT_COMPLETIONS_PATH, readJsonBody(CHAT_COMPLETION_BODY_LIMIT), async (req: Request, res: Response) => {
    const events = new EventStreamAnswer(res);
    try {
      const answer = await chatCompletion(contextOf(req), req.body, { signal: abortedOnClose(res), stream: events });
      if (answer) res.json(answer);
      else events.end();
    } catch (error) {
      if (!events.started) throw error;
      events.fail(normalizeError(error));
    }
  });
  router.all(CHAT_COMPLETIONS_PATH, (req: Request) => {
    throw new MethodNotAllowedError(`${req.path} does not support ${req.method}; allowed: POST`, ['POST']);
  });
  return router;
}

/** Aborts when the connection closes before the answer is finished (the client went away). */
function abortedOnClose(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
