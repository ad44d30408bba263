import { AccessToken } from './access-token';
import { Label } from './label';
import { Organization } from './organization';
import { PlatformUser } from './platform-user';
import { Project } from './project';
import { ProjectStatus } from './project-status';
import { Task } from './task';
import { TaskStatus } from './task-status';
import { Team } from './team';
import { TeamMember } from './team-member';

export { AccessToken, Label, Organization, PlatformUser, Project, ProjectStatus, Task, TaskStatus, Team, TeamMember };

/** Every entity the ORM maps. */
export const entities = [AccessToken, Label, Organization, PlatformUser, Project, ProjectStatus, Task, TaskStatus, Team, TeamMember];
