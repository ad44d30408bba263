import DataLoader from 'dataloader';
import type { EntityClass } from '@mikro-orm/core';
import type { RequestContext } from './context';
import type { PageResult } from './page';
import type { ListParams } from './read-plan';
import type { ResourceService } from './resource-service';

/**
 * Per-request batching: every to-one lookup and every to-many page of one request level becomes one
 * `WHERE ... IN (...)` statement, whatever the number of parent rows.
 */
export class Loaders {
  private readonly loaders = new Map<unknown, DataLoader<string, unknown>>();

  constructor(private readonly ctx: RequestContext) {}

  /** Visible, live rows of an entity by id (null when missing or hidden). */
  byId<T extends object>(entity: EntityClass<T>): DataLoader<string, T | null> {
    return this.memo(
      entity,
      () =>
        new DataLoader<string, T | null>(async (ids) => {
          const service = this.ctx.services.forEntity(entity);
          const rows = service
            ? ((await service.findByIds(this.ctx, ids)) as unknown as (T & { id: string })[])
            : ((await this.ctx.em.find(entity, { id: { $in: [...ids] } } as never)) as (T & { id: string })[]);
          const byId = new Map(rows.map((row) => [row.id, row]));
          return ids.map((id) => byId.get(id) ?? null);
        }),
    );
  }

  /** The page of `service` rows whose `foreignKey` points at each parent id. */
  children(service: ResourceService, foreignKey: string, params: ListParams): DataLoader<string, PageResult<object>> {
    const key = `${service.resource.path}|${foreignKey}|${JSON.stringify(params)}`;
    return this.memo(
      key,
      () =>
        new DataLoader<string, PageResult<object>>(async (parentIds) => {
          const pages = await service.listByParents(this.ctx, foreignKey, parentIds, params);
          return parentIds.map((id) => pages.get(id)!);
        }),
    );
  }

  /** Forgets every row read so far: an export presents its rows batch by batch, in constant memory. */
  clear(): void {
    this.loaders.clear();
  }

  private memo<V>(key: unknown, create: () => DataLoader<string, V>): DataLoader<string, V> {
    let loader = this.loaders.get(key) as DataLoader<string, V> | undefined;
    if (!loader) {
      loader = create();
      this.loaders.set(key, loader as DataLoader<string, unknown>);
    }
    return loader;
  }
}
