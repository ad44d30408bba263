import { ProjectResource, ServiceBridge } from '../../entities';
import type { EgressGuard } from '../../egress/egress-guard';
import { rulesOf, type PlatformModule } from '../../engine/module';
import { combineRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';
import { callServiceBridge, listServiceBridges } from './agent-bridge-tools';
import { mintAnalyticsEmbedToken, type AnalyticsEmbedSigner } from './analytics-embed';
import type { DataLake } from './data-lake';
import { projectResourceRules } from './project-resources';
import { serviceBridgeRules } from './service-bridges';

declare module '../../engine/services' {
  interface ModuleDependencies {
    /** Where records for analytics go (task locks); without it (tools), none are written. */
    lake?: DataLake;
    /** Signs analytics embed tokens (or answers 503); without it (tools), embed tokens are disabled. */
    analyticsEmbed?: AnalyticsEmbedSigner;
    /** The only way to other services a tenant names (service bridges, AI providers); without it (tools), none can be called. */
    egress?: EgressGuard;
  }
}

/** Service bridges and the agent tools that call them, the data lake, and analytics embed tokens. */
export const integrationsModule: PlatformModule = {
  name: 'integrations',
  rules: [
    rulesOf(
      ServiceBridge,
      combineRules(scopedSlugRules({ entity: ServiceBridge, source: 'name', scopeField: 'organizationId', fallback: 'service-bridge' }), serviceBridgeRules),
    ),
    rulesOf(ProjectResource, projectResourceRules),
  ],
  operations: {
    mintAnalyticsEmbedToken: (ctx, _id, input) => mintAnalyticsEmbedToken(ctx, input),
    listServiceBridges: (ctx, id) => listServiceBridges(ctx, id!),
    callServiceBridge: (ctx, id, input) => callServiceBridge(ctx, id!, input),
  },
};
