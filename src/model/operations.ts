import { Task, TaskGroupHistoryEntry } from '../entities';
import type { DomainOperation } from './operation';

/**
 * Every domain operation served beside the collections (DESIGN.md "Domain operations"); its behaviour
 * is bound by operationId in services/operations.ts.
 */
export const operations: DomainOperation[] = [
  {
    operationId: 'lockTask',
    method: 'put',
    path: 'tasks/{id}/lock',
    tag: 'tasks',
    summary: 'Lock a task: locked=true, lockedAt, lockedById; 409 when it is already locked',
    body: [],
    bodyOptional: true,
    answer: { entity: Task },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'unlockTask',
    method: 'put',
    path: 'tasks/{id}/unlock',
    tag: 'tasks',
    summary: 'Unlock a task; its activity reads "Task unlocked: <reason>"; 409 when it is not locked',
    body: [{ name: 'reason', kind: 'string', description: 'Why; absent, null or blank is allowed' }],
    bodyOptional: true,
    answer: { entity: Task },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'setTaskStatus',
    method: 'put',
    path: 'tasks/{id}/status',
    tag: 'tasks',
    summary: "Set a task's status: a live task status of the task's organization, by slug or by id",
    body: [
      { name: 'statusSlug', kind: 'string', description: 'The status by slug' },
      { name: 'statusId', kind: 'id', description: 'The status by id (when no statusSlug is given)' },
    ],
    answer: { entity: Task },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'listHistoryForTaskGroup',
    method: 'get',
    path: 'task-groups/{id}/history',
    tag: 'task-groups',
    summary: "A page of one task group's history, newest first; also for a deleted group",
    body: [],
    answer: { page: TaskGroupHistoryEntry },
    status: 200,
    errors: ['400', '404'],
  },
];
