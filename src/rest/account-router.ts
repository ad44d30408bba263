import { Router, type Request, type Response } from 'express';
import { findUserByClaims, identityOf } from '../auth/authenticate';
import { UnauthenticatedError } from '../errors/api-error';
import { resources } from '../model/registry';
import { syncProfileFromClaims } from '../services/accounts';
import { RequestContext } from '../services/context';
import type { Services } from '../services/services';
import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { present } from './present';

const users = resources.find((r) => r.path === 'users')!;

/**
 * POST /api/account/callback: after an identity-provider sign-in, creates or updates the caller's
 * profile from the bearer token's claims (answered as the PlatformUser). With other credentials it
 * answers the caller's profile unchanged. Mounted before `requireCaller`: a first sign-in has no user yet.
 */
export function accountCallbackRouter(orm: MikroORM, services: Services): Router {
  const router = Router();
  router.post('/api/account/callback', async (req: Request, res: Response) => {
    const identity = identityOf(req);
    const ctx = identity.context ?? new RequestContext(orm.em.fork() as EntityManager, { kind: 'system' }, services);
    if (!identity.claims) {
      if (!identity.context?.user) throw new UnauthenticatedError(identity.refusal ? `invalid credentials: ${identity.refusal}` : 'authentication required');
      res.json(await present(ctx, users, identity.context.user));
      return;
    }
    const user = await syncProfileFromClaims(ctx, identity.claims, await findUserByClaims(ctx.em, identity.claims));
    res.json(await present(ctx, users, await services.resource('users').get(ctx.asSystem(), user.id)));
  });
  return router;
}

/** GET /api/account/me: the caller's PlatformUser. */
export function accountRouter(): Router {
  const router = Router();
  router.get('/api/account/me', async (req: Request, res: Response) => {
    const ctx = identityOf(req).context!;
    res.json(await present(ctx, users, ctx.user!));
  });
  return router;
}
