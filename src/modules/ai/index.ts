import type { AiGatewayConfig } from '../../config/ai-gateway';
import { Agent, AgentRuntime, ModelCatalogEntry, Prompt } from '../../entities';
import { rulesOf, type PlatformModule } from '../../engine/module';
import { scopedSlugRules } from '../../engine/slugs';
import { getChannelTranscript } from './chat-transcripts';
import { modelCatalogRules } from './model-catalog';

declare module '../../engine/services' {
  interface ModuleDependencies {
    /** The providers chat completions go to (through `egress`); without them, none is configured. */
    aiGateway: AiGatewayConfig;
  }
}

/** Agents, their runtimes and prompts, the model catalogue, the AI gateway and chat transcripts. */
export const aiModule: PlatformModule = {
  name: 'ai',
  rules: [
    rulesOf(AgentRuntime, scopedSlugRules({ entity: AgentRuntime, source: 'name', scopeField: 'organizationId', fallback: 'agent-runtime' })),
    rulesOf(Agent, scopedSlugRules({ entity: Agent, source: 'name', scopeField: 'organizationId', fallback: 'agent' })),
    rulesOf(Prompt, scopedSlugRules({ entity: Prompt, source: 'name', scopeField: 'organizationId', fallback: 'prompt' })),
    rulesOf(ModelCatalogEntry, modelCatalogRules),
  ],
  operations: {
    getChannelTranscript: (ctx, id) => getChannelTranscript(ctx, id!),
  },
  defaults: { aiGateway: () => ({ providers: {} }) },
};
