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
@ObjectType({ simpleResolvers: true, description: 'A data form of an organization (the data-forms listing: DataFormMetadata)' })
@Entity({ tableName: 'data_form' })
@Unique({ properties: ['organizationId', 'slug'] })
export class DataForm extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the data form', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Kind of data form (free text)' })
  type!: string;

  @Attr.string({ description: 'Reference of the data form', searchable: true })
  ref!: string;

  @Attr.string({ description: 'URI of the data form' })
  uri!: string;

  @Attr.string({ writable: 'never', description: "The organization's slug, set on create" })
  orgSlug!: string;

  @Attr.reference(() => Organization, {
    description: 'The organization the data form belongs to (its id); set on create, an update leaves it unchanged',
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'dataForms',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.string({ description: 'Reference of the extension pack the data form comes from' })
  extensionPackRef!: string;

  @Attr.string({ description: 'YAML source of the data form' })
  yamlSource!: string;

  @Attr.boolean({ description: 'Whether the data form is deprecated' })
  deprecated!: boolean;

  @Attr.boolean({ description: 'Whether the data form is publicly accessible' })
  publicAccess!: boolean;

  @Attr.boolean({ description: 'Whether the data form is a template' })
  template!: boolean;

  @Attr.json({
    description: 'What the form declares: actions, bridge, cards, event and script triggers, scripts, shortcuts, tab order, views, options and UI nodes',
    default: {},
    schema: METADATA_SCHEMA,
  })
  metadata!: Record<string, unknown>;
}
