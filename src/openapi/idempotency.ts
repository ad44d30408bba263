import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../rest/idempotency';
import { IDEMPOTENCY_TTL_HOURS } from '../engine/idempotency';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is a JSON tree, walked by key
type Node = Record<string, any>;

/** POSTs that do not take the header: the account callback runs before the caller is known (rest/idempotency.ts is mounted after). */
const WITHOUT_KEYS = new Set(['/api/account/callback']);

const PARAMETER = { $ref: `#/components/parameters/${IDEMPOTENCY_KEY_HEADER}` };
const REPLAYED = { $ref: `#/components/headers/${REPLAYED_HEADER}` };

/**
 * Declares the Idempotency-Key header (rest/idempotency.ts) once for every POST under /api: the
 * parameter, the 409 and 422 answers, and `Idempotent-Replayed` on the answers it may replay.
 */
export function withIdempotencyKeys<T extends Node>(document: T): T {
  const components = document.components as Node;
  (components.parameters ??= {})[IDEMPOTENCY_KEY_HEADER] = {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description:
      `Makes the POST safe to retry: the first answer (status, Content-Type, Location, body) is stored for ${IDEMPOTENCY_TTL_HOURS} hours per user and key ` +
      `and replayed to a repeat of the same request (method, path and query, JSON body compared canonically) with ${REPLAYED_HEADER}: true. ` +
      'The key with another request: 422; a repeat while the first still runs: 409. 5xx answers are not stored (a retry runs again); 4xx answers are.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
  };
  (components.headers ??= {})[REPLAYED_HEADER] = {
    description: `true on an answer replayed from the first request with the same ${IDEMPOTENCY_KEY_HEADER}; absent otherwise`,
    schema: { type: 'string', enum: ['true'] },
  };
  components.responses.UnprocessableEntity = {
    description: `The ${IDEMPOTENCY_KEY_HEADER} was used with another request (method, path, query or body) in the last ${IDEMPOTENCY_TTL_HOURS} hours`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  for (const [path, item] of Object.entries(document.paths as Record<string, Node>)) {
    const post = item.post as Node | undefined;
    if (!post || !path.startsWith('/api/') || WITHOUT_KEYS.has(path)) continue;
    post.parameters = [...(post.parameters ?? []), PARAMETER];
    const responses: Node = {
      ...post.responses,
      '400': post.responses['400'] ?? { $ref: '#/components/responses/BadRequest' },
      '409': post.responses['409'] ?? { $ref: '#/components/responses/Conflict' },
      '422': { $ref: '#/components/responses/UnprocessableEntity' },
    };
    for (const answer of Object.values(responses)) if (!answer.$ref) answer.headers = { ...answer.headers, [REPLAYED_HEADER]: REPLAYED };
    post.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  }
  return document;
}
