import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import { AccessToken } from '../entities/access-token';
import { isPlatformAdmin, PlatformUser } from '../entities/platform-user';
import { UnauthenticatedError } from '../errors/api-error';
import { RequestContext, type Actor } from '../services/context';
import type { Services } from '../services/services';
import { hashApiKey } from './api-keys';

/** The API key of a request: `x-api-key`, or the legacy `x-access-token` when it is absent. */
export function presentedApiKey(req: Request): string | undefined {
  const header = req.headers['x-api-key'] ?? req.headers['x-access-token'];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || undefined;
}

/** Resolves the caller of every request below it and attaches the request's context; 401 when nobody is recognised. */
export function authenticate(orm: MikroORM, services: Services) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const em = orm.em.fork() as EntityManager;
    const actor = await actorFromApiKey(em, presentedApiKey(req));
    if (!actor) return next(new UnauthenticatedError('missing or invalid credentials: send an API key in the x-api-key header'));
    (req as Request & { context: RequestContext }).context = new RequestContext(em, actor, services);
    next();
  };
}

async function actorFromApiKey(em: EntityManager, key: string | undefined): Promise<Actor | undefined> {
  if (!key) return undefined;
  const token = await em.findOne(AccessToken, { tokenHash: hashApiKey(key) });
  if (!token || (token.expiresAt && token.expiresAt.getTime() <= Date.now())) return undefined;
  const user = await em.findOne(PlatformUser, { id: token.userId, active: true });
  if (!user) return undefined;
  return { kind: 'user', user, isAdmin: isPlatformAdmin(user), accessTokenId: token.id };
}
