import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';
import { PlatformUser } from './platform-user';
import { ProjectStatus } from './project-status';

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

const optionDefinition: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    type: { type: 'string' },
    subType: { type: 'string' },
    default: {},
    required: { type: 'boolean' },
    possibleValues: {
      type: 'array',
      items: { type: 'object', properties: { value: {}, label: { type: 'string' }, description: { type: 'string' } } },
    },
    aliases: { type: 'array', items: { type: 'string' } },
    developerOnly: { type: 'boolean' },
    displayProperties: anyObject,
    falseLabel: { type: 'string' },
    featureFlag: { type: 'string' },
    groupOptions: { type: 'array', items: { type: 'object', additionalProperties: true } },
    hint: { type: 'string' },
    listDescription: { type: 'string' },
    listLabel: { type: 'string' },
    listType: { type: 'string' },
    overviewMarkdown: { type: 'string' },
    properties: anyObject,
    showIf: { type: 'string' },
    showOnPopup: { type: 'boolean' },
    supportArticle: { type: 'string' },
    tabName: { type: 'string' },
  },
};

export const executionPolicySchema: JsonSchema = {
  type: 'object',
  properties: {
    backoffBaseSeconds: { type: 'number' },
    backoffStrategy: { type: 'string' },
    maxAttempts: { type: 'number' },
    onExhausted: { type: 'string' },
    timeoutSeconds: { type: 'number' },
  },
};

const xy = { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } };

/** A workspace of an organization where documents, tasks and assistants live. */
@ObjectType({ simpleResolvers: true, description: 'A workspace of an organization where documents, tasks and assistants live' })
@Entity({ tableName: 'project' })
@Unique({ properties: ['organizationId', 'slug'] })
export class Project extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the project', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the project', searchable: true })
  description!: string;

  @Attr.string({ description: 'Notes on the project' })
  notes!: string;

  @Attr.string({ description: 'Display color' })
  color!: string;

  @Attr.string({
    description: 'The searchable fields, lowercased and joined by spaces: what the free-text query matches; kept by the server',
    writable: 'never',
  })
  searchText!: string;

  @Attr.reference(() => Organization, {
    description: 'The organization the project belongs to (its id); set on create, an update leaves it unchanged',
    embed: true,
    required: true,
    writable: 'create',
    inverse: 'projects',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.reference(() => PlatformUser, { description: 'The user who owns the project (its id), or null', embed: true, nullable: true, onDelete: 'set null' })
  ownerId?: string | null;

  @Attr.reference(() => ProjectStatus, {
    description: 'The project status the project is in (its id), or null',
    embed: true,
    nullable: true,
    onDelete: 'set null',
  })
  statusId?: string | null;

  @Attr.string({
    nullable: true,
    description:
      "On create, the template applied in the same transaction: its id, its slug in the project's organization, or project-template://<orgSlug>/<slug>; " +
      'stored as sent (changing it later applies nothing)',
  })
  projectTemplateRef?: string | null;

  @Attr.string({ description: 'Id of the template article of the project, or null', nullable: true })
  templateArticleId?: string | null;

  @Attr.string({ default: 'ACTIVE', description: 'State of the project (free text, for example ACTIVE; default ACTIVE)' })
  statusType!: string;

  @Attr.json({
    description: 'What clients keep for the project: orderedDashboards, recentFilters, recentQueries',
    default: { orderedDashboards: [], recentFilters: {}, recentQueries: {} },
    schema: {
      type: 'object',
      properties: {
        changeSequence: { type: 'integer' },
        orderedDashboards: { type: 'array', items: { type: 'string' } },
        recentFilters: anyObject,
        recentQueries: anyObject,
      },
    },
  })
  memory!: Record<string, unknown>;

  @Attr.json({
    description: 'The data-flow diagram of the project: edges, nodes and viewPort',
    default: { edges: [], nodes: [] },
    schema: {
      type: 'object',
      properties: {
        edges: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, source: { type: 'string' }, target: { type: 'string' }, properties: anyObject },
          },
        },
        nodes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              parentId: { type: 'string' },
              type: { type: 'string' },
              position: xy,
              dimensions: { type: 'object', properties: { height: { type: 'number' }, width: { type: 'number' } } },
              properties: anyObject,
            },
          },
        },
        viewPort: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' }, zoom: { type: 'number' } } },
      },
    },
  })
  dataFlow!: Record<string, unknown>;

  @Attr.json({
    description:
      'Settings of the project: companion, option definitions (options, dataOptions), properties, executionPolicy, taxon type features and taskOptions',
    default: {},
    schema: {
      type: 'object',
      properties: {
        companion: {
          type: 'object',
          properties: {
            agentRuntimeRef: { type: 'string' },
            moduleRefs: { type: 'array', items: { type: 'string' } },
            prompt: { type: 'string' },
          },
        },
        dataOptions: { type: 'array', items: optionDefinition },
        options: { type: 'array', items: optionDefinition },
        dataProperties: anyObject,
        properties: anyObject,
        executionPolicy: executionPolicySchema,
        groupTaxonTypeFeatures: anyObject,
        taxonTypeFeatures: anyObject,
        taskOptions: { type: 'object', properties: { showNewTask: { type: 'boolean' }, showTakeNext: { type: 'boolean' } } },
      },
    },
  })
  options!: Record<string, unknown>;
}
