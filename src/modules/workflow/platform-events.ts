import { randomUUID } from 'node:crypto';
import { PlatformEvent, type EventType } from '../../entities/platform-event';
import { BadRequestError } from '../../errors/api-error';
import { isUuid } from '../../model/uuid';
import type { RequestContext } from '../../engine/context';
import { BoundedMap } from '../../engine/bounded-map';
import type { ResourceRules } from '../../engine/resource-rules';
import { allOfStatements } from '../../jobs/job-queue';
import { webhookDispatchJob } from '../webhooks/dispatch';
import { triggerEvaluationJob } from './trigger-firing';

/** Where an event happened: its subject's organization, and its project (null: the subject is in none). */
export interface EventPlace {
  organizationId: string;
  projectId: string | null;
}

/**
 * Records a domain event in the transaction of the change that causes it, with the jobs it asks for (the
 * evaluation of the project's triggers, its webhook deliveries) in one statement: a change rolled back
 * leaves none of them behind. `where` is a project id (the event's organization is the project's) or the
 * place itself; an event of no project asks for no evaluation (triggers belong to projects). `detail`
 * names the ids involved.
 */
export async function recordEvent(tx: RequestContext, where: string | EventPlace, eventType: EventType, detail: Record<string, unknown>): Promise<void> {
  const place = typeof where === 'string' ? { projectId: where, organizationId: await organizationOfProject(tx, where) } : where;
  if (!place.organizationId) throw new Error(`no project ${String(where)} to record ${eventType} in`);
  const id = randomUUID();
  const jobs = allOfStatements([
    place.projectId ? triggerEvaluationJob(tx, { id, organizationId: place.organizationId, projectId: place.projectId, eventType }) : undefined,
    webhookDispatchJob(tx, { id, organizationId: place.organizationId, projectId: place.projectId, eventType }),
  ]);
  await tx.services.forEntity(PlatformEvent)!.record(tx, { id, ...place, eventType, eventDetail: detail, notified: false, dateTime: new Date() }, jobs);
}

/**
 * A project's organization never changes (it is written on create only), so it is remembered once
 * known: the events of a task's changes cost no statement beyond their INSERT. Bounded, oldest out.
 */
const organizationsOfProjects = new BoundedMap<string, string>(10_000);

/** The organization of any project (deleted or not), by id; undefined when there is no such project. */
async function organizationOfProject(ctx: RequestContext, projectId: string): Promise<string | undefined> {
  const key = projectId.toLowerCase();
  const known = organizationsOfProjects.get(key);
  if (known) return known;
  const [row] = await ctx.em
    .getConnection()
    .execute<{ organization_id: string }[]>('select organization_id from project where id = ?', [key], 'all', ctx.em.getTransactionContext());
  if (!row) return undefined;
  organizationsOfProjects.set(key, row.organization_id);
  return row.organization_id;
}

/**
 * An event created through the API names its project, its organization, or both: the organization
 * left out is the project's. The reference checks that follow refuse a project the caller may not see
 * or one of another organization than the one named.
 */
export const platformEventRules: ResourceRules<PlatformEvent> = {
  async beforeCreate(tx, values) {
    if (typeof values.organizationId === 'string') return;
    if (typeof values.projectId !== 'string') throw BadRequestError.forField('organizationId', 'is required when projectId is not given');
    const organizationId = isUuid(values.projectId) ? await organizationOfProject(tx, values.projectId) : undefined;
    if (organizationId) values.organizationId = organizationId;
  },
};
