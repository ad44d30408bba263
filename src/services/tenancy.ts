import type { Resource } from '../model/resource';
import { nest } from '../query/field-path';
import type { RequestContext } from './context';

type Condition = Record<string, unknown>;

/** Organization ids the caller reaches as a member of one of their teams (cached per request). */
export function memberOrganizationIds(ctx: RequestContext): Promise<Set<string>> {
  const user = ctx.user;
  if (!user) return Promise.resolve(new Set());
  ctx.memberships ??= ctx.em
    .getConnection()
    .execute<{ organization_id: string }[]>(
      'select distinct t.organization_id from team_member m join team t on t.id = m.team_id where m.user_id = ?',
      [user.id],
    )
    .then((rows) => new Set(rows.map((r) => r.organization_id)));
  return ctx.memberships;
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
    case 'organization':
      return nest(scope.path.split('.'), { $in: [...(await memberOrganizationIds(ctx))] });
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
