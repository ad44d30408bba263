import { MAX_EMBED_TOKEN_TTL_SECONDS, type AnalyticsEmbedOptions, type EnabledAnalyticsEmbedConfig } from '../../config/analytics-embed';
import { BadRequestError, ForbiddenError, ServiceUnavailableError } from '../../errors/api-error';
import { logger } from '../../logging/logger';
import { AnalyticsEmbedToken } from '../../model/analytics-embed-token';
import type { RequestContext } from '../../engine/context';
import { memberships } from '../../engine/tenancy';

/** jose is an ES module; this project compiles to CommonJS, so it is loaded with import(). */
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
type SigningKey = Awaited<ReturnType<Jose['importPKCS8']>>;

/** What a token grants beside the registered claims (iss, aud, sub, iat, exp). */
interface GrantClaims {
  orgs: string[];
  models: string[];
  objects: string[];
  /** `{<model>: {<rowFilterField>: [<org slugs>]}}`: every granted model is filtered to the organizations. */
  rowFilters: Record<string, Record<string, string[]>>;
}

interface ReadySigner {
  ready: true;
  config: EnabledAnalyticsEmbedConfig;
  key: SigningKey;
  jose: Jose;
}

type SignerState = ReadySigner | { ready: false; disabled: boolean; reason: string };

/**
 * Signs analytics embed tokens with ANALYTICS_EMBED_SIGNING_KEY_PEM, or knows why it cannot: the block
 * is not enabled, or the key is missing or unusable. It is made once at start, which logs why tokens
 * are unavailable; every request then answers 503 while the server serves the rest.
 */
export class AnalyticsEmbedSigner {
  private constructor(private readonly state: SignerState) {}

  static async create(options: AnalyticsEmbedOptions | undefined): Promise<AnalyticsEmbedSigner> {
    const state = await prepare(options);
    report(state);
    return new AnalyticsEmbedSigner(state);
  }

  /** The enabled configuration; 503 when no token can be signed. */
  get config(): EnabledAnalyticsEmbedConfig {
    return this.ready().config;
  }

  /** A token for `subject` granting `claims`; 503 when no token can be signed. */
  sign(subject: string, claims: GrantClaims): Promise<{ token: string; expiresAt: Date }> {
    return signToken(this.ready(), subject, claims);
  }

  private ready(): ReadySigner {
    if (this.state.ready) return this.state;
    throw new ServiceUnavailableError(
      this.state.disabled
        ? 'analytics embed tokens are disabled on this server'
        : 'analytics embed tokens are unavailable: the signing key is missing or unusable',
    );
  }
}

/** A token for `subject` granting `claims`, living the configured time (at most 15 minutes). */
async function signToken({ config, key, jose }: ReadySigner, subject: string, claims: GrantClaims): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(Date.now() / 1000);
  const expires = issuedAt + lifetimeSeconds(config);
  const token = await new jose.SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: config.keyId, typ: 'JWT' })
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setSubject(subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expires)
    .sign(key);
  return { token, expiresAt: new Date(expires * 1000) };
}

/** tokenTtlSeconds, capped at 15 minutes whatever it says. */
function lifetimeSeconds(config: EnabledAnalyticsEmbedConfig): number {
  return Math.min(config.tokenTtlSeconds, MAX_EMBED_TOKEN_TTL_SECONDS);
}

async function prepare(options: AnalyticsEmbedOptions | undefined): Promise<SignerState> {
  const config = options?.config;
  if (!config?.enabled) return { ready: false, disabled: true, reason: 'the analyticsEmbed block of CONFIG_FILE does not enable them' };
  if (!options?.signingKeyPem?.trim()) return { ready: false, disabled: false, reason: 'ANALYTICS_EMBED_SIGNING_KEY_PEM is not set' };
  const jose = await import('jose');
  try {
    // A PEM given in one line of an environment file carries literal \n sequences.
    const key = await jose.importPKCS8(options.signingKeyPem.replace(/\\n/g, '\n').trim(), 'RS256');
    const signer: ReadySigner = { ready: true, config, key, jose };
    // A key that imports may still not sign (an RSA key under 2048 bits): found out now, not per request.
    await signToken(signer, 'probe', { orgs: [], models: [], objects: [], rowFilters: {} });
    return signer;
  } catch (error) {
    // jose's and WebCrypto's messages describe the problem, never the key.
    return {
      ready: false,
      disabled: false,
      reason: `ANALYTICS_EMBED_SIGNING_KEY_PEM is not a usable RS256 private key in PKCS#8 PEM (${(error as Error).message})`,
    };
  }
}

