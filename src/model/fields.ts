import { Enum, ManyToOne, PrimaryKey, Property, type EntityClass } from '@mikro-orm/core';
import { Field, Float, ID, Int } from 'type-graphql';
import type { EnumDefinition } from './enums';
import { relationNameOf, snakeCase } from './naming';
import { DateTimeScalar, JSONScalar } from './scalars';

/**
 * One declaration per field: each decorator here maps the property to its column (MikroORM), exposes it
 * in GraphQL (type-graphql) and records what REST validation and OpenAPI need to know about it.
 */
export type FieldKind = 'id' | 'string' | 'boolean' | 'int' | 'number' | 'dateTime' | 'json' | 'enum' | 'stringArray' | 'reference';

/** The values an `int` field holds (a PostgreSQL integer column). */
export const INT32 = { min: -2147483648, max: 2147483647 } as const;

/** Which request bodies may write the field: both, only the create body, or none (server-owned). */
export type Writable = 'always' | 'create' | 'never';

/** A JSON Schema fragment (OpenAPI 3.0 flavour) describing a free-form field's shape. */
export type JsonSchema = Record<string, unknown>;

export interface FieldOptions {
  /** null is accepted and returned; otherwise null is a 400 on write. */
  nullable?: boolean;
  /** Stored on create when the field is omitted; non-nullable fields without one default by kind. */
  default?: unknown;
  /** The create body must carry it. */
  required?: boolean;
  writable?: Writable;
  unique?: boolean;
  index?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  min?: number;
  max?: number;
  /** Applied to a written value before validation (e.g. lowercasing a slug). */
  normalize?: (value: unknown) => unknown;
  description?: string;
  /** Part of the `query` free-text search. */
  searchable?: boolean;
  /** May be used in `filter` and `sort` (default: every field but JSON ones). */
  filterable?: boolean;
  /** OpenAPI shape of a JSON field. */
  schema?: JsonSchema;
  /** Listed in the response schema's `required` (default true: every declared field is always returned). */
  responseRequired?: boolean;
  /** false: a value the server computes for one answer and never stores. */
  persist?: boolean;
  /** Accepted in request bodies and never answered, filtered, sorted or searched (a secret's value). */
  writeOnly?: boolean;
}

export interface ReferenceOptions extends FieldOptions {
  /** Name of the to-many collection this reference adds to its target (GraphQL), e.g. `projects`. */
  inverse?: string;
  /**
   * The referenced object is embedded in REST answers under the relation name: only where the
   * specification shows it (Project.organization, TeamMember.user ...); elsewhere the id alone travels.
   */
  embed?: boolean;
  /** The relation object is listed as required in the response schema. */
  embedRequired?: boolean;
  /**
   * The target's REST answers embed the live rows that name it (those the caller may see, oldest first,
   * at most EMBEDDED_COLLECTION_MAX) as an array under this name: only where the specification shows
   * the collection (Project.documentStatuses, DocumentFamily.contentObjects ...). GraphQL serves it as a
   * page under the same name.
   */
  embedInverse?: string;
  onDelete?: 'cascade' | 'set null' | 'restrict';
  /** Any live record may be named, also one the caller cannot see (a team's new member). */
  anyRecord?: boolean;
  /**
   * The target's lists may filter on the rows that refer to it under this name: on task groups,
   * `memberTask.<field>` matches a group when one of its live tasks matches (query/filter.ts).
   */
  inverseFilter?: string;
  /**
   * The referenced row must hold the same value of this field as the referring row (a task's group is
   * one of the task's project); 400 naming the reference otherwise.
   */
  within?: string;
}

export interface ReferenceMeta {
  /** Property holding the object in answers: `organization` for `organizationId`. */
  relation: string;
  target: () => EntityClass<object>;
  inverse?: string;
  embed: boolean;
  embedRequired: boolean;
  embedInverse?: string;
  anyRecord: boolean;
  inverseFilter?: string;
  within?: string;
}

