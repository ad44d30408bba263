import type { EntityClass } from '@mikro-orm/core';
import { PlatformUser } from '../entities/platform-user';
import { BadRequestError } from '../errors/api-error';
import { fieldsOf, type FieldMeta } from '../model/fields';
import type { Resource } from '../model/resource';
import { resolveFieldPath, type ResolvedPath } from '../query/field-path';
import type { FilterField } from '../query/filter';
import type { SortTerm } from '../query/sort';
import type { RequestContext } from './context';
import { viewerOf } from './tenancy';

/**
 * The fields of a user that every caller who reads the user gets with their values. Every other field
 * of a user read by another user (not an administrator) is answered empty of its type, so that a
 * profile is never more than a name card outside its owner and the administrators.
 */
export const PUBLIC_USER_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'uuid',
  'createdOn',
  'updatedOn',
  'changeSequence',
  'email',
  'firstName',
  'lastName',
  'image',
  'active',
  'userType',
]);

type Row = Record<string, unknown>;

/** Whether the caller reads every field of user `id`: the server itself, administrators, the user. */
export function seesWholeUser(ctx: RequestContext, id: unknown): boolean {
  return viewerOf(ctx) !== 'member' || (ctx.user !== undefined && ctx.user.id === id);
}

/**
 * The user as the caller may read it: unchanged for themselves and administrators; for anyone else, a
 * new object with the public fields as stored and every other declared field empty (properties the ORM
 * maps beyond the declared fields, such as the sign-in subject, are left out).
 */
export function userAsSeenBy<T extends object>(ctx: RequestContext, user: T): T {
  const row = user as Row;
  if (seesWholeUser(ctx, row.id)) return user;
  const seen: Row = {};
  for (const field of fieldsOf(PlatformUser)) {
    if (!PUBLIC_USER_FIELDS.has(field.name)) seen[field.name] = emptyOf(field);
    // A GraphQL page reads the columns its selection needs only: the others stay absent.
    else if (field.name in row) seen[field.name] = row[field.name];
  }
  return seen as T;
}

/** The empty value of a field's type: "", false, 0, [] or {} (a nullable value, and JSON of no declared shape, null). */
export function emptyOf(field: FieldMeta): unknown {
  if (field.kind === 'json') {
    const type = field.options.schema?.type;
    return type === 'object' ? {} : type === 'array' ? [] : null;
  }
  if (field.kind === 'stringArray') return [];
  if (field.options.nullable) return null;
  switch (field.kind) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'int':
    case 'number':
      return 0;
    default:
      return null;
  }
}

/** The embedded references (`TeamMember.user`, `Project.owner`) of each resource that name a user. */
const userRelations = new WeakMap<Resource, string[]>();

function userRelationsOf(resource: Resource): string[] {
  let relations = userRelations.get(resource);
  if (!relations) {
    relations = resource.fields.filter((f) => f.reference?.embed && f.reference.target() === PlatformUser).map((f) => f.reference!.relation);
    userRelations.set(resource, relations);
  }
  return relations;
}

/**
 * The rows of `resource` as the caller may read them: users projected (userAsSeenBy), and so is each
 * user a row embeds. Every row the services answer passes here, so that REST and GraphQL, items, pages,
 * nested objects and subscriptions show the same projection. Rows that need nothing are returned as
 * they are (no copy).
 */
export function rowsSeenBy<T extends object>(ctx: RequestContext, resource: Resource, rows: T[]): T[] {
  if (viewerOf(ctx) !== 'member') return rows;
  if (resource.entity === PlatformUser) return rows.map((row) => userAsSeenBy(ctx, row));
  const relations = userRelationsOf(resource);
  if (relations.length === 0) return rows;
  return rows.map((row) => embeddingSeenBy(ctx, row, relations));
}

/** Whether the caller reads the stored fields of `resource` unprojected (references aside, which embed users). */
export function readsStoredFields(ctx: RequestContext, resource: Resource): boolean {
  return viewerOf(ctx) !== 'member' || resource.entity !== PlatformUser;
}

export function rowSeenBy<T extends object>(ctx: RequestContext, resource: Resource, row: T): T {
  return rowsSeenBy(ctx, resource, [row])[0];
}

function embeddingSeenBy<T extends object>(ctx: RequestContext, row: T, relations: string[]): T {
  let seen: Row | undefined;
  for (const relation of relations) {
    const user = (row as Row)[relation];
    if (typeof user !== 'object' || user === null) continue;
    seen ??= { ...(row as Row) };
    seen[relation] = userAsSeenBy(ctx, user);
  }
  return (seen ?? row) as T;
}

/**
 * Rows of this entity that the caller may not see are answered as if they did not exist (404 on a
 * read, 400 "no ... with id" as a reference), so that an id tells nobody whether such a user exists.
 */
export function hidesExistence(entity: EntityClass<object>): boolean {
  return entity === PlatformUser;
}

/**
 * A filter or sort that reads a field of a user that is not public would tell its value apart row by
 * row: refused (400) for callers who are not administrators, on users and through any relation to them.
 */
export function assertPublicPaths(ctx: RequestContext, entity: EntityClass<object>, filterFields: readonly FilterField[], sort: SortTerm[]): void {
  if (viewerOf(ctx) !== 'member') return;
  for (const term of sort) {
    const path = resolveFieldPath(entity, term.path, 'sort');
    if (endsOnPrivateUserField(entity, path)) throw refusal('sort', term.path);
  }
  for (const field of filterFields) {
    if (endsOnPrivateUserField(field.entity, field.path)) throw refusal('filter', field.selector);
  }
}

function endsOnPrivateUserField(entity: EntityClass<object>, path: ResolvedPath): boolean {
  const owner = path.relations.length ? path.relations[path.relations.length - 1].target : entity;
  return owner === PlatformUser && !PUBLIC_USER_FIELDS.has(path.field.name);
}

function refusal(parameter: string, shown: string): BadRequestError {
  return BadRequestError.forField(parameter, `"${shown}" is not a public field of a user: only ${[...PUBLIC_USER_FIELDS].join(', ')} may be used here`);
}
