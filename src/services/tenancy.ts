import { ForbiddenError } from '../errors/api-error';
import type { Resource, WriteAction } from '../model/resource';
import { nest } from '../query/field-path';
import type { RequestContext } from './context';

type Condition = Record<string, unknown>;

/** The caller's organizations: every one they reach through a team, and those where they are in `owners`. */
export interface Memberships {
  member: Set<string>;
  owner: Set<string>;
}

/** The team whose members own an organization: they alone manage its teams, members and secrets. */
export const OWNERS_TEAM_SLUG = 'owners';

/** Looked up once per request (and again after a write that may change them); archived organizations grant nothing. */
export function memberships(ctx: RequestContext): Promise<Memberships> {
  const user = ctx.user;
  if (!user) return Promise.resolve({ member: new Set(), owner: new Set() });
  ctx.memberships ??= ctx.services.accessCache.get(`memberships:${user.id}`, () => loadMemberships(ctx, user.id)) as Promise<Memberships>;
  return ctx.memberships;
}

async function loadMemberships(ctx: RequestContext, userId: string): Promise<Memberships> {
  const rows = await ctx.em.getConnection().execute<{ organization_id: string; owner: boolean }[]>(
    `select t.organization_id, bool_or(t.slug = ?) as owner
       from team_member m join team t on t.id = m.team_id join organization o on o.id = t.organization_id
      where m.user_id = ? and o.archived is not true group by t.organization_id`,
    [OWNERS_TEAM_SLUG, userId],
    'all',
    ctx.em.getTransactionContext(),
  );
  return {
    member: new Set(rows.map((r) => r.organization_id)),
    owner: new Set(rows.filter((r) => r.owner).map((r) => r.organization_id)),
  };
}

/** The rows of `resource` the caller may see, as a condition; undefined when nothing is hidden. */
export async function visibleRows(ctx: RequestContext, resource: Resource): Promise<Condition | undefined> {
  if (ctx.isAdmin) return undefined;
  const scope = resource.scope;
  switch (scope.kind) {
    case 'global':
      return undefined;
    case 'user':
      return nest(scope.path.split('.'), ctx.user?.id ?? null);
    case 'organization': {
      const mine = await memberships(ctx);
      return nest(scope.path.split('.'), { $in: [...(resource.readers === 'owner' ? mine.owner : mine.member)] });
    }
    case 'colleagues':
      return { id: { $in: [ctx.user?.id, ...(await colleagueIds(ctx))].filter(Boolean) } };
  }
}

/** Users who share an organization with the caller. */
async function colleagueIds(ctx: RequestContext): Promise<string[]> {
  const organizations = [...(await memberships(ctx)).member];
  if (organizations.length === 0) return [];
  const rows = await ctx.em
    .getConnection()
    .execute<{ user_id: string }[]>(
      `select distinct m.user_id from team_member m join team t on t.id = m.team_id where t.organization_id = any(?::uuid[])`,
      [`{${organizations.join(',')}}`],
      'all',
      ctx.em.getTransactionContext(),
    );
  return rows.map((r) => r.user_id);
}

/**
 * The rows of `resource` the caller may create, change or delete, as a condition (undefined: no
 * restriction); a caller who may not write the resource at all is refused at once.
 */
export async function writableRows(ctx: RequestContext, resource: Resource, action: WriteAction): Promise<Condition | undefined> {
  if (ctx.isAdmin) return undefined;
  const who = resource.access[action];
  const path = resource.scope.kind === 'organization' || resource.scope.kind === 'user' ? resource.scope.path.split('.') : ['id'];
  switch (who) {
    case 'anyone':
      return undefined;
    case 'admin':
      throw new ForbiddenError(`only platform administrators may ${action} ${resource.listName}`);
    case 'self':
      return nest(path, ctx.user?.id ?? null);
    case 'owner':
      return nest(path, { $in: [...(await memberships(ctx)).owner] });
    case 'member':
      return visibleRows(ctx, resource);
  }
}

/** Rows DELETE has hidden. */
export function liveRows(resource: Resource): Condition | undefined {
  const mode = resource.delete;
  if (mode.kind !== 'soft' || !mode.hide) return undefined;
  const kept = { [mode.field]: { $ne: mode.value } };
  const nullable = resource.fields.find((f) => f.name === mode.field)?.options.nullable;
  return nullable ? { $or: [kept, { [mode.field]: null }] } : kept;
}

export function and(...conditions: (Condition | undefined)[]): Condition {
  const present = conditions.filter((c): c is Condition => c !== undefined && Object.keys(c).length > 0);
  if (present.length === 0) return {};
  return present.length === 1 ? present[0] : { $and: present };
}
