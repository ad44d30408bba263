import type { MikroORM } from '@mikro-orm/core';
import type { Request, Response } from 'express';

/** GET /health (no credentials): the server's and the database's state. */
export function healthHandler(orm: MikroORM) {
  return async (_req: Request, res: Response): Promise<void> => {
    const database = await orm.isConnected().catch(() => false);
    res.status(database ? 200 : 503).json({ status: database ? 'UP' : 'DOWN', database: database ? 'UP' : 'DOWN' });
  };
}
