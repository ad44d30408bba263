import { Field, ID, ObjectType } from 'type-graphql';

/**
 * The answer of `applyProjectTemplate` (docs/automation.md), declared once: these
 * classes are the GraphQL types, and the OpenAPI components of the same names are read from them.
 */

/** What a template places: an organization's task status or activity plan, a project's document status or trigger. */
export type TemplateItemKind = 'taskStatus' | 'documentStatus' | 'activityPlan' | 'trigger';

@ObjectType('TemplateItem', { description: 'A row a template declares, as it is in the organization or project' })
export class TemplateItem {
  @Field(() => String, { description: 'taskStatus, documentStatus, activityPlan or trigger' })
  kind!: TemplateItemKind;

  @Field(() => ID, { description: "The row's id" })
  id!: string;

  @Field(() => String, { description: "The row's slug" })
  slug!: string;
}

@ObjectType('TemplateApplication', { description: 'What applying a project template created, and what it found already there (same slug) and left as it was' })
export class TemplateApplication {
  @Field(() => [TemplateItem], { description: 'The rows the template created' })
  created: TemplateItem[] = [];

  @Field(() => [TemplateItem], { description: 'The rows already there with the same slug, left as they were' })
  skipped: TemplateItem[] = [];
}