export interface FieldMeta {
  name: string;
  kind: FieldKind;
  options: FieldOptions;
  enum?: EnumDefinition;
  reference?: ReferenceMeta;
}

const fieldsByClass = new Map<object, FieldMeta[]>();
/** fieldsOf answers, per class; read on every answer, so computed once. */
const resolvedFields = new Map<object, FieldMeta[]>();
/** embeddedCollectionsOf answers, per class (read on every answer). */
const resolvedCollections = new Map<object, EmbeddedCollection[]>();

/** The fields of an entity class, inherited ones first. */
export function fieldsOf(entity: EntityClass<object> | object): FieldMeta[] {
  let fields = resolvedFields.get(entity);
  if (!fields) {
    const chain: object[] = [];
    for (let c: object | null = entity; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
    fields = chain.flatMap((c) => fieldsByClass.get(c) ?? []);
    resolvedFields.set(entity, fields);
  }
  return fields;
}

function remember(target: object, meta: FieldMeta): void {
  const owner = (target as { constructor: object }).constructor;
  const list = fieldsByClass.get(owner) ?? [];
  list.push(meta);
  fieldsByClass.set(owner, list);
  resolvedFields.clear();
  resolvedCollections.clear();
}

type GraphqlType = () => unknown;

/** Property decorators as the ORM types them (string keys only). */
type ColumnDecorator = (target: object, key: string) => void;

function declare(kind: FieldKind, column: ColumnDecorator, graphqlType: GraphqlType, options: FieldOptions, extra: Partial<FieldMeta> = {}): PropertyDecorator {
  return (target, key) => {
    const name = String(key);
    if (options.persist === false) options = { ...options, filterable: false };
    if (options.writeOnly) options = { ...options, filterable: false, searchable: false };
    column(target, name);
    // A write-only field exists in the input types alone (graphql/types.ts).
    if (!options.writeOnly) Field(graphqlType as () => typeof String, { nullable: options.nullable ?? false, description: options.description })(target, key);
    remember(target, { name, kind, options, ...extra });
  };
}

function columnOptions(options: FieldOptions) {
  return { nullable: options.nullable ?? false, unique: options.unique, index: options.index, persist: options.persist };
}

export const Attr = {
  /** UUID primary key, generated by the server. */
  primaryKey: (): PropertyDecorator =>
    declare('id', PrimaryKey({ type: 'uuid' }), () => ID, {
      writable: 'never',
      filterable: true,
      description: 'Identifier of the row (UUID); set by the server',
    }),

  uuid: (options: FieldOptions = {}): PropertyDecorator => declare('id', Property({ type: 'uuid', ...columnOptions(options) }), () => ID, options),

  string: (options: FieldOptions = {}): PropertyDecorator => declare('string', Property({ type: 'text', ...columnOptions(options) }), () => String, options),

  boolean: (options: FieldOptions = {}): PropertyDecorator =>
    declare('boolean', Property({ type: 'boolean', ...columnOptions(options) }), () => Boolean, options),

  int: (options: FieldOptions = {}): PropertyDecorator => declare('int', Property({ type: 'integer', ...columnOptions(options) }), () => Int, options),

  number: (options: FieldOptions = {}): PropertyDecorator => declare('number', Property({ type: 'double', ...columnOptions(options) }), () => Float, options),

  dateTime: (options: FieldOptions = {}): PropertyDecorator =>
    declare('dateTime', Property({ type: 'datetime', length: 3, ...columnOptions(options) }), () => DateTimeScalar, options),

  json: (options: FieldOptions = {}): PropertyDecorator =>
    declare('json', Property({ type: 'json', ...columnOptions(options) }), () => JSONScalar, { filterable: false, ...options }),

  stringArray: (options: FieldOptions = {}): PropertyDecorator =>
    declare('stringArray', Property({ type: 'json', ...columnOptions(options) }), () => [String], { filterable: false, ...options }),

  /** A URL-safe identifier: lowercase letters, digits and dashes, lowercased on write, at most 100 characters. */
  slug: (options: FieldOptions = {}): PropertyDecorator =>
    Attr.string({
      maxLength: 100,
      pattern: /^[a-z0-9-]+$/,
      normalize: (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      searchable: true,
      ...options,
    }),

  enum: (definition: EnumDefinition, options: FieldOptions = {}): PropertyDecorator =>
    declare('enum', Enum({ items: [...definition.values], ...columnOptions(options) }), () => definition.graphql, options, { enum: definition }),

  /** `xxxId` holding the id of another entity; the object itself is served as `xxx`. */
  reference:
    (target: () => EntityClass<object>, options: ReferenceOptions = {}): PropertyDecorator =>
    (prototype, key) => {
      const name = String(key);
      const column = ManyToOne(target, {
        mapToPk: true,
        fieldName: snakeCase(name),
        nullable: options.nullable ?? false,
        deleteRule: options.onDelete ?? 'restrict',
        // Indexed with the default order by database/list-indexes.ts.
        index: false,
      });
      const reference: ReferenceMeta = {
        relation: relationNameOf(name),
        target,
        inverse: options.inverse,
        embed: options.embed ?? false,
        embedRequired: options.embedRequired ?? false,
        embedInverse: options.embedInverse,
        anyRecord: options.anyRecord ?? false,
        inverseFilter: options.inverseFilter,
        within: options.within,
      };
      declare('reference', column, () => ID, options, { reference })(prototype, key);
    },
};

/** A reference seen from its target: the rows of `source` whose `field` names a row of the target. */
export interface InverseLink {
  /** What filters call it on the target (`memberTask`). */
  name: string;
  source: EntityClass<object>;
  field: FieldMeta;
}

/** The inverse filters other entities' references declare on `entity` (`memberTask` on TaskGroup). */
export function inverseFiltersOf(entity: EntityClass<object>): InverseLink[] {
  const links: InverseLink[] = [];
  for (const [source, fields] of fieldsByClass) {
    for (const field of fields) {
      const name = field.reference?.inverseFilter;
      if (name && field.reference!.target() === entity) links.push({ name, source: source as EntityClass<object>, field });
    }
  }
  return links;
}

/** The most rows an embedded collection carries; the collection's own list pages through them all. */
export const EMBEDDED_COLLECTION_MAX = 100;

/** A collection a REST answer embeds: the rows of `source` whose reference `field` names the answered row. */
export interface EmbeddedCollection {
  /** The key it is answered under (`documentStatuses`). */
  name: string;
  source: EntityClass<object>;
  field: FieldMeta;
}

/** The embedded collections other entities' references declare on `entity` (`documentStatuses` on Project). */
export function embeddedCollectionsOf(entity: EntityClass<object>): EmbeddedCollection[] {
  let collections = resolvedCollections.get(entity);
  if (!collections) {
    collections = [];
    for (const [source, fields] of fieldsByClass) {
      for (const field of fields) {
        const name = field.reference?.embedInverse;
        if (name && field.reference!.target() === entity) collections.push({ name, source: source as EntityClass<object>, field });
      }
    }
    resolvedCollections.set(entity, collections);
  }
  return collections;
}

/** The names a reference's rows are served under on its target (GraphQL pages): its inverse, and the collection REST embeds. */
export function collectionNamesOf(field: FieldMeta): string[] {
  const reference = field.reference;
  if (!reference) return [];
  return [...new Set([reference.inverse, reference.embedInverse].filter((name): name is string => name !== undefined))];
}

/** Whether answers carry the field (every declared field but write-only ones). */
export function isAnswered(field: FieldMeta): boolean {
  return !field.options.writeOnly;
}

/** Value a non-nullable field takes on create when the body omits it and the field names none. */
export function implicitDefault(field: FieldMeta): unknown {
  if (field.options.default !== undefined) {
    const value = field.options.default;
    return typeof value === 'function' ? (value as () => unknown)() : structuredClone(value);
  }
  if (field.options.nullable) return null;
  switch (field.kind) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'int':
    case 'number':
      return 0;
    case 'stringArray':
      return [];
    default:
      return undefined;
  }
}
