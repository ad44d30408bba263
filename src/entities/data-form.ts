import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };
const string: JsonSchema = { type: 'string' };
const strings: JsonSchema = { type: 'array', items: string };
const arrayOf = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'array', items: { type: 'object', additionalProperties: true, properties } });

const optionDefinition: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: string,
    label: string,
    description: string,
    type: string,
    default: {},
    required: { type: 'boolean' },
    possibleValues: arrayOf({ value: {}, label: string, description: string }),
    displayProperties: anyObject,
  },
};

const uiNode: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    component: string,
    bindings: anyObject,
    children: { type: 'array', items: anyObject },
    class: {},
    computed: anyObject,
    events: anyObject,
    for: { type: 'object', additionalProperties: true, properties: { itemAs: string, key: string, source: string, indexAs: string } },
    if: string,
    key: string,
    meta: { type: 'object', additionalProperties: true, properties: { category: string, description: string, designOnly: { type: 'boolean' }, label: string } },
    props: anyObject,
    ref: string,
    show: string,
    slots: anyObject,
    style: {},
  },
};

/** The spec's DataFormMetadata `metadata` keys (first level and the shape of their elements). */
const METADATA_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    checksum: string,
    description: string,
    icon: string,
    imageUrl: string,
    overviewMarkdown: string,
    provider: string,
    providerImageUrl: string,
    providerUrl: string,
    tabOrderInitial: string,
    version: string,
    deleteProtection: { type: 'boolean' },
    editable: { type: 'boolean' },
    entrypoints: strings,
    actions: arrayOf({ name: string, type: string, properties: anyObject }),
    bridge: { type: 'object', additionalProperties: true, properties: { apiBaseUrl: string, maxExecutionMs: { type: 'number' }, permissions: strings } },
    cards: arrayOf({ id: string, type: string, properties: anyObject, children: { type: 'array', items: anyObject } }),
    eventTriggers: arrayOf({
      on: string,
      script: string,
      debounce: { type: 'number' },
      filter: { type: 'object', additionalProperties: true, properties: { dataObjectUUID: string, path: string } },
    }),
    scriptTriggers: arrayOf({ script: string, triggerOn: strings, debounce: { type: 'number' } }),
    scripts: anyObject,
    scriptModules: anyObject,
    shortcuts: arrayOf({ key: string, description: string, scriptRef: string, altKey: { type: 'boolean' }, group: string }),
    tabOrder: arrayOf({ path: string }),
    tabOrderGroups: arrayOf({
      name: string,
      paths: strings,
      forEach: { type: 'object', additionalProperties: true, properties: { path: string } },
      nextGroup: string,
      wrap: { type: 'boolean' },
    }),
    views: arrayOf({ name: string, properties: anyObject }),
    options: { type: 'array', items: optionDefinition },
    nodes: { type: 'array', items: uiNode },
  },
};

/** A data form of an organization (spec "DataFormMetadata"). */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'data_form' })
@Unique({ properties: ['organizationId', 'slug'] })
export class DataForm extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string()
  type!: string;

  @Attr.string({ searchable: true })
  ref!: string;

  @Attr.string()
  uri!: string;

  @Attr.string({ writable: 'never', description: "The organization's slug, set on create" })
  orgSlug!: string;

  @Attr.reference(() => Organization, { embed: true, required: true, writable: 'create', inverse: 'dataForms', onDelete: 'cascade' })
  organizationId!: string;

  @Attr.string()
  extensionPackRef!: string;

  @Attr.string()
  yamlSource!: string;

  @Attr.boolean()
  deprecated!: boolean;

  @Attr.boolean()
  publicAccess!: boolean;

  @Attr.boolean()
  template!: boolean;

  @Attr.json({ default: {}, schema: METADATA_SCHEMA })
  metadata!: Record<string, unknown>;
}
