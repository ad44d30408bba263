/** Embed tokens never live longer than this (15 minutes), whatever tokenTtlSeconds says. */
export const MAX_EMBED_TOKEN_TTL_SECONDS = 900;

/** The column of every granted model that the analytics service filters on the caller's organization slugs. */
export const DEFAULT_ROW_FILTER_FIELD = 'org_slug';

/** The `analyticsEmbed` block of CONFIG_FILE when it enables the minter, checked, defaults filled in. */
export interface EnabledAnalyticsEmbedConfig {
  enabled: true;
  /** `iss` of every token. */
  issuer: string;
  /** `aud` of every token. */
  audience: string;
  /** `kid` header: names the public key the analytics service verifies with. */
  keyId: string;
  /** As configured (default 900); tokens live at most MAX_EMBED_TOKEN_TTL_SECONDS. */
  tokenTtlSeconds: number;
  /** Datasets a token may grant; a caller may ask for a subset. */
  models: string[];
  /** Dashboards and questions every token grants. */
  objects: string[];
  /** Column filtered on the caller's organization slugs in every granted model. */
  rowFilterField: string;
}

/** The `analyticsEmbed` block: absent or not enabled, the minter answers 503. */
export type AnalyticsEmbedConfig = { enabled: false } | EnabledAnalyticsEmbedConfig;

/** The block is malformed: the server does not start (the message names the setting). */
export class AnalyticsEmbedConfigError extends Error {
  constructor(setting: string | undefined, problem: string) {
    super(`analyticsEmbed${setting ? `.${setting}` : ''} ${problem}`);
    this.name = 'AnalyticsEmbedConfigError';
  }
}

type Block = Record<string, unknown>;

/**
 * The `analyticsEmbed` block as written in CONFIG_FILE (anything) checked: a disabled or absent block is
 * not read further; an enabled one needs issuer, audience and keyId.
 */
export function readAnalyticsEmbedConfig(raw: unknown): AnalyticsEmbedConfig {
  if (raw === undefined || raw === null) return { enabled: false };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new AnalyticsEmbedConfigError(undefined, 'must be a mapping');
  const block = raw as Block;
  const enabled = optional(block, 'enabled', 'boolean', 'be true or false') ?? false;
  if (!enabled) return { enabled: false };
  return {
    enabled: true,
    issuer: requiredText(block, 'issuer'),
    audience: requiredText(block, 'audience'),
    keyId: requiredText(block, 'keyId'),
    tokenTtlSeconds: ttlOf(block),
    models: textList(block, 'models'),
    objects: textList(block, 'objects'),
    rowFilterField: optional(block, 'rowFilterField', 'string', 'be a text')?.trim() || DEFAULT_ROW_FILTER_FIELD,
  };
}

interface Kinds {
  boolean: boolean;
  string: string;
  number: number;
}

function optional<K extends keyof Kinds>(block: Block, setting: string, kind: K, must: string): Kinds[K] | undefined {
  const value = block[setting];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== kind) throw new AnalyticsEmbedConfigError(setting, `must ${must}`);
  return value as Kinds[K];
}

function requiredText(block: Block, setting: string): string {
  const value = optional(block, setting, 'string', 'be a text')?.trim();
  if (!value) throw new AnalyticsEmbedConfigError(setting, 'is required when enabled');
  return value;
}

function ttlOf(block: Block): number {
  const value = optional(block, 'tokenTtlSeconds', 'number', 'be a number of seconds') ?? MAX_EMBED_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(value) || value <= 0) throw new AnalyticsEmbedConfigError('tokenTtlSeconds', 'must be a positive whole number of seconds');
  return value;
}

/** A list of distinct non-blank texts (absent: none). */
function textList(block: Block, setting: string): string[] {
  const value = block[setting];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string' && item.trim() !== '')) {
    throw new AnalyticsEmbedConfigError(setting, 'must be a list of non-blank texts');
  }
  return [...new Set(value)];
}

/** What the minter is made of: the `analyticsEmbed` block and ANALYTICS_EMBED_SIGNING_KEY_PEM. */
export interface AnalyticsEmbedOptions {
  config: AnalyticsEmbedConfig;
  /** An RS256 private key, PKCS#8 PEM (literal `\n` sequences, as in a one-line environment file, are read as line breaks). */
  signingKeyPem?: string;
}
