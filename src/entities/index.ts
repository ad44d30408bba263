import { Assistant } from './assistant';
import { DataForm } from './data-form';
import { Execution } from './execution';
import { StepExecution } from './step-execution';
import { AppliedKnowledgeSet } from './applied-knowledge-set';
import { Channel } from './channel';
import { DataObject } from './data-object';
import { LinkedDelta } from './linked-delta';
import { Message } from './message';
import { PlatformEvent } from './platform-event';
import { TaskDocumentFamily } from './task-document-family';
import { TaskGroup } from './task-group';
import { TaskGroupHistoryEntry } from './task-group-history-entry';
import { TaskActivity } from './task-activity';
import { ActivityPlan } from './activity-plan';
import { Activity } from './activity';
import { Trigger } from './trigger';
import { ProjectTemplate } from './project-template';
import { ServiceBridge } from './service-bridge';
import { ModelCatalogEntry } from './model-catalog-entry';
import { AccessToken } from './access-token';
import { Agent } from './agent';
import { AgentRuntime } from './agent-runtime';
import { AgentSession } from './agent-session';
import { ContentObject } from './content-object';
import { DataDefinition } from './data-definition';
import { DataStore } from './data-store';
import { DocumentFamily } from './document-family';
import { DocumentStatus } from './document-status';
import { DocumentStore } from './document-store';
import { KnowledgeClause } from './knowledge-clause';
import { KnowledgeFeature } from './knowledge-feature';
import { KnowledgeItem } from './knowledge-item';
import { KnowledgeSet } from './knowledge-set';
import { KnowledgeSetSnapshot } from './knowledge-set-snapshot';
import { Label } from './label';
import { Organization } from './organization';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { ProjectResource } from './project-resource';
import { ProjectStatus } from './project-status';
import { Prompt } from './prompt';
import { Session } from './session';
import { Task } from './task';
import { TaskStatus } from './task-status';
import { TaskTemplate } from './task-template';
import { Team } from './team';
import { TeamMember } from './team-member';
import { Workspace } from './workspace';

export {
  AccessToken,
  Agent,
  AgentRuntime,
  AgentSession,
  Assistant,
  DataForm,
  Execution,
  StepExecution,
  AppliedKnowledgeSet,
  Channel,
  DataObject,
  LinkedDelta,
  Message,
  PlatformEvent,
  TaskDocumentFamily,
  TaskGroup,
  TaskGroupHistoryEntry,
  TaskActivity,
  ActivityPlan,
  Activity,
  Trigger,
  ProjectTemplate,
  ServiceBridge,
  ModelCatalogEntry,
  ContentObject,
  DataDefinition,
  DataStore,
  DocumentFamily,
  DocumentStatus,
  DocumentStore,
  KnowledgeClause,
  KnowledgeFeature,
  KnowledgeItem,
  KnowledgeSet,
  KnowledgeSetSnapshot,
  Label,
  Organization,
  PlatformUser,
  Project,
  ProjectResource,
  ProjectStatus,
  Prompt,
  Session,
  Task,
  TaskStatus,
  TaskTemplate,
  Team,
  TeamMember,
  Workspace,
};

/** Every entity the ORM maps. */
export const entities = [
  AccessToken,
  Agent,
  AgentRuntime,
  AgentSession,
  Assistant,
  DataForm,
  Execution,
  StepExecution,
  AppliedKnowledgeSet,
  Channel,
  DataObject,
  LinkedDelta,
  Message,
  PlatformEvent,
  TaskDocumentFamily,
  TaskGroup,
  TaskGroupHistoryEntry,
  TaskActivity,
  ActivityPlan,
  Activity,
  Trigger,
  ProjectTemplate,
  ServiceBridge,
  ModelCatalogEntry,
  ContentObject,
  DataDefinition,
  DataStore,
  DocumentFamily,
  DocumentStatus,
  DocumentStore,
  KnowledgeClause,
  KnowledgeFeature,
  KnowledgeItem,
  KnowledgeSet,
  KnowledgeSetSnapshot,
  Label,
  Organization,
  PlatformUser,
  Project,
  ProjectResource,
  ProjectStatus,
  Prompt,
  Session,
  Task,
  TaskStatus,
  TaskTemplate,
  Team,
  TeamMember,
  Workspace,
];
