import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';

const objects = (properties: Record<string, unknown>) => ({
  type: 'array',
  items: { type: 'object', properties, additionalProperties: true },
});
const text = { type: 'string' };

/**
 * What a new project of an organization may start from: a project created with `projectTemplateRef`
 * naming it gets its options checked and its rows (modules/workflow/project-templates.ts), and
 * `POST /api/projects/{id}/apply-template` applies it again.
 */
@ObjectType({
  simpleResolvers: true,
  description:
    'What a new project of an organization may start from: a project created with projectTemplateRef naming it gets its options checked and its rows; the applyProjectTemplate operation applies it again',
})
@Entity({ tableName: 'project_template' })
@Unique({ properties: ['organizationId', 'slug'] })
export class ProjectTemplate extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the project template', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the project template', searchable: true })
  description!: string;

  @Attr.json({ default: [], schema: objects({}), description: 'Option definitions' })
  options!: Record<string, unknown>[];

  @Attr.json({
    description: 'Task statuses the template declares (slug, label, color, statusType)',
    default: [],
    schema: objects({ slug: text, label: text, color: text, statusType: text }),
  })
  taskStatuses!: Record<string, unknown>[];

  @Attr.json({
    description: 'Document statuses the template declares (slug, status, color, statusType)',
    default: [],
    schema: objects({ slug: text, status: text, color: text, statusType: text }),
  })
  documentStatuses!: Record<string, unknown>[];

  @Attr.json({
    description: 'Activity plans the template declares (slug, name, steps)',
    default: [],
    schema: objects({ slug: text, name: text, steps: { type: 'array', items: { type: 'object', additionalProperties: true } } }),
  })
  activityPlans!: Record<string, unknown>[];

  @Attr.json({
    default: [],
    schema: objects({
      slug: text,
      name: text,
      eventKind: text,
      eventFilter: text,
      inputMapping: { type: 'object', additionalProperties: true },
      activityPlanRef: text,
      enabled: { type: 'boolean' },
    }),
    description: 'activityPlanRef: a plan slug or activity-plan://<orgSlug>/<slug>; the created trigger stores the full form',
  })
  triggers!: Record<string, unknown>[];

  @Attr.boolean({ description: 'Whether the template is publicly accessible' })
  publicAccess!: boolean;

  @Attr.reference(() => Organization, {
    description: 'The organization the project template belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'projectTemplates',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
