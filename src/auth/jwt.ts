import { createPublicKey, type KeyObject } from 'node:crypto';
import { UnauthenticatedError } from '../errors/api-error';
import { logger } from '../logging/logger';

/** jose is an ES module; this project compiles to CommonJS, so it is loaded with import(). */
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
type JWTVerifyGetKey = ReturnType<Jose['createRemoteJWKSet']>;
export type JWTPayload = Awaited<ReturnType<Jose['jwtVerify']>>['payload'];

export interface JwtSettings {
  jwksUrl?: string;
  publicKeyPem?: string;
  issuer?: string;
  audience?: string;
  /** Seconds of clock skew tolerated on exp/nbf/iat. */
  clockToleranceSeconds: number;
  /** Least time between two JWKS downloads; an unknown `kid` triggers one once it has passed. */
  jwksCooldownMs: number;
}

export function jwtSettingsFromEnv(): JwtSettings {
  return {
    jwksUrl: process.env.AUTH_JWT_JWKS_URL || undefined,
    publicKeyPem: process.env.AUTH_JWT_PUBLIC_KEY_PEM || undefined,
    issuer: process.env.AUTH_JWT_ISSUER || undefined,
    audience: process.env.AUTH_JWT_AUDIENCE || undefined,
    clockToleranceSeconds: 30,
    jwksCooldownMs: 30_000,
  };
}

/** Verifies bearer tokens against a JWKS (keys cached, refreshed on an unknown `kid`) or one public key. */
export class JwtVerifier {
  private constructor(
    private readonly settings: JwtSettings,
    private readonly jose: Jose,
    private readonly key?: KeyObject | JWTVerifyGetKey,
  ) {}

  static async create(settings: JwtSettings): Promise<JwtVerifier> {
    const jose = await import('jose');
    if ((settings.jwksUrl || settings.publicKeyPem) && (!settings.issuer || !settings.audience)) {
      logger.warn('bearer tokens are accepted without an issuer or audience check: set AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE');
    }
    if (settings.jwksUrl) {
      const jwks = jose.createRemoteJWKSet(new URL(settings.jwksUrl), { cooldownDuration: settings.jwksCooldownMs, cacheMaxAge: 10 * 60_000 });
      return new JwtVerifier(settings, jose, jwks);
    }
    // A PEM given in one line of an environment file carries literal \n sequences.
    const key = settings.publicKeyPem ? createPublicKey(settings.publicKeyPem.replace(/\\n/g, '\n')) : undefined;
    return new JwtVerifier(settings, jose, key);
  }

  get enabled(): boolean {
    return this.key !== undefined;
  }

  async verify(token: string): Promise<JWTPayload> {
    if (!this.key) throw new UnauthenticatedError('bearer tokens are not accepted by this server');
    try {
      const options = {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: this.settings.clockToleranceSeconds,
        // A token without an expiry would be valid forever.
        requiredClaims: ['exp'],
        algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
      };
      const { payload } =
        typeof this.key === 'function' ? await this.jose.jwtVerify(token, this.key, options) : await this.jose.jwtVerify(token, this.key, options);
      return payload;
    } catch (error) {
      throw new UnauthenticatedError(`invalid bearer token: ${describe(this.jose.errors, error)}`);
    }
  }
}

function describe(errors: Jose['errors'], error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim "${error.claim}" ${error.reason === 'check_failed' ? 'does not match' : error.reason}`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature does not verify';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key matches its kid';
  if (error instanceof errors.JOSEError) return error.code;
  return 'malformed';
}
