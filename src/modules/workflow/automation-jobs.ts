import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TaskList } from 'graphile-worker' with { 'resolution-mode': 'import' };
import { runActivity } from './activity-runner';
import { RequestContext } from '../../engine/context';
import type { Services } from '../../engine/services';
import { EVALUATE_TRIGGERS_JOB, evaluateTriggers, RUN_ACTIVITY_JOB, type ActivityRun, type TriggerEvaluation } from './trigger-firing';

/** The queue's jobs and what runs them: each job in a unit of work of its own, acting as the system. */
export function automationJobs(orm: MikroORM, services: Services): TaskList {
  const system = () => new RequestContext(orm.em.fork() as EntityManager, { kind: 'system' }, services);
  return {
    [EVALUATE_TRIGGERS_JOB]: (payload) => evaluateTriggers(system(), payload as TriggerEvaluation),
    [RUN_ACTIVITY_JOB]: (payload) => runActivity(system(), payload as ActivityRun),
  };
}
