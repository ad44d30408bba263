import type { EntityClass, EntityMetadata, MetadataStorage } from '@mikro-orm/core';
import type { PreparedStatement } from '../database/read-pool';
import { EMBEDDED_COLLECTION_MAX, embeddedCollectionsOf, fieldsOf, isAnswered, type EmbeddedCollection, type FieldMeta } from '../model/fields';
import { hidingFields, type Resource, type Writer } from '../model/resource';
import { liveSql, quote, tenantKeyOf } from '../model/tenant-keys';
import { isoTime } from './json-pages';
import type { Viewer } from './tenancy';

/**
 * The SQL of the hot reads, written once per resource from the same declarations the ORM maps: one row
 * by id (or rows by ids) with the tenant condition, the deleted-parent condition (both on the row's own
 * columns) and, for an answer,
 * every embedded reference, in a single prepared statement. Parameters: `$1` the id (or ids), then the
 * caller's organizations and user id where the statement needs them (administrators' variant: their user
 * id where a privacy declaration needs it; the server's own variant: neither).
 */
export interface ItemStatement extends PreparedStatement {
  /** What the statement reads after `$1`, in order. */
  parameters: ItemParameter[];
}

/** Resolves the resource that serves an entity (its scope and delete mode), if one does. */
export type ResourceOf = (entity: EntityClass<object>) => Resource | undefined;

/** What a statement binds after the id: the caller's organizations, those they own, their user id. */
export type ItemParameter = 'organizations' | 'owned' | 'user';

/** `one` and `many` read; `lock` takes the row for a write; `reference` checks a row named by another. */
export type ItemShape = 'one' | 'many' | 'lock' | 'reference';

/** The column of a `reference` statement holding the organization the row belongs to (null: none). */
export const ORGANIZATION_COLUMN = '__organization';

/** Columns computed in the statement rather than stored: whether the caller may see the row. */
export const VISIBLE_COLUMN = '__visible';

class Builder {
  private aliases = 0;
  readonly uses = new Set<ItemParameter>();

  constructor(
    private readonly metadata: MetadataStorage,
    private readonly resourceOf: ResourceOf,
    private readonly viewer: Viewer,
  ) {}

  /** Tenancy hides nothing from administrators (and from the server itself). */
  private get admin(): boolean {
    return this.viewer !== 'member';
  }

  alias(): string {
    return `r${this.aliases++}`;
  }

  meta(entity: EntityClass<object>): EntityMetadata {
    return this.metadata.get(entity.name);
  }

  table(entity: EntityClass<object>): string {
    return quote(this.meta(entity).tableName);
  }

  /** The column behind a property, or undefined when it is not stored. */
  column(entity: EntityClass<object>, property: string): string | undefined {
    const prop = this.meta(entity).properties[property];
    return prop && prop.persist !== false ? prop.fieldNames[0] : undefined;
  }

  /**
   * The organization the row belongs to: its tenant key, a column of its own table (model/tenant-keys.ts),
   * so that no statement joins up the tenancy path. Undefined outside organizations.
   */
  organization(resource: Resource, alias: string): string | undefined {
    const key = tenantKeyOf(resource);
    return key && `${alias}.${quote(key.column)}`;
  }

  /** Rows that DELETE hid, directly or through a parent, as a condition. */
  live(resource: Resource, alias: string): string | undefined {
    return liveSql(resource, alias);
  }

  /** Whether the caller may see the row (undefined: every row), as tenancy.ts decides it: its tenancy and its privacy. */
  visible(resource: Resource, alias: string, organization: string | undefined): string | undefined {
    const conditions = [this.tenant(resource, alias, organization), this.privacy(resource, alias)].filter((c): c is string => c !== undefined);
    return conditions.length ? conditions.join(' and ') : undefined;
  }

  private tenant(resource: Resource, alias: string, organization: string | undefined): string | undefined {
    if (this.admin) return undefined;
    const scope = resource.scope;
    switch (scope.kind) {
      case 'global':
        return undefined;
      case 'user':
        this.uses.add('user');
        return `${alias}.${quote(this.column(resource.entity, scope.path)!)} = {user}::uuid`;
      case 'organization': {
        const readers = resource.readers === 'owner' ? 'owned' : 'organizations';
        this.uses.add(readers);
        return `${organization} = any({${readers}}::uuid[])`;
      }
      case 'colleagues':
        this.uses.add('organizations');
        this.uses.add('user');
        return `(${alias}."id" = {user}::uuid or exists (select 1 from "team_member" m join "team" t on t."id" = m."team_id"
          where m."user_id" = ${alias}."id" and t."organization_id" = any({organizations}::uuid[])))`;
    }
  }

