import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';

/** A reusable prompt of an organization; `name` is its title, `metadata.prompt` its text. */
@ObjectType({ simpleResolvers: true, description: 'A reusable prompt of an organization; name is its title, metadata.prompt its text' })
@Entity({ tableName: 'prompt' })
@Unique({ properties: ['organizationId', 'slug'] })
export class Prompt extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true, description: 'The title of the prompt' })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the prompt', searchable: true })
  description!: string;

  @Attr.json({
    description: 'What the prompt is: context (task or project), category and prompt (the text of the prompt)',
    default: {},
    schema: {
      type: 'object',
      additionalProperties: true,
      properties: {
        context: { type: 'string', description: 'Where the prompt applies: task or project' },
        category: { type: 'string' },
        prompt: { type: 'string', description: 'The text of the prompt' },
      },
    },
  })
  metadata!: Record<string, unknown>;

  @Attr.reference(() => Organization, {
    description: 'The organization the prompt belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'prompts',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
