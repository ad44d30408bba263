import type { EntityClass } from '@mikro-orm/core';
import {
  AccessToken,
  Activity,
  ActivityPlan,
  ProjectTemplate,
  ServiceBridge,
  Trigger,
  Agent,
  AgentRuntime,
  Assistant,
  DataForm,
  DataDefinition,
  DataStore,
  DocumentFamily,
  DocumentStatus,
  DocumentStore,
  Execution,
  KnowledgeSet,
  LinkedDelta,
  ModelCatalogEntry,
  Organization,
  OrganizationSecret,
  PlatformEvent,
  PlatformUser,
  Project,
  Prompt,
  Task,
  TaskActivity,
  TaskGroup,
  TaskStatus,
  TaskTemplate,
  Team,
  TeamMember,
} from '../entities';
import type { Resource } from '../model/resource';
import { accessTokenRules } from './access-tokens';
import { activityRules } from './activities';
import { activityPlanRules } from './activity-plans';
import { contentStoreRules, documentFamilyRules } from './content-stores';
import { executionRules } from './executions';
import { knowledgeSetRules } from './knowledge-sets';
import { linkedDeltaRules } from './linked-deltas';
import { modelCatalogRules } from './model-catalog';
import { organizationSecretRules } from './organization-secrets';
import { organizationRules } from './organizations';
import { platformEventRules } from './platform-events';
import { assistantRules, dataFormRules } from './processing';
import { teamMemberRules, teamRules } from './owners';
import { projectTemplateOptionRules, projectTemplateRules } from './project-templates';
import { combineRules, type ResourceRules, type ResourceWithRules } from './resource-rules';
import { serviceBridgeRules } from './service-bridges';
import { scopedSlugRules } from './slugs';
import { taskActivityRules } from './task-activities';
import { taskGroupRules } from './task-groups';
import { taskRules } from './tasks';
import { triggerRules } from './triggers';
import { userRules } from './users';

type RulesEntry = [EntityClass<object>, ResourceRules<object>];

/** One entity's rules; the signature keeps the rules of one entity from being filed under another. */
function rulesOf<T extends object>(entity: EntityClass<T>, rules: ResourceRules<T>): RulesEntry {
  return [entity, rules];
}

/**
 * The business rules of the resources that have some, by entity. They live with the services (they
 * use the request context, other services and the database), apart from the declarations of
 * catalog/registry.ts, which the model, the adapters and the schema generator read without them.
 */
const RULES = new Map<EntityClass<object>, ResourceRules<object>>([
  rulesOf(Organization, organizationRules),
  rulesOf(OrganizationSecret, organizationSecretRules),
  rulesOf(PlatformUser, userRules),
  rulesOf(AccessToken, accessTokenRules),
  rulesOf(Team, teamRules),
  rulesOf(TeamMember, teamMemberRules),
  rulesOf(Project, combineRules(scopedSlugRules({ entity: Project, source: 'name', scopeField: 'organizationId', fallback: 'project' }), projectTemplateRules)),
  rulesOf(Task, taskRules),
  rulesOf(TaskActivity, taskActivityRules),
  rulesOf(TaskGroup, taskGroupRules),
  rulesOf(TaskStatus, scopedSlugRules({ entity: TaskStatus, source: 'label', scopeField: 'organizationId', among: { deleted: false }, fallback: 'status' })),
  rulesOf(DataDefinition, scopedSlugRules({ entity: DataDefinition, source: 'name', scopeField: 'organizationId', fallback: 'data-definition' })),
  rulesOf(AgentRuntime, scopedSlugRules({ entity: AgentRuntime, source: 'name', scopeField: 'organizationId', fallback: 'agent-runtime' })),
  rulesOf(Agent, scopedSlugRules({ entity: Agent, source: 'name', scopeField: 'organizationId', fallback: 'agent' })),
  rulesOf(Prompt, scopedSlugRules({ entity: Prompt, source: 'name', scopeField: 'organizationId', fallback: 'prompt' })),
  rulesOf(TaskTemplate, scopedSlugRules({ entity: TaskTemplate, source: 'name', scopeField: 'projectId', fallback: 'task-template' })),
  rulesOf(DocumentStatus, scopedSlugRules({ entity: DocumentStatus, source: 'status', scopeField: 'projectId', fallback: 'status' })),
  rulesOf(ActivityPlan, activityPlanRules),
  rulesOf(Trigger, triggerRules),
  rulesOf(ProjectTemplate, combineRules(scopedSlugRules({ entity: ProjectTemplate, source: 'name', scopeField: 'organizationId', fallback: 'project-template' }), projectTemplateOptionRules)),
  rulesOf(ServiceBridge, combineRules(scopedSlugRules({ entity: ServiceBridge, source: 'name', scopeField: 'organizationId', fallback: 'service-bridge' }), serviceBridgeRules)),
  rulesOf(DocumentStore, contentStoreRules(DocumentStore, 'document-store')),
  rulesOf(DataStore, contentStoreRules(DataStore, 'data-store')),
  rulesOf(DocumentFamily, documentFamilyRules),
  rulesOf(Execution, executionRules),
  rulesOf(Assistant, assistantRules),
  rulesOf(DataForm, dataFormRules),
  rulesOf(KnowledgeSet, knowledgeSetRules),
  rulesOf(Activity, activityRules),
  rulesOf(PlatformEvent, platformEventRules),
  rulesOf(LinkedDelta, linkedDeltaRules),
  rulesOf(ModelCatalogEntry, modelCatalogRules),
]);

/** The resource with its rules, as its service runs it. */
export function withRules<T extends object>(resource: Resource<T>): ResourceWithRules<T> {
  // Filed by rulesOf under their own entity: the rules found are the resource's.
  return { ...resource, rules: (RULES.get(resource.entity) ?? {}) as ResourceRules<T> };
}
