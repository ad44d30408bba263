import { findUserByClaims } from '../modules/access/accounts';
import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isPlatformAdmin, PlatformUser } from '../entities/platform-user';
import { ForbiddenError, UnauthenticatedError } from '../errors/api-error';
import { RequestContext, type Actor, type Credential } from '../engine/context';
import type { Services } from '../engine/services';
import { hashApiKey } from '../modules/access/api-keys';
import { readCredentials, type Credentials } from './credentials';
import type { JWTPayload, JwtVerifier } from './jwt';

/** What authentication learned about a request; attached to it before rate limiting. */
export interface Identity {
  context?: RequestContext;
  /** Verified bearer claims, also when no user matches them yet (see POST /api/account/callback). */
  claims?: JWTPayload;
  /** Why the credentials were refused, when they were. */
  refusal?: string;
  /** Whose budget the request counts against: the API key, the user, or the client address. */
  rateKey: string;
}

export function identityOf(req: Request): Identity {
  return (req as Request & { identity: Identity }).identity;
}

/** lastUsedAt is written at most this often per key, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface KeyOwnerRow {
  token_id: string;
  token_hash: string;
  expires_at: Date | null;
  last_used_at: Date | null;
  [column: string]: unknown;
}

/** Most API keys whose SHA-256 is remembered; past it the map starts afresh. */
const MAX_KEY_HASHES = 10_000;

/** Resolves the caller of a request from an API key, Basic `email:apiKey`, or a bearer JWT. */
/** The request's context, attached by authentication (routes below `requireCaller` always have one). */
export function contextOf(req: Request): RequestContext {
  return identityOf(req).context!;
}

export class Authenticator {
  /**
   * The digest of each API key that authenticated, so a repeat caller's key is not hashed again: the
   * digest of a text never changes, and the lookup by digest (and its refusals) is unchanged.
   */
  private readonly keyHashes = new Map<string, string>();

  constructor(
    private readonly orm: MikroORM,
    private readonly services: Services,
    private readonly jwt: JwtVerifier,
  ) {}

  /** Middleware: attaches the request's identity; never refuses (see `requireCaller`). */
  identify = async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    // The client address (req.ip parses X-Forwarded-For) is only read for a caller without a valid key or token.
    (req as Request & { identity: Identity }).identity = await this.resolve(req.headers, () => req.ip ?? req.socket.remoteAddress);
    next();
  };

  /**
   * What the credentials among `headers` prove, with a unit of work of its own: a request's headers, or
   * a WebSocket's connection parameters (the same names). `address` names an anonymous caller.
   */
  async resolve(headers: IncomingHttpHeaders, address: string | undefined | (() => string | undefined)): Promise<Identity> {
    const anonymous = () => `ip:${(typeof address === 'function' ? address() : address) ?? 'unknown'}`;
    const credentials = readCredentials(headers);
    if (credentials.kind === 'none') return { rateKey: anonymous() };
    if (credentials.kind === 'malformed') return { rateKey: anonymous(), refusal: credentials.reason };
    // What is read from here on is as current as this version (a change of access moves it).
    const version = this.services.accessCache.version;
    // Only a request with credentials gets a unit of work here: forking one costs more than reading its key.
    const em = this.orm.em.fork() as EntityManager;
    switch (credentials.kind) {
      case 'apiKey':
      case 'basic': {
        const owner = await this.keyCaller(em, credentials);
        if (typeof owner === 'string') return { rateKey: anonymous(), refusal: owner };
        await recordUse(em, owner);
        const context = this.context(em, owner.user, credentials.kind === 'basic' ? 'basic' : 'api-key', version, owner.tokenId);
        context.credentialCheck = async () => refusalIn(await this.keyCaller(this.orm.em.fork() as EntityManager, credentials));
        return { rateKey: `key:${owner.tokenId}`, context };
      }
      case 'bearer': {
        let claims: JWTPayload;
        try {
          claims = await this.jwt.verify(credentials.token);
        } catch (error) {
          return { rateKey: anonymous(), refusal: (error as Error).message };
        }
        const user = await this.claimant(em, claims);
        if (!user) return { rateKey: `sub:${claims.sub}`, claims, refusal: 'no user matches this token yet: call POST /api/account/callback' };
        if (!user.active) return { rateKey: `user:${user.id}`, refusal: DEACTIVATED };
        const context = this.context(em, user, 'bearer', version);
        context.credentialCheck = async () => {
          const now = await this.claimant(this.orm.em.fork() as EntityManager, claims);
          return now?.id === user.id && now.active ? undefined : DEACTIVATED;
        };
        return { rateKey: `user:${user.id}`, claims, context };
      }
    }
  }

  private context(em: EntityManager, user: PlatformUser, credential: Credential, version: number, accessTokenId?: string): RequestContext {
    const actor: Actor = { kind: 'user', user, isAdmin: isPlatformAdmin(user), credential, accessTokenId };
    const context = new RequestContext(em, actor, this.services);
    context.budget = this.services.requestBudget(user.id);
    context.credentialConfirmedAt(version);
    return context;
  }

  /** The user a bearer token's claims name (from the access cache when it names its subject). */
  private claimant(em: EntityManager, claims: JWTPayload): Promise<PlatformUser | null | undefined> {
    const find = () => findUserByClaims(em, claims);
    return claims.sub ? this.services.accessCache.get(`subject:${claims.sub}`, find) : find();
  }

  /** The owner of the API key sent (for Basic, if the email is theirs); a refusal reason otherwise. */
  private async keyCaller(em: EntityManager, credentials: Extract<Credentials, { key: string }>): Promise<KeyOwner | string> {
    const owner = await this.keyOwner(em, credentials.key);
    if (typeof owner === 'string') return owner;
    if (credentials.kind === 'basic' && !sameText(owner.user.email, credentials.email)) return 'the API key does not belong to that email';
    return owner;
  }

  /** The active owner of a live API key (from the access cache, or one statement); a refusal reason otherwise. */
  private async keyOwner(em: EntityManager, key: string): Promise<KeyOwner | string> {
    const hash = this.keyHashes.get(key) ?? hashApiKey(key);
    const owner = await this.services.accessCache.get(
      `key:${hash}`,
      () => findKeyOwner(em, hash),
      (found) => !refusalOf(found),
    );
    const refusal = owner ? refusalOf(owner) : 'unknown API key';
    if (refusal) return refusal;
    // Only keys that authenticate are remembered: unknown ones cannot fill the map.
    if (this.keyHashes.size >= MAX_KEY_HASHES) this.keyHashes.clear();
    this.keyHashes.set(key, hash);
    return owner!;
  }
}