  /**
   * The row's `privacy` (model/resource.ts) as tenancy.ts's privateRows decides it: its owner, or none of
   * the fields that make it private to them set (administrators: of those that hide it from them too);
   * a row that follows another is visible when that one is.
   */
  privacy(resource: Resource, alias: string): string | undefined {
    const privacy = resource.privacy;
    if (!privacy || this.viewer === 'system') return undefined;
    if ('follows' in privacy) {
      const field = resource.fields.find((f) => f.name === privacy.follows)!;
      const target = this.resourceOf(field.reference!.target());
      if (!target) return undefined;
      const followed = this.alias();
      const condition = this.privacy(target, followed);
      return (
        condition &&
        `exists (select 1 from ${this.table(target.entity)} ${followed}
        where ${followed}."id" = ${alias}.${quote(this.column(resource.entity, field.name)!)} and ${condition})`
      );
    }
    const hiding = hidingFields(privacy, this.viewer === 'admin');
    if (hiding.length === 0) return undefined;
    this.uses.add('user');
    const shared = hiding.map((field) => `${alias}.${quote(this.column(resource.entity, field)!)} is null`).join(' and ');
    return `(${alias}.${quote(this.column(resource.entity, privacy.owner)!)} = {user}::uuid or (${shared}))`;
  }

  /** Whether the caller may write the row (undefined: every row they see), as tenancy.ts decides it (with `visible`). */
  writable(resource: Resource, alias: string, organization: string | undefined, writer: Writer): string | undefined {
    if (this.admin) return undefined;
    const scope = resource.scope;
    const owner = scope.kind === 'organization' || scope.kind === 'user' ? scope.path.split('.') : ['id'];
    switch (writer) {
      case 'anyone':
        return undefined;
      case 'member':
        return this.tenant(resource, alias, organization);
      case 'owner':
        if (!organization) throw new Error(`${resource.name}: owners write only rows of an organization`);
        this.uses.add('owned');
        return `${organization} = any({owned}::uuid[])`;
      case 'self':
        if (owner.length !== 1) throw new Error(`${resource.name}: a self-written resource must name its user directly`);
        this.uses.add('user');
        return `${alias}.${quote(this.column(resource.entity, owner[0])!)} = {user}::uuid`;
      case 'admin':
        // Refused before any statement runs (tenancy.ts); kept impossible here too.
        return 'false';
    }
  }

  /** The row's stored fields under their property names. */
  columns(entity: EntityClass<object>, alias: string): string[] {
    return storedFields(entity, this).map(({ field, column }) => `${alias}.${quote(column)} as ${quote(field.name)}`);
  }

  /**
   * The referenced row as the JSON REST embeds (every declared field, times as answer text, its own
   * references null), or null when it is missing, deleted or not the caller's to see.
   */
  embedded(field: FieldMeta, owner: EntityClass<object>, ownerAlias: string): string {
    const target = field.reference!.target();
    const alias = this.alias();
    const values = this.embeddedValues(target, alias, 'embedded');
    const resource = this.resourceOf(target);
    const conditions = [
      `${alias}."id" = ${ownerAlias}.${quote(this.column(owner, field.name)!)}`,
      resource && this.live(resource, alias),
      resource && this.visible(resource, alias, this.organization(resource, alias)),
    ].filter(Boolean);
    return `(select row_to_json(x) from (select ${values.join(', ')} from ${this.table(target)} ${alias}
      where ${conditions.join(' and ')}) x) as ${quote(field.reference!.relation)}`;
  }

