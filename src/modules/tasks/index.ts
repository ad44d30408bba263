import { Project, Task, TaskActivity, TaskGroup, TaskStatus, TaskTemplate } from '../../entities';
import { rulesOf, type PlatformModule } from '../../engine/module';
import type { ListParams } from '../../engine/read-plan';
import { scopedSlugRules } from '../../engine/slugs';
import { taskActivityRules } from './task-activities';
import { listHistoryForTaskGroup, taskGroupRules } from './task-groups';
import { lockTask, setTaskStatus, taskRules, unlockTask } from './tasks';

/** Projects, their tasks, statuses, templates, groups and task activities. */
export const tasksModule: PlatformModule = {
  name: 'tasks',
  rules: [
    rulesOf(Project, scopedSlugRules({ entity: Project, source: 'name', scopeField: 'organizationId', fallback: 'project' })),
    rulesOf(Task, taskRules),
    rulesOf(TaskActivity, taskActivityRules),
    rulesOf(TaskGroup, taskGroupRules),
    rulesOf(TaskStatus, scopedSlugRules({ entity: TaskStatus, source: 'label', scopeField: 'organizationId', among: { deleted: false }, fallback: 'status' })),
    rulesOf(TaskTemplate, scopedSlugRules({ entity: TaskTemplate, source: 'name', scopeField: 'projectId', fallback: 'task-template' })),
  ],
  operations: {
    lockTask: (ctx, id) => lockTask(ctx, id!),
    unlockTask: (ctx, id, input) => unlockTask(ctx, id!, input),
    setTaskStatus: (ctx, id, input) => setTaskStatus(ctx, id!, input),
    listHistoryForTaskGroup: (ctx, id, input) => listHistoryForTaskGroup(ctx, id!, input as ListParams),
  },
};
