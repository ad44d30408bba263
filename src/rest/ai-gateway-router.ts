import { type Request, type Response, Router } from 'express';
import { normalizeError } from '../errors/normalize-error';
import { AI_GATEWAY_PATH, chatCompletion } from '../modules/ai/ai-gateway';
import { listEnabledModels } from '../modules/ai/model-catalog';
import { EventStreamAnswer } from './event-stream-answer';
import { readJsonBody } from './json-body';
import { methodNotAllowed } from './method-not-allowed';
import { contextOf } from '../auth/authenticate';

export const CHAT_COMPLETIONS_PATH = `${AI_GATEWAY_PATH}/chat/completions`;
export const MODELS_PATH = `${AI_GATEWAY_PATH}/models`;

/** Largest chat completion body: images and documents travel inside it as base64. */
export const CHAT_COMPLETION_BODY_LIMIT = '20mb';

/**
 * The AI gateway, as OpenAI clients call it (its errors in their shape: rest/error-handler.ts).
 * `POST /api/ai/chat/completions`: the chat completion service, its JSON answer whole, or with
 * `stream: true` its chunks as server-sent events (a failure before the first chunk is the plain error
 * body, after it an `event: error`); the client closing the connection aborts the upstream call.
 * `GET /api/ai/models`: the enabled models of the catalogue in OpenAI's list shape.
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
  router.get(MODELS_PATH, async (req: Request, res: Response) => {
    res.json(await listEnabledModels(contextOf(req)));
  });
  router.all(CHAT_COMPLETIONS_PATH, methodNotAllowed(['POST']));
  router.all(MODELS_PATH, methodNotAllowed(['GET']));
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
