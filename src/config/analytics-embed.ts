import { ConfigBlock } from './config-block';

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

/**
 * The `analyticsEmbed` block as written in CONFIG_FILE (anything) checked: a disabled or absent block is
 * not read further; an enabled one needs issuer, audience and keyId. A malformed block is a
 * ConfigBlockError naming the setting (the server does not start).
 */
export function readAnalyticsEmbedConfig(raw: unknown): AnalyticsEmbedConfig {
  const block = ConfigBlock.of(raw, 'analyticsEmbed');
  if (!block) return { enabled: false };
  const enabled = block.optional('enabled', 'boolean', 'be true or false') ?? false;
  if (!enabled) return { enabled: false };
  return {
    enabled: true,
    issuer: block.requiredText('issuer', 'when enabled'),
    audience: block.requiredText('audience', 'when enabled'),
    keyId: block.requiredText('keyId', 'when enabled'),
    tokenTtlSeconds: ttlOf(block),
    models: block.textList('models'),
    objects: block.textList('objects'),
    rowFilterField: block.optional('rowFilterField', 'string', 'be a text')?.trim() || DEFAULT_ROW_FILTER_FIELD,
  };
}

function ttlOf(block: ConfigBlock): number {
  const value = block.optional('tokenTtlSeconds', 'number', 'be a number of seconds') ?? MAX_EMBED_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(value) || value <= 0) throw block.error('tokenTtlSeconds', 'must be a positive whole number of seconds');
  return value;
}

/** What the minter is made of: the `analyticsEmbed` block and ANALYTICS_EMBED_SIGNING_KEY_PEM. */
export interface AnalyticsEmbedOptions {
  config: AnalyticsEmbedConfig;
  /** An RS256 private key, PKCS#8 PEM (literal `\n` sequences, as in a one-line environment file, are read as line breaks). */
  signingKeyPem?: string;
}
