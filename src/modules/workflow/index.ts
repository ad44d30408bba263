import { Activity, ActivityPlan, Execution, PlatformEvent, Project, ProjectTemplate, Trigger } from '../../entities';
import { rulesOf, type PlatformModule } from '../../engine/module';
import { combineRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';
import { activityRules } from './activities';
import { activityPlanRules } from './activity-plans';
import { failActivityStep } from './activity-runner';
import { cancelExecution, executionRules } from './executions';
import { ExpressionPool } from './expression-pool';
import { platformEventRules } from './platform-events';
import { applyProjectTemplate, projectTemplateOptionRules, projectTemplateRules } from './project-templates';
import { fireTrigger } from './trigger-firing';
import { triggerRules } from './triggers';

declare module '../../engine/services' {
  interface ModuleDependencies {
    /** Where users' JSONata is evaluated, within its limits (see expression-pool.ts); without one, a pool of the defaults. */
    expressions: ExpressionPool;
  }
}

/** Platform events, triggers, activity plans and the activities they run, executions, project templates. */
export const workflowModule: PlatformModule = {
  name: 'workflow',
  rules: [
    // After the tasks module's slug rule of projects: a template applies to a project with its slug.
    rulesOf(Project, projectTemplateRules),
    rulesOf(
      ProjectTemplate,
      combineRules(
        scopedSlugRules({ entity: ProjectTemplate, source: 'name', scopeField: 'organizationId', fallback: 'project-template' }),
        projectTemplateOptionRules,
      ),
    ),
    rulesOf(ActivityPlan, activityPlanRules),
    rulesOf(Trigger, triggerRules),
    rulesOf(Execution, executionRules),
    rulesOf(Activity, activityRules),
    rulesOf(PlatformEvent, platformEventRules),
  ],
  operations: {
    cancelExecution: (ctx, id) => cancelExecution(ctx, id!),
    fireTrigger: (ctx, id, input) => fireTrigger(ctx, id!, input),
    failActivityStep: (ctx, id, input, params) => failActivityStep(ctx, id!, params.stepId, input),
    applyProjectTemplate: (ctx, id, input) => applyProjectTemplate(ctx, id!, input),
  },
  defaults: { expressions: () => new ExpressionPool() },
};