  /**
   * An embedded collection as REST answers it (present.ts): the JSON array of the live rows naming the
   * owner row that the caller may see, in their list's default order, at most EMBEDDED_COLLECTION_MAX,
   * each with its references and collections null.
   */
  embeddedCollection(collection: EmbeddedCollection, ownerAlias: string): string {
    const source = collection.source;
    const alias = this.alias();
    const resource = this.resourceOf(source);
    const conditions = [
      `${alias}.${quote(this.column(source, collection.field.name)!)} = ${ownerAlias}."id"`,
      resource && this.live(resource, alias),
      resource && this.visible(resource, alias, this.organization(resource, alias)),
    ].filter(Boolean);
    const direction = resource?.order === 'newest-first' ? 'desc' : 'asc';
    const order = ['createdOn', 'id'].map((property) => `${alias}.${quote(this.column(source, property)!)} ${direction}`).join(', ');
    return `(select coalesce(json_agg(x), '[]'::json) from (select ${this.embeddedValues(source, alias, 'collection').join(', ')} from ${this.table(source)} ${alias}
      where ${conditions.join(' and ')} order by ${order} limit ${EMBEDDED_COLLECTION_MAX}) x) as ${quote(collection.name)}`;
  }

  /**
   * The values of an embedded row: every answered field (times as answer text), its references null,
   * and its embedded collections (null in a row of a collection).
   */
  private embeddedValues(target: EntityClass<object>, alias: string, level: 'embedded' | 'collection'): string[] {
    const values = fieldsOf(target)
      .filter(isAnswered)
      .map((f) => {
        const column = this.column(target, f.name);
        if (!column) return `null as ${quote(f.name)}`;
        const value = `${alias}.${quote(column)}`;
        return `${f.kind === 'dateTime' ? isoTime(value) : value} as ${quote(f.name)}`;
      });
    for (const reference of fieldsOf(target).filter((f) => f.reference?.embed)) values.push(`null as ${quote(reference.reference!.relation)}`);
    for (const collection of embeddedCollectionsOf(target))
      values.push(level === 'collection' ? `null as ${quote(collection.name)}` : this.embeddedCollection(collection, alias));
    return values;
  }
}

function storedFields(entity: EntityClass<object>, builder: Builder): { field: FieldMeta; column: string }[] {
  return fieldsOf(entity).flatMap((field) => {
    const column = builder.column(entity, field.name);
    return column ? [{ field, column }] : [];
  });
}

/**
 * `one`: the live row with id `$1` (embedded references included), and whether the caller may see it
 * (`__visible`), so that 403 and 404 are told apart in the same statement. `many`: the live rows the
 * caller may see among the ids `$1`, without embeds (what the per-request loaders need). `lock`: the
 * live row with id `$1` as stored (its columns, for the ORM to map), if the caller may see it and
 * `writer` lets them write it, locked FOR UPDATE (the row alone: its parents are only read).
 * `reference`: the id and organization of the live row `$1`, if the caller may see it (every live row
 * in the server's own variant, and in the administrators' but for rows private to others).
 */
export function itemStatement(
  resource: Resource,
  metadata: MetadataStorage,
  resourceOf: ResourceOf,
  viewer: Viewer,
  shape: ItemShape,
  writer: Writer = 'member',
): ItemStatement {
  if (shape === 'lock') {
    const { name, table, alias, condition, parameters } = writeGuard(resource, metadata, resourceOf, viewer, writer);
    return { name: `lock:${name}`, text: `select ${alias}.* from ${table} ${alias} where ${condition} for update of ${alias}`, parameters };
  }
  const builder = new Builder(metadata, resourceOf, viewer);
  const alias = builder.alias();
  const organization = builder.organization(resource, alias);
  const visible = builder.visible(resource, alias, organization);
  const select =
    shape === 'reference' ? [`${alias}."id"`, `${organization ?? 'null'} as ${quote(ORGANIZATION_COLUMN)}`] : builder.columns(resource.entity, alias);
  const conditions = [shape === 'many' ? `${alias}."id" = any($1::uuid[])` : `${alias}."id" = $1::uuid`, builder.live(resource, alias)];
  if (shape === 'one') {
    for (const field of resource.fields.filter((f) => f.reference?.embed)) select.push(builder.embedded(field, resource.entity, alias));
    for (const collection of embeddedCollectionsOf(resource.entity)) select.push(builder.embeddedCollection(collection, alias));
    if (visible) select.push(`${visible} as ${quote(VISIBLE_COLUMN)}`);
  } else {
    conditions.push(visible);
  }
  const parameters = parametersOf(builder);
  const text = numbered(
    `select ${select.join(', ')} from ${builder.table(resource.entity)} ${alias} where ${conditions.filter(Boolean).join(' and ')}`,
    parameters,
  );
  return { name: `${shape}:${resource.path}:${viewerName(viewer)}`, text, parameters };
}

