import { ConfigBlock } from './config-block';

/** How long a provider may take when its block names no timeoutSeconds. */
export const DEFAULT_AI_PROVIDER_TIMEOUT_SECONDS = 60;

/** An environment variable's name as a shell writes it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One provider of the `aiGateway.providers` block, checked, defaults filled in. */
export interface AiProviderConfig {
  /** Where its OpenAI-compatible API lives: `POST <baseUrl>/chat/completions`. */
  baseUrl: string;
  /** The environment variable holding its API key, sent as `Authorization: Bearer`; absent: no key is sent. */
  apiKeyEnv?: string;
  /** How long a call may take (a stream: until its first chunk, then between two chunks). */
  timeoutSeconds: number;
}

/** The `aiGateway` block of CONFIG_FILE: the providers the model catalogue's `provider` names. */
export interface AiGatewayConfig {
  providers: Record<string, AiProviderConfig>;
}

/**
 * The `aiGateway` block as written in CONFIG_FILE (anything) checked: absent, no provider is
 * configured. A malformed block is a ConfigBlockError naming the setting (the server does not start).
 */
export function readAiGatewayConfig(raw: unknown): AiGatewayConfig {
  const providers = ConfigBlock.of(raw, 'aiGateway')?.child('providers');
  if (!providers) return { providers: {} };
  return { providers: Object.fromEntries(providers.names().map((name) => [name, providerOf(providers, name)])) };
}

function providerOf(providers: ConfigBlock, name: string): AiProviderConfig {
  const block = providers.child(name);
  if (!block) throw providers.error(name, 'must be a mapping');
  const apiKeyEnv = block.optional('apiKeyEnv', 'string', 'be the name of an environment variable')?.trim();
  if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv)) throw block.error('apiKeyEnv', 'must be the name of an environment variable');
  return { baseUrl: baseUrlOf(block), ...(apiKeyEnv ? { apiKeyEnv } : {}), timeoutSeconds: timeoutOf(block) };
}

/** An http(s) URL, without a trailing slash (the paths are appended to it). */
function baseUrlOf(block: ConfigBlock): string {
  const text = block.requiredText('baseUrl');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw block.error('baseUrl', 'must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw block.error('baseUrl', 'must be an http or https URL');
  return text.replace(/\/+$/, '');
}

function timeoutOf(block: ConfigBlock): number {
  const value = block.optional('timeoutSeconds', 'number', 'be a number of seconds') ?? DEFAULT_AI_PROVIDER_TIMEOUT_SECONDS;
  if (!(value > 0) || !Number.isFinite(value)) throw block.error('timeoutSeconds', 'must be a positive number of seconds');
  return value;
}
