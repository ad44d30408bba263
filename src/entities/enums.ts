import { defineEnum } from '../model/enums';

export const TaskStatusType = defineEnum('TaskStatusType', ['OPEN', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'PENDING']);
export type TaskStatusType = (typeof TaskStatusType.values)[number];

export const SortDirection = defineEnum('SortDirection', ['ASC', 'DESC']);
