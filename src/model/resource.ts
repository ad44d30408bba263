import type { EntityClass } from '@mikro-orm/core';
import { fieldsOf, type FieldMeta } from './fields';
import { camelCase, lowerFirst } from './naming';

/**
 * Who may see a row, expressed as the path from the entity to the organization id that owns it
 * (`organizationId`, `projectId.organizationId`, ...), or `global` for platform-wide resources.
 */
export type TenantScope =
  | { kind: 'global' }
  | { kind: 'organization'; path: string }
  | { kind: 'user'; path: string }
  /** Users: the caller and the members of the caller's organizations. */
  | { kind: 'colleagues' };

export type WriteAction = 'create' | 'update' | 'delete';

/** Which writes a collection serves (default: all); list, get and sequence are always served. */
export type Operations = Record<WriteAction, boolean>;

/**
 * Who may write rows they can see: any caller, members of the row's organization, its owners (the
 * `owners` team), the user the row belongs to, or platform administrators only (who may do anything).
 */
export type Writer = 'anyone' | 'member' | 'owner' | 'self' | 'admin';

/** How DELETE treats the row: flag it and hide it, flag it and keep it visible, or remove it. */
export type DeleteMode = { kind: 'hard' } | { kind: 'soft'; field: string; value: boolean; hide: boolean; stamp: boolean };

export type Paging = 'zero-based' | 'one-based';

/** The order of a list that names none: oldest first, or newest first (task activities). */
export type DefaultOrder = 'oldest-first' | 'newest-first';

/** Who may read the rows of an organization's resource: its members, or its owners alone (secrets). */
export type Reader = 'member' | 'owner';

/** Who sees a private row besides the user who owns it: platform administrators, or nobody. */
export type PrivateTo = 'administrators' | 'owner';

/**
 * Rows that belong to one user, on top of their organization's tenancy (chats). `owner` names the
 * reference to that user: server-set to the caller who creates the row, never written by a body, and
 * that user always sees the row. A row with a `privateWhen` field set is private: seen, besides its
 * owner, by platform administrators (`administrators`) or by nobody (`owner`, administrators
 * included); with several of them set, the narrowest applies. A row with none set is read as any row
 * of its scope. `follows` instead: the row is seen exactly when the row its reference names is (a
 * message, when its channel is). Lists, gets, nested GraphQL fields, filters and sorts through
 * relations, and writes all apply it (engine/tenancy.ts, engine/item-statement.ts).
 */
export type Privacy = { owner: string; privateWhen: Record<string, PrivateTo> } | { follows: string };

/**
 * A collection served below one row of another (`organizations/{orgId}/secrets`): `param` is the path
 * parameter naming that row and `field` the reference that holds it.
 */
export interface Parent {
  param: string;
  field: string;
}

export interface ResourceOptions<T extends object> {
  /** Collection path under /api, e.g. `team-members`, or `organizations/{orgId}/secrets` below a `parent`. */
  path: string;
  /** Served below a row of another collection; its `{param}` is part of `path`. */
  parent?: Parent;
  /** GraphQL list query (default: the path in camel case). */
  listName?: string;
  /** Who may read the rows (default: members of the row's organization). */
  readers?: Reader;
  /** Rows private to the user who owns them (default: none), see `Privacy`. */
  privacy?: Privacy;
  /** The order of a list that names no sort (default: oldest first). */
  order?: DefaultOrder;
  entity: EntityClass<T>;
  scope: TenantScope;
  delete: DeleteMode;
  paging?: Paging;
  /** Who may create, update and delete (default: members of the row's organization). */
  access?: Partial<Record<WriteAction, Writer>>;
  /**
   * Writes the collection does not have (`{ update: false }`, or `readOnly`): REST answers 405 with an
   * `Allow` header, GraphQL declares no such mutation and OpenAPI lists no such operation.
   */
  operations?: Partial<Operations>;
  /** Its writes change who may do what (keys, users, teams, memberships): cached credentials are dropped. */
  affectsAccess?: boolean;
}

