import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { identityOf, requireCaller } from '../auth/authenticate';
import { resources } from '../catalog/registry';
import { signInFromClaims } from '../modules/access/accounts';
import { RequestContext } from '../engine/context';
import type { Services } from '../engine/services';
import { methodNotAllowed } from './method-not-allowed';
import { present } from './present';
import { rowNotModified } from './validators';

const users = resources.find((r) => r.path === 'users')!;

/**
 * POST /api/account/callback: after an identity-provider sign-in, creates or updates the caller's
 * profile from the bearer token's claims. With other credentials it answers the caller's profile
 * unchanged; another method is 405. Mounted before `requireCaller`: a first sign-in has verified claims
 * but no user yet.
 */
export function accountCallbackRouter(orm: MikroORM, services: Services): Router {
  const router = Router();
  const callerOrClaims = (req: Request, res: Response, next: NextFunction) => (identityOf(req).claims ? next() : requireCaller(req, res, next));
  router.post('/api/account/callback', callerOrClaims, async (req: Request, res: Response) => {
    const { context, claims } = identityOf(req);
    const ctx = context ?? new RequestContext(orm.em.fork() as EntityManager, { kind: 'system' }, services);
    res.json(await present(ctx, users, claims ? await signInFromClaims(ctx, claims) : ctx.user!));
  });
  router.all('/api/account/callback', methodNotAllowed(['POST']));
  return router;
}

/**
 * GET /api/account/me: the caller's PlatformUser, with its row's ETag as GET /api/users/{id} has it;
 * another method is 405.
 */
export function accountRouter(): Router {
  const router = Router();
  router.get('/api/account/me', async (req: Request, res: Response) => {
    const ctx = identityOf(req).context!;
    if (rowNotModified(req, res, ctx.user!)) return;
    res.json(await present(ctx, users, ctx.user!));
  });
  router.all('/api/account/me', methodNotAllowed(['GET']));
  return router;
}