/**
 * Which row a write may change, as a condition on the row's own columns: the live row with id `$1`
 * that the caller may see and `writer` lets them write. The `lock` statement reads it FOR UPDATE; an
 * update no rule needs to see first is one `update <table> <alias> set ... where <condition>`.
 */
export interface WriteGuard {
  /** Names the guard: the resource, the kind of caller and the writer. */
  name: string;
  table: string;
  alias: string;
  /** `$1` the id, then the caller's values in the order of `parameters`. */
  condition: string;
  parameters: ItemParameter[];
}

export function writeGuard(resource: Resource, metadata: MetadataStorage, resourceOf: ResourceOf, viewer: Viewer, writer: Writer): WriteGuard {
  const builder = new Builder(metadata, resourceOf, viewer);
  const alias = builder.alias();
  const organization = builder.organization(resource, alias);
  const conditions = [
    `${alias}."id" = $1::uuid`,
    builder.live(resource, alias),
    builder.visible(resource, alias, organization),
    // A member writer's condition is the tenancy `visible` already holds.
    writer === 'member' ? undefined : builder.writable(resource, alias, organization, writer),
  ];
  const parameters = parametersOf(builder);
  return {
    name: `${resource.path}:${viewerName(viewer)}:${writer}`,
    table: builder.table(resource.entity),
    alias,
    condition: numbered(conditions.filter(Boolean).join(' and '), parameters),
    parameters,
  };
}

const viewerName = (viewer: Viewer): string => (viewer === 'member' ? 'caller' : viewer);

/** The caller's values a statement reads, in the order they are bound after the id. */
const parametersOf = (builder: Builder): ItemParameter[] => (['organizations', 'owned', 'user'] as const).filter((name) => builder.uses.has(name));

/** `{organizations}`, `{owned}` and `{user}` as the parameters that follow the id. */
const numbered = (text: string, parameters: ItemParameter[]): string =>
  text.replace(/\{(organizations|owned|user)\}/g, (_, name: ItemParameter) => `$${parameters.indexOf(name) + 2}`);

/** A sort key reached through references: the relations it follows and the column it ends on. */
export interface RelatedSortPath {
  /** Each reference followed, from the root entity: its property and the entity it names. */
  hops: { property: string; target: EntityClass<object> }[];
  /** The property the path ends on, on the last target. */
  property: string;
}

/**
 * What a sort through references orders by for a caller who is not an administrator (or an
 * administrator, where a related row may be private to another user): the related row's value, or null
 * where that row (or one on the way to it) is deleted or not theirs to see, so that the order reveals
 * nothing of rows they may not read. `{organizations}` and `{user}` stand for the caller's values (see
 * `parameters`); `root` is the alias of the row being sorted.
 */
export function relatedSortValue(
  path: RelatedSortPath,
  root: { entity: EntityClass<object>; alias: string },
  metadata: MetadataStorage,
  resourceOf: ResourceOf,
  viewer: Viewer = 'member',
): { text: string; parameters: ItemParameter[] } {
  const builder = new Builder(metadata, resourceOf, viewer);
  const joins: string[] = [];
  const conditions: string[] = [];
  let owner = root.entity;
  let ownerAlias = root.alias;
  let first = '';
  for (const [index, hop] of path.hops.entries()) {
    const alias = builder.alias();
    const link = `${alias}."id" = ${ownerAlias}.${quote(builder.column(owner, hop.property)!)}`;
    if (index === 0) {
      first = `${builder.table(hop.target)} ${alias}`;
      conditions.push(link);
    } else {
      joins.push(`join ${builder.table(hop.target)} ${alias} on ${link}`);
    }
    const resource = resourceOf(hop.target);
    if (resource) {
      conditions.push(
        ...[builder.live(resource, alias), builder.visible(resource, alias, builder.organization(resource, alias))].filter((c): c is string => !!c),
      );
    }
    owner = hop.target;
    ownerAlias = alias;
  }
  const text = `(select ${ownerAlias}.${quote(builder.column(owner, path.property)!)} from ${first} ${joins.join(' ')} where ${conditions.join(' and ')})`;
  return { text, parameters: [...builder.uses] };
}