/** Everything the adapters and the engine need to serve one collection; its business rules are its domain module's (modules/). */
export interface Resource<T extends object = object> extends Required<Omit<ResourceOptions<T>, 'access' | 'operations' | 'parent' | 'privacy'>> {
  parent?: Parent;
  privacy?: Privacy;
  access: Record<WriteAction, Writer>;
  operations: Operations;
  /** Entity (and schema) name, e.g. `TeamMember`. */
  name: string;
  /** GraphQL list query, e.g. `teamMembers`. */
  listName: string;
  /** GraphQL single-item query and mutation suffix, e.g. `teamMember` / `createTeamMember`. */
  itemName: string;
  fields: FieldMeta[];
}

export function defineResource<T extends object>(options: ResourceOptions<T>): Resource<T> {
  const name = options.entity.name;
  if (options.privacy) checkPrivacy(name, fieldsOf(options.entity), options.privacy);
  return {
    paging: 'zero-based',
    affectsAccess: false,
    readers: 'member',
    order: 'oldest-first',
    listName: camelCase(options.path),
    ...options,
    access: { create: 'member', update: 'member', delete: 'member', ...options.access },
    operations: { create: true, update: true, delete: true, ...options.operations },
    name,
    itemName: lowerFirst(name),
    fields: fieldsOf(options.entity),
  };
}

/** The fields a privacy declaration names must exist; its owner must be server-set (a body never names another user). */
function checkPrivacy(name: string, fields: FieldMeta[], privacy: Privacy): void {
  const field = (property: string) => {
    const found = fields.find((f) => f.name === property);
    if (!found) throw new Error(`${name}: privacy names ${property}, which is not one of its fields`);
    return found;
  };
  if ('follows' in privacy) {
    if (!field(privacy.follows).reference) throw new Error(`${name}: privacy follows ${privacy.follows}, which is not a reference`);
    return;
  }
  const owner = field(privacy.owner);
  if (!owner.reference || (owner.options.writable ?? 'always') !== 'never')
    throw new Error(`${name}: the privacy owner ${privacy.owner} must be a server-set reference`);
  for (const property of Object.keys(privacy.privateWhen)) field(property);
}

/** The fields whose values decide who sees a row under its privacy declaration (none without one). */
export function privacyFields(resource: Resource): string[] {
  const privacy = resource.privacy;
  if (!privacy) return [];
  return 'follows' in privacy ? [privacy.follows] : [privacy.owner, ...Object.keys(privacy.privateWhen)];
}

/**
 * The fields that, when set, hide a row of an owner-declared privacy from a user who is not its owner:
 * every `privateWhen` field from a member, only those private to the owner alone from an administrator.
 * None: nothing is hidden from them. (Tenancy compiles this into conditions, item statements into SQL.)
 */
export function hidingFields(privacy: Extract<Privacy, { owner: string }>, administrator: boolean): string[] {
  return Object.entries(privacy.privateWhen)
    .filter(([, to]) => to === 'owner' || !administrator)
    .map(([field]) => field);
}

export const hardDelete: DeleteMode = { kind: 'hard' };
/** `deleted=true` with date and actor stamped; hidden afterwards. */
export const flagDeleted: DeleteMode = { kind: 'soft', field: 'deleted', value: true, hide: true, stamp: true };

/** The collection's path under /api with its parent's id filled in (`organizations/<id>/secrets`). */
export function collectionPath(resource: Resource, parentId?: string): string {
  if (!resource.parent) return resource.path;
  if (parentId === undefined) throw new Error(`${resource.path} is served below a parent: name its id`);
  return resource.path.replace(`{${resource.parent.param}}`, encodeURIComponent(parentId));
}

/** A collection served for reading only: no create, update or delete. */
export const readOnly: Partial<Operations> = { create: false, update: false, delete: false };
