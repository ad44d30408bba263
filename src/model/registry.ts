import { AccessToken, Label, Organization, PlatformUser, Project, ProjectStatus, Task, TaskStatus, Team, TeamMember } from '../entities';
import { defineResource, flagDeleted, hardDelete, type Resource } from './resource';

/**
 * Every collection served under /api and in GraphQL. Adding a resource is adding an entry here (and
 * its business rules, when it has some, to services/rules.ts).
 */
export const resources: Resource[] = [
  defineResource({
    path: 'organizations',
    affectsAccess: true,
    entity: Organization,
    scope: { kind: 'organization', path: 'id' },
    delete: { kind: 'soft', field: 'archived', value: true, hide: true, stamp: false },
    access: { create: 'anyone', update: 'owner', delete: 'owner' },
  }),
  defineResource({
    path: 'users',
    affectsAccess: true,
    entity: PlatformUser,
    scope: { kind: 'colleagues' },
    delete: { kind: 'soft', field: 'active', value: false, hide: false, stamp: false },
    access: { create: 'admin', update: 'self', delete: 'admin' },
  }),
  defineResource({
    path: 'access-tokens',
    affectsAccess: true,
    entity: AccessToken,
    scope: { kind: 'user', path: 'userId' },
    delete: hardDelete,
    access: { create: 'anyone', update: 'self', delete: 'self' },
  }),
  defineResource({
    path: 'teams',
    affectsAccess: true,
    entity: Team,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: hardDelete,
    access: { create: 'owner', update: 'owner', delete: 'owner' },
  }),
  defineResource({
    path: 'team-members',
    affectsAccess: true,
    entity: TeamMember,
    scope: { kind: 'organization', path: 'teamId.organizationId' },
    delete: hardDelete,
    access: { create: 'owner', update: 'owner', delete: 'owner' },
  }),
  defineResource({
    path: 'projects',
    entity: Project,
    scope: { kind: 'organization', path: 'organizationId' },
    delete: flagDeleted,
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