/** Why a bearer token's user is refused once deactivated. */
const DEACTIVATED = 'this user is deactivated';

const refusalIn = (caller: KeyOwner | string): string | undefined => (typeof caller === 'string' ? caller : undefined);

interface KeyOwner {
  user: PlatformUser;
  tokenId: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

function refusalOf(owner: KeyOwner): string | undefined {
  if (owner.expiresAt && owner.expiresAt.getTime() <= Date.now()) return 'the API key has expired';
  if (!owner.user.active) return 'the owner of this API key is deactivated';
  return undefined;
}

async function findKeyOwner(em: EntityManager, hash: string): Promise<KeyOwner | undefined> {
  const [row] = await em.getConnection().execute<KeyOwnerRow[]>(
    `select t.id as token_id, t.token_hash, t.expires_at, t.last_used_at, u.*
       from access_token t join platform_user u on u.id = t.user_id
      where t.token_hash = ?`,
    [hash],
  );
  // The lookup is by digest; comparing the digests again in constant time keeps timing independent of the key.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  return {
    user: em.map(PlatformUser, row),
    tokenId: row.token_id,
    expiresAt: row.expires_at ? new Date(row.expires_at) : null,
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null,
  };
}

/**
 * Stamps lastUsedAt on a key that authenticated a request (at most once per LAST_USED_RESOLUTION_MS);
 * the owner may be the cached one, so it remembers the stamp too.
 */
async function recordUse(em: EntityManager, owner: KeyOwner): Promise<void> {
  if (owner.lastUsedAt && Date.now() - owner.lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return;
  owner.lastUsedAt = new Date();
  await em.getConnection().execute('update access_token set last_used_at = now() where id = ?', [owner.tokenId]);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a.toLowerCase());
  const right = Buffer.from(b.toLowerCase());
  return left.length === right.length && timingSafeEqual(left, right);
}

/** 401 for every request below it that has no recognised caller. */
export function requireCaller(req: Request, _res: Response, next: NextFunction): void {
  const identity = identityOf(req);
  if (identity.context) return next();
  next(
    new UnauthenticatedError(
      identity.refusal
        ? `invalid credentials: ${identity.refusal}`
        : 'authentication required: send an API key (in the x-api-key header, or as Authorization: Bearer <key>), or a bearer JWT',
    ),
  );
}

/** 403 for a recognised caller who is not a platform administrator (place after `requireCaller`). */
export function requirePlatformAdmin(req: Request, _res: Response, next: NextFunction): void {
  if (identityOf(req).context?.isAdmin) return next();
  next(new ForbiddenError('only platform administrators may read this'));
}
