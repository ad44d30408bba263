import type { Activity } from '../../entities/activity';
import { recordEvent } from './platform-events';
import type { ResourceRules } from '../../engine/resource-rules';

/** An activity that becomes COMPLETED is an `activity_completed` event of its project (triggers listen to it). */
export const activityRules: ResourceRules<Activity> = {
  async afterUpdate(tx, activity, changes) {
    if (changes.status === 'COMPLETED') await recordEvent(tx, activity.projectId, 'activity_completed', { activityId: activity.id });
  },
};
