import { ForbiddenError } from '../errors/api-error';
import { PARENT_HIDDEN, tenantKeyOf } from '../model/tenant-keys';
import { hidingFields, type Resource, type WriteAction } from '../model/resource';
import type { ResourceOf } from './item-statement';
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

/** A request's memberships and the access-cache version they were loaded at. */
export interface LoadedMemberships {
  version: number;
  value: Promise<Memberships>;
}

/**
 * Looked up once per request, and again after a write that may change them or once any change of
 * access has been seen since (a running request's later reads follow it); archived organizations grant nothing.
 */
export function memberships(ctx: RequestContext): Promise<Memberships> {
  const user = ctx.user;
  if (!user) return Promise.resolve({ member: new Set(), owner: new Set() });
  const cache = ctx.services.accessCache;
  const loaded = ctx.memberships;
  if (loaded?.version === cache.version) return loaded.value;
  // Read again inside a transaction that has announced a change, its own uncommitted view is not for the cache.
  const value = loaded && ctx.em.isInTransaction() ? loadMemberships(ctx, user.id) : cache.get(`memberships:${user.id}`, () => loadMemberships(ctx, user.id));
  ctx.memberships = { version: cache.version, value: value as Promise<Memberships> };
  return ctx.memberships.value;
}

/**
 * Everything a statement written for the caller may hold of their access, as a key: the kind of caller,
 * their user id and, for members, their organizations (owned ones apart) and the access-cache version
 * these were loaded at (colleagues are read at it too). Two callers with the same key read the same rows.
 */
export async function accessKey(ctx: RequestContext): Promise<string> {
  const viewer = viewerOf(ctx);
  const caller = `${viewer}:${ctx.user?.id ?? ''}`;
  if (viewer !== 'member') return caller;
  const mine = await memberships(ctx);
  const sorted = (organizations: Set<string>) => [...organizations].sort().join(',');
  return `${caller}:${ctx.memberships?.version}:${sorted(mine.member)}:${sorted(mine.owner)}`;
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

/** Who reads: the server itself (nothing hidden), a platform administrator, or any other user. */
export type Viewer = 'system' | 'admin' | 'member';

export function viewerOf(ctx: RequestContext): Viewer {
  return ctx.actor.kind === 'system' ? 'system' : ctx.isAdmin ? 'admin' : 'member';
}

/** The rows of `resource` the caller may see, as a condition; undefined when nothing is hidden. */
export async function visibleRows(ctx: RequestContext, resource: Resource): Promise<Condition | undefined> {
  return all(await tenantRows(ctx, resource), privateRows(ctx, resource));
}

/** The rows of `resource` in the caller's reach by its tenant scope alone (everything for administrators). */
async function tenantRows(ctx: RequestContext, resource: Resource): Promise<Condition | undefined> {
  if (ctx.isAdmin) return undefined;
  const scope = resource.scope;
  switch (scope.kind) {
    case 'global':
      return undefined;
    case 'user':
      return nest(scope.path.split('.'), ctx.user?.id ?? null);
    case 'organization':
      return ofOrganizations(resource, await readableOrganizations(ctx, resource));
    case 'colleagues':
      return { id: { $in: [ctx.user?.id, ...(await colleagueIds(ctx))].filter(Boolean) } };
  }
}

/** The organizations whose rows of an organization's `resource` a member may read: those they belong to, or own (`readers: 'owner'`). */
export async function readableOrganizations(ctx: RequestContext, resource: Resource): Promise<Set<string>> {
  const mine = await memberships(ctx);
  return resource.readers === 'owner' ? mine.owner : mine.member;
}

/**
 * The rows a resource's `privacy` lets the caller see (model/resource.ts), administrators included;
 * undefined when it hides nothing from them. item-statement.ts writes the same rule in SQL.
 */
export function privateRows(ctx: RequestContext, resource: Resource): Condition | undefined {
  const viewer = viewerOf(ctx);
  if (viewer === 'system') return undefined;
  return privacyCondition(resource, viewer, ctx.user?.id, (entity) => ctx.services.forEntity(entity)?.resource);
}

function privacyCondition(resource: Resource, viewer: Exclude<Viewer, 'system'>, userId: string | undefined, resourceOf: ResourceOf): Condition | undefined {
  const privacy = resource.privacy;
  if (!privacy) return undefined;
  if ('follows' in privacy) {
    const target = resourceOf(resource.fields.find((f) => f.name === privacy.follows)!.reference!.target());
    const followed = target && privacyCondition(target, viewer, userId, resourceOf);
    return followed && { [privacy.follows]: followed };
  }
  const hiding = hidingFields(privacy, viewer === 'admin');
  if (hiding.length === 0) return undefined;
  const shared = and(...hiding.map((field) => ({ [field]: null })));
  return userId ? { $or: [{ [privacy.owner]: userId }, shared] } : shared;
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
 * restriction); a caller who may not write the resource at all is refused at once. Rows hidden by
 * the resource's privacy are never writable, whoever the writer.
 */
export async function writableRows(ctx: RequestContext, resource: Resource, action: WriteAction): Promise<Condition | undefined> {
  return all(await writerRows(ctx, resource, action), privateRows(ctx, resource));
}

async function writerRows(ctx: RequestContext, resource: Resource, action: WriteAction): Promise<Condition | undefined> {
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
      return resource.scope.kind === 'organization'
        ? ofOrganizations(resource, (await memberships(ctx)).owner)
        : nest(path, { $in: [...(await memberships(ctx)).owner] });
    case 'member':
      return tenantRows(ctx, resource);
  }
}

/** Rows of these organizations, by the row's own tenant key (model/tenant-keys.ts): a column of the row's table. */
function ofOrganizations(resource: Resource, organizations: Set<string>): Condition {
  return { [tenantKeyOf(resource)!.property]: { $in: [...organizations] } };
}

/**
 * Live rows: not hidden by DELETE, nor by a parent on the tenancy path (undefined: nothing hides them).
 * Equalities, so that a tenant's live rows are one range of its (key, deleted, parentHidden, ...) index.
 */
export function liveRows(resource: Resource): Condition | undefined {
  return all(ownLiveRows(resource), liveParentRows(resource));
}

function ownLiveRows(resource: Resource): Condition | undefined {
  const mode = resource.delete;
  if (mode.kind !== 'soft' || !mode.hide) return undefined;
  const nullable = resource.fields.find((f) => f.name === mode.field)?.options.nullable;
  return nullable ? { $or: [{ [mode.field]: { $ne: mode.value } }, { [mode.field]: null }] } : { [mode.field]: !mode.value };
}

/** Rows whose parents on the tenancy path are live, whether or not DELETE has hidden the row itself. */
export function liveParentRows(resource: Resource): Condition | undefined {
  return tenantKeyOf(resource)?.hideable ? { [PARENT_HIDDEN.property]: false } : undefined;
}

/** The conjunction of the conditions, undefined when there is none (nothing hidden). */
function all(...conditions: (Condition | undefined)[]): Condition | undefined {
  return conditions.some((c) => c !== undefined) ? and(...conditions) : undefined;
}

export function and(...conditions: (Condition | undefined)[]): Condition {
  const present = conditions.filter((c): c is Condition => c !== undefined && Object.keys(c).length > 0);
  if (present.length === 0) return {};
  return present.length === 1 ? present[0] : { $and: present };
}
