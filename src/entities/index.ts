import { AccessToken } from './access-token';
import { DataDefinition } from './data-definition';
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
import { Task } from './task';
import { TaskStatus } from './task-status';
import { Team } from './team';
import { TeamMember } from './team-member';
import { Workspace } from './workspace';

export {
  AccessToken,
  DataDefinition,
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
  Task,
  TaskStatus,
  Team,
  TeamMember,
  Workspace,
};

/** Every entity the ORM maps. */
export const entities = [
  AccessToken,
  DataDefinition,
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
  Task,
  TaskStatus,
  Team,
  TeamMember,
  Workspace,
];
