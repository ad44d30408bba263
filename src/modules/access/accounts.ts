import type { EntityManager } from '@mikro-orm/postgresql';
import { PlatformUser } from '../../entities/platform-user';
import { BadRequestError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';

/** The claims of a verified bearer token that identify and describe its user. */
export interface TokenClaims {
  sub?: string;
  [claim: string]: unknown;
}

/** Profile fields taken from standard OpenID Connect claims. */
function profileFromClaims(claims: TokenClaims): Record<string, unknown> {
  const text = (name: string) => (typeof claims[name] === 'string' ? (claims[name] as string) : undefined);
  const profile = { firstName: text('given_name'), lastName: text('family_name'), image: text('picture') };
  return Object.fromEntries(Object.entries(profile).filter(([, v]) => v !== undefined));
}

/**
 * Creates or updates the PlatformUser a verified bearer token describes (found by `sub`, then email),
 * and binds the token's subject to it. Runs as the system: the caller may not have a user yet.
 */
export async function signInFromClaims(ctx: RequestContext, claims: TokenClaims): Promise<PlatformUser> {
  const existing = await findUserByClaims(ctx.em, claims);
  const email = typeof claims.email === 'string' ? claims.email : existing?.email;
  if (!email) throw BadRequestError.forField('email', 'the token carries no email claim');
  const system = ctx.asSystem();
  const users = ctx.services.resource('users');
  return ctx.transaction(async (tx) => {
    const user = existing
      ? await users.update(system, existing.id, { email, ...profileFromClaims(claims) })
      : await users.create(system, { email, ...profileFromClaims(claims) });
    if (claims.sub) await tx.em.nativeUpdate(PlatformUser, { id: user.id }, { authSubject: claims.sub });
    // Read back as a plain row, subject binding included, like every other answer.
    return (await users.get(tx.asSystem(), user.id)) as PlatformUser;
  });
}

/**
 * The user a token names: by `sub` first; otherwise by its email claim, but only when the identity
 * provider vouches for the email (`email_verified: true`) and that user is not bound to another subject.
 */
export async function findUserByClaims(em: EntityManager, claims: TokenClaims): Promise<PlatformUser | null> {
  if (claims.sub) {
    const bySubject = await em.findOne(PlatformUser, { authSubject: claims.sub });
    if (bySubject) return bySubject;
  }
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : undefined;
  if (!email || claims.email_verified !== true) return null;
  return em.findOne(PlatformUser, { email, authSubject: null });
}
