import type { PlatformModule } from '../engine/module';
import { accessModule } from './access';
import { aiModule } from './ai';
import { documentsModule } from './documents';
import { integrationsModule } from './integrations';
import { tasksModule } from './tasks';
import { webhooksModule } from './webhooks';
import { workflowModule } from './workflow';

/**
 * Every domain of the platform, in the order their rules run where two register rules for one
 * resource (a project's slug, from tasks, before its template, from workflow).
 */
export const modules: readonly PlatformModule[] = [accessModule, tasksModule, documentsModule, integrationsModule, workflowModule, aiModule, webhooksModule];
