/** The event kinds a trigger listens to (BEHAVIOURS.md). */
export const TRIGGER_EVENT_KINDS = ['task_created', 'task_status_changed', 'activity_completed', 'manual', 'document_locked', 'knowledge_set_updated'] as const;

const PLAN_REF = /^activity-plan:\/\/([^/\s]+)\/([^/\s]+)$/;

/** `activity-plan://<orgSlug>/<planSlug>` taken apart; undefined when malformed. */
export function parseActivityPlanRef(ref: string): { orgSlug: string; planSlug: string } | undefined {
  const match = PLAN_REF.exec(ref);
  return match ? { orgSlug: match[1], planSlug: match[2] } : undefined;
}