/** Said once, when the server starts. */
function report(state: SignerState): void {
  if (!state.ready) {
    const message = `analytics embed tokens answer 503: ${state.reason}`;
    if (state.disabled) logger.info(message);
    else logger.error(message);
    return;
  }
  if (state.config.tokenTtlSeconds > MAX_EMBED_TOKEN_TTL_SECONDS) {
    logger.warn(
      `analyticsEmbed.tokenTtlSeconds ${state.config.tokenTtlSeconds} is above ${MAX_EMBED_TOKEN_TTL_SECONDS}: embed tokens live ${MAX_EMBED_TOKEN_TTL_SECONDS} seconds`,
    );
  }
}

/**
 * POST /api/analytics/embed-token and mintAnalyticsEmbedToken: a token for the caller granting the asked
 * models (all configured ones when none are asked) row-filtered to the caller's organizations, which
 * come from their team memberships alone (all live ones for platform administrators): organizations
 * named in the request are not read. 503 when tokens cannot be signed, 403 for a caller in no organization.
 */
export async function mintAnalyticsEmbedToken(ctx: RequestContext, input: Record<string, unknown>): Promise<AnalyticsEmbedToken> {
  const signer = ctx.services.analyticsEmbed;
  if (!signer) throw new ServiceUnavailableError('analytics embed tokens are disabled on this server');
  const config = signer.config;
  // An optional argument sent as null is left out (parseOperationInput lets null through).
  const models = grantedModels(config, (input.models ?? undefined) as string[] | undefined);
  const user = ctx.user;
  if (!user) throw new ForbiddenError('analytics embed tokens are issued to users only');
  const orgs = await organizationSlugs(ctx);
  if (orgs.length === 0) throw new ForbiddenError('the caller belongs to no organization: there is nothing an analytics embed token could grant');
  const rowFilters = Object.fromEntries(models.map((model) => [model, { [config.rowFilterField]: orgs }]));
  const { token, expiresAt } = await signer.sign(user.id, { orgs, models, objects: config.objects, rowFilters });
  return Object.assign(new AnalyticsEmbedToken(), { token, expiresAt, models, orgs });
}

/** The asked models (each once, in the order asked), all configured ones when none are asked; 400 naming an unknown one. */
function grantedModels(config: EnabledAnalyticsEmbedConfig, asked: string[] | undefined): string[] {
  if (asked === undefined) return config.models;
  if (asked.length === 0) throw BadRequestError.forField('models', 'must name at least one model; omit it for all configured models');
  const unknown = [...new Set(asked.filter((model) => !config.models.includes(model)))];
  if (unknown.length) {
    const names = unknown.map((model) => `"${model}"`).join(', ');
    throw BadRequestError.forField('models', `unknown model${unknown.length > 1 ? 's' : ''} ${names}; configured: ${config.models.join(', ') || 'none'}`);
  }
  return [...new Set(asked)];
}

/** Slugs of the caller's live organizations: through their teams, or every live one for a platform administrator. */
async function organizationSlugs(ctx: RequestContext): Promise<string[]> {
  if (ctx.isAdmin) return liveOrganizationSlugs(ctx);
  const member = [...(await memberships(ctx)).member];
  return member.length ? liveOrganizationSlugs(ctx, member) : [];
}

async function liveOrganizationSlugs(ctx: RequestContext, ids?: string[]): Promise<string[]> {
  const rows = await ctx.em
    .getConnection()
    .execute<{ slug: string }[]>(
      `select slug from organization where archived is not true${ids ? ' and id = any(?::uuid[])' : ''} order by slug`,
      ids ? [`{${ids.join(',')}}`] : [],
      'all',
      ctx.em.getTransactionContext(),
    );
  return rows.map((row) => row.slug);
}
