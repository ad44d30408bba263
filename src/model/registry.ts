import { AccessToken, Label, Organization, PlatformUser, Project, ProjectStatus, Task, TaskStatus, Team, TeamMember } from '../entities';
import { accessTokenRules } from '../services/access-tokens';
import { organizationRules } from '../services/organizations';
import { teamMemberRules, teamRules } from '../services/owners';
import { scopedSlugRules } from '../services/slugs';
import { userRules } from '../services/users';
import { defineResource, flagDeleted, hardDelete, type Resource } from './resource';

/** Every collection served under /api and in GraphQL. Adding a resource is adding an entry here. */
export const resources: Resource[] = [
  defineResource({
    path: 'organizations',
    affectsAccess: true,
    entity: Organization,
    scope: { kind: 'organization', path: 'id' },
    delete: { kind: 'soft', field: 'archived', value: true, hide: true, stamp: false },
    rules: organizationRules,
    access: { create: 'anyone', update: 'owner', delete: 'owner' },
  }),
  defineResource({
    path: 'users',
    affectsAccess: true,
    entity: PlatformUser,
    scope: { kind: 'colleagues' },
    delete: { kind: 'soft', field: 'active', value: false, hide: false, stamp: false },
    rules: userRules,
    access: { create: 'admin', update: 'self', delete: 'admin' },
  }),
  defineResource({
    path: 'access-tokens',
    affectsAccess: true,
    entity: AccessToken,
    scope: { kind: 'user', path: 'userId' },
    delete: hardDelete,
    rules: accessTokenRules,
    access: { create: 'anyone', update: 'self', delete: 'self' },
  }),
  defineResource({
    path: 'teams',
    affectsAccess: true,
    entity: Team,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: hardDelete,
    rules: teamRules,
    access: { create: 'owner', update: 'owner', delete: 'owner' },
  }),
  defineResource({
    path: 'team-members',
    affectsAccess: true,
    entity: TeamMember,
    scope: { kind: 'organization', path: 'teamId.organizationId' },
    delete: hardDelete,
    rules: teamMemberRules,
    access: { create: 'owner', update: 'owner', delete: 'owner' },
  }),
  defineResource({
    path: 'projects',
    entity: Project,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: flagDeleted,
    rules: scopedSlugRules({ entity: Project, source: 'name', scopeField: 'organizationId', fallback: 'project' }),
  }),
  defineResource({
    path: 'project-statuses',
    entity: ProjectStatus,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: hardDelete,
  }),
  defineResource({
    path: 'task-statuses',
    entity: TaskStatus,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: flagDeleted,
    rules: scopedSlugRules({ entity: TaskStatus, source: 'label', scopeField: 'organizationId', among: { deleted: false }, fallback: 'status' }),
  }),
  defineResource({
    path: 'tasks',
    entity: Task,
    scope: { kind: 'organization', path: 'projectId.organizationId' },
    delete: flagDeleted,
  }),
  defineResource({
    path: 'labels',
    entity: Label,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: hardDelete,
  }),
];
