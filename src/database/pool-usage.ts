import type { MikroORM } from '@mikro-orm/core';
import { AbstractSqlConnection } from '@mikro-orm/postgresql';

/** Connections of a pool lent out now, and requests waiting for one. */
export interface PoolUsage {
  inUse: number;
  waiting: number;
}

/** The part of knex's connection pool (tarn) that tells its usage. */
interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
}

function isTarnPool(pool: unknown): pool is TarnPool {
  const candidate = pool as Partial<TarnPool> | null | undefined;
  return typeof candidate?.numUsed === 'function' && typeof candidate.numPendingAcquires === 'function';
}

/** The usage of the ORM's own pool (knex's); none in use when it has no pool (closed, or never connected). */
export function ormPoolUsage(orm: MikroORM): PoolUsage {
  const connection = orm.em.getConnection();
  if (!(connection instanceof AbstractSqlConnection)) return { inUse: 0, waiting: 0 };
  const pool: unknown = connection.getKnex().client?.pool;
  return isTarnPool(pool) ? { inUse: pool.numUsed(), waiting: pool.numPendingAcquires() } : { inUse: 0, waiting: 0 };
}
