import { BadRequestError } from '../../errors/api-error';
import { isPlainObject } from '../../engine/input';

export type JsonObject = Record<string, unknown>;

/** A chat completion as asked for (docs/ai-gateway.md), checked. */
export interface ChatRequest {
  /** The catalogue name of the model. */
  model: string;
  /** `{role, content}` objects (any further fields, such as `tool_calls`, passed on as they are). */
  messages: JsonObject[];
  /** A non-empty list of tools; an empty list counts as none. */
  tools?: unknown[];
  stream: boolean;
  /** The further OpenAI-compatible parameters (temperature, max_tokens ...), passed on as they are. */
  parameters: JsonObject;
}

/** What a request may need of a model, in the order refusals are checked. */
export type Capability = 'tools' | 'images' | 'documents';

/** A capability the request needs and where it needs it first (`tools`, `messages[0].content[1]`). */
export interface CapabilityUse {
  capability: Capability;
  field: string;
}

/** The fields a content part of each known type must carry, as texts. */
const PART_FIELDS = new Map<string, { holder?: string; texts: string[] }>([
  ['text', { texts: ['text'] }],
  ['image_url', { holder: 'image_url', texts: ['url'] }],
  ['document', { holder: 'document', texts: ['name', 'mimeType', 'data'] }],
]);

/** The capability a content part of each type needs. */
const PART_CAPABILITIES = new Map<unknown, Capability>([
  ['image_url', 'images'],
  ['document', 'documents'],
]);

/**
 * `{model, messages: [{role, content}], tools?, stream?, ...}`: `content` a text, null, or a list of
 * parts (`text`, `image_url`, `document` checked; parts of other types passed on). 400 naming the field.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isPlainObject(body)) throw new BadRequestError('a chat completion must be a JSON object {model, messages, tools?, stream?}');
  const { model, messages, tools, stream, ...parameters } = body;
  if (typeof model !== 'string' || model.trim() === '') throw BadRequestError.forField('model', 'must be the name of a model of the catalogue');
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') throw BadRequestError.forField('stream', 'must be true or false');
  if (tools !== undefined && tools !== null && !Array.isArray(tools)) throw BadRequestError.forField('tools', 'must be a list of tools');
  return {
    model,
    messages: parseMessages(messages),
    ...(Array.isArray(tools) && tools.length ? { tools } : {}),
    stream: stream === true,
    parameters,
  };
}

function parseMessages(messages: unknown): JsonObject[] {
  if (!Array.isArray(messages) || messages.length === 0) throw BadRequestError.forField('messages', 'must be a non-empty list of {role, content}');
  return messages.map((message, index) => checkMessage(message, `messages[${index}]`));
}

function checkMessage(message: unknown, field: string): JsonObject {
  if (!isPlainObject(message)) throw BadRequestError.forField(field, 'must be an object {role, content}');
  if (typeof message.role !== 'string' || message.role.trim() === '') throw BadRequestError.forField(`${field}.role`, 'must be a non-blank text');
  const content = message.content;
  if (Array.isArray(content)) content.forEach((part, index) => checkPart(part, `${field}.content[${index}]`));
  else if (content !== undefined && content !== null && typeof content !== 'string') {
    throw BadRequestError.forField(`${field}.content`, 'must be a text or a list of parts');
  }
  return message;
}

function checkPart(part: unknown, field: string): void {
  if (!isPlainObject(part) || typeof part.type !== 'string') throw BadRequestError.forField(field, 'must be an object with a type (text, image_url, document)');
  const shape = PART_FIELDS.get(part.type);
  if (!shape) return;
  const holder = shape.holder ? part[shape.holder] : part;
  const at = shape.holder ? `${field}.${shape.holder}` : field;
  if (!isPlainObject(holder)) throw BadRequestError.forField(at, `must be an object {${shape.texts.join(', ')}}`);
  for (const name of shape.texts) if (typeof holder[name] !== 'string') throw BadRequestError.forField(`${at}.${name}`, 'must be a text');
}

/** Every capability the request needs, each where it is first needed, in the order tools, images, documents. */
export function capabilitiesUsed(request: ChatRequest): CapabilityUse[] {
  const uses = new Map<Capability, string>();
  if (request.tools) uses.set('tools', 'tools');
  request.messages.forEach((message, m) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part: JsonObject, p) => {
      const capability = PART_CAPABILITIES.get(part.type);
      if (capability && !uses.has(capability)) uses.set(capability, `messages[${m}].content[${p}]`);
    });
  });
  const order: Capability[] = ['tools', 'images', 'documents'];
  return order.filter((capability) => uses.has(capability)).map((capability) => ({ capability, field: uses.get(capability)! }));
}
