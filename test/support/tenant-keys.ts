import { UnderscoreNamingStrategy, type MikroORM } from '@mikro-orm/core';
import type pg from 'pg';
import { resources } from '../../src/catalog/registry';
import { hiddenSql, PARENT_HIDDEN, quote, tenantKeyOf } from '../../src/model/tenant-keys';

/**
 * Rows whose tenant key or liveness flag disagrees with their parent's (at most a few per table), in
 * one statement over every table below an organization: what a write path that bypassed the database's
 * triggers, or a trigger that missed a case, would leave behind. Empty when every row is right.
 */
export async function tenantKeyViolations(database: MikroORM | pg.ClientBase): Promise<{ table: string; id: string }[]> {
  const naming = new UnderscoreNamingStrategy();
  const tableOf = (entity: { name: string }) => naming.classToTableName(entity.name);
  const checks = resources.flatMap((resource) => {
    const key = tenantKeyOf(resource);
    if (!key?.parent) return [];
    const parent = resources.find((r) => r.entity === key.parent!.entity)!;
    const parentKey = tenantKeyOf(parent)!;
    const table = tableOf(resource.entity);
    return [
      `(select '${table}' as "table", c."id" from ${quote(table)} c left join ${quote(tableOf(parent.entity))} p on p."id" = c.${quote(key.parent.column)}
         where c.${quote(key.column)} is distinct from p.${quote(parentKey.column)}
            or c.${quote(PARENT_HIDDEN.column)} is distinct from coalesce(${hiddenSql(parent, 'p')}, false) limit 5)`,
    ];
  });
  const sql = checks.join(' union all ');
  if ('em' in database) return database.em.fork().getConnection().execute(sql);
  return (await database.query(sql)).rows;
}
